"""Where a hook registered with `--notebook` finds its plan, and when it cannot (DESIGN section
15): a notebook that is gone (renamed, moved, deleted) fails closed, unless a plan file in the
same folder says it was moved from that notebook; then the hook follows it, and says once
that `hook install` should be run again for the new name.

The hook's PreToolUse (tool_use.py) asks only for a notebook that is not plainly there."""

from __future__ import annotations

from .seen import host_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class Target:
    """`notebook`, the notebook whose plan the hook reads (the new one, if followed); `gone`,
    why the hook cannot tell, as its notebook is gone (one line); `followed`, said once: the
    hook follows the plan of the renamed notebook."""

    def __init__(self, notebook: Path | str, gone: str | None = None, followed: str | None = None):
        self.notebook, self.gone, self.followed = notebook, gone, followed


def locate(notebook: str, payload: dict | None) -> Target:
    """The notebook whose plan the hook reads."""
    import contextlib
    from pathlib import Path

    path = Path(notebook)
    if path.exists():
        return Target(path)
    from ..store.follow import owner, recorded_notebook
    from ..store.locate import SUFFIX, plan_file

    plan = plan_file(path)
    if plan.exists() or plan.is_symlink():
        if recorded_notebook(plan) is None:
            # A plan file no notebook ever opened (written by a script): read as it is.
            return Target(path)
        return Target(path, gone=_gone(path, payload))
    from ..store.guards import first_telling, moved_from

    found = []
    with contextlib.suppress(OSError):
        found = [p for p in sorted(path.parent.glob("*" + SUFFIX)) if moved_from(p, path.name)]
    new = owner(found[0]) if len(found) == 1 else None
    if new is None or not new.exists():
        return Target(path, gone=_gone(path, payload))
    followed = None
    if first_telling(found[0], path.name):
        followed = (
            f"the notebook {path.name} was renamed to {new.name}, and this hook follows its plan "
            f"({found[0].name}); run `{_install(payload, new)}` so that it names {new.name}"
        )
    return Target(new, followed=followed)


def _gone(notebook: Path, payload: dict | None) -> str:
    return (
        f"the notebook {notebook} that this hook was installed for is gone (renamed, moved or "
        "deleted), so jupyter-plans cannot tell whether plan mode holds; run "
        f"`{_install(payload, None)}` again for the notebook where it is now"
    )


def _install(payload: dict | None, notebook: Path | None) -> str:
    import shlex

    host = host_of(payload) or "HOST"
    flag = {"codex": "--trust", "claude-code": "--write"}.get(host, "--write")
    where = shlex.quote(str(notebook)) if notebook is not None else "NOTEBOOK"
    return f"jupyter-plans hook install {host} --notebook {where} {flag}"
