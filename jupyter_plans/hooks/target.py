"""Where a hook registered with `--notebook` finds its plan, and when it cannot (DESIGN section
15): a notebook that is gone (renamed, moved, deleted) fails closed, unless a plan file in the
same folder says it was moved from that notebook; then the hook follows it, and says once
that `hook install` should be run again for the new name.

The hook's PreToolUse (tool_use.py) asks only for a notebook that is not plainly there."""

from __future__ import annotations

from ..agents.hosts.registry import host_of, install_flag

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
    """The notebook whose plan the hook reads; only a notebook without its plan file costs more
    than a stat or two."""
    from pathlib import Path

    from ..store.locate import plan_file

    path = Path(notebook)
    plan = plan_file(path)
    if path.exists():
        if plan.exists() or plan.is_symlink():
            return Target(path)
        # A notebook of this name with no plan yet: perhaps a new one (File > New makes
        # Untitled.ipynb again) that took the name of the notebook this hook was installed for,
        # whose plan went with it when it was renamed. That plan is this hook's to guard.
        return _moved(path, payload) or Target(path)
    if plan.exists() or plan.is_symlink():
        from ..store.following.follow import recorded_notebook

        if recorded_notebook(plan) is None:
            # A plan file no notebook ever opened (written by a script): read as it is.
            return Target(path)
        return Target(path, gone=_gone(path, payload))
    return _moved(path, payload) or Target(path, gone=_gone(path, payload))


def _moved(path: Path, payload: dict | None) -> Target | None:
    """The plan file in the notebook's folder that says it was moved from `path`, with the
    notebook it went with, when there is one such plan and its notebook is there; a Target
    that fails closed where plan files say so but none can be followed; None where none
    says so."""
    import contextlib

    from ..store.following.follow import owner
    from ..store.following.former import first_telling, moved_from
    from ..store.locate import SUFFIX

    found = []
    with contextlib.suppress(OSError):
        found = [p for p in sorted(path.parent.glob("*" + SUFFIX)) if moved_from(p, path.name)]
    new = owner(found[0]) if len(found) == 1 else None
    if not found:
        return None
    if new is None or not new.exists() or new == path:
        return Target(path, gone=_gone(path, payload, taken=path.exists()))
    followed = None
    if first_telling(found[0], path.name):
        followed = (
            f"the notebook {path.name} was renamed to {new.name}, and this hook follows its plan "
            f"({found[0].name}); run `{_install(payload, new)}` so that it names {new.name}"
        )
    return Target(new, followed=followed)


def _gone(notebook: Path, payload: dict | None, taken: bool = False) -> str:
    what = (
        f"was renamed or moved, and another notebook has taken the name {notebook.name}"
        if taken
        else "is gone (renamed, moved or deleted)"
    )
    return (
        f"the notebook {notebook} that this hook was installed for {what}, so jupyter-plans "
        f"cannot tell whether plan mode holds; run `{_install(payload, None)}` again for the "
        "notebook where it is now"
    )


def _install(payload: dict | None, notebook: Path | None) -> str:
    import shlex

    host = host_of(payload) or "HOST"
    flag = install_flag(host)
    where = shlex.quote(str(notebook)) if notebook is not None else "NOTEBOOK"
    return f"jupyter-plans hook install {host} --notebook {where} {flag}"
