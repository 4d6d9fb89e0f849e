"""Odd config files (`.claude/settings*.json`, `.codex/hooks.json`, Codex's `config.toml`, in the
project, a folder above it or a home) are read with bounds: a FIFO, a device behind a symbolic
link, a file nested thousands deep or larger than any settings file is one line naming the
file, and the surface goes on: `hook doctor`, `hook install`, `%load_ext` and the cells after
it in a real kernel, and the server's card route, which keeps answering the other notebooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from jupyter_plans.agents.config_files import MAX_BYTES, ConfigError, read_json, read_toml
from tests.jupyter_process import SERVER_TOKEN, jupyter, plans_only

from .real_clis import notebook_in_plan_mode

_SCRIPT = Path(sys.executable).with_name("jupyter-plans")
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "jupyter_plans.cli"]
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _written(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _to_dev_zero(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to("/dev/zero")
    return path


ODD = {
    "a FIFO": (_fifo, "is a FIFO, not a regular file"),
    "a link to /dev/zero": (_to_dev_zero, "is a character device, not a regular file"),
    "nested 100,000 deep": (lambda p: _written(p, DEEP_JSON), "nests more than 64 levels deep"),
    "larger than 1 MiB": (
        lambda p: _written(p, '{"a": "' + "x" * MAX_BYTES + '"}'),
        f"is larger than {MAX_BYTES} bytes",
    ),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_an_odd_file_is_one_line_naming_it(tmp_path, case):
    make, words = ODD[case]
    path = make(tmp_path / "settings.json")
    started = time.monotonic()
    with pytest.raises(ConfigError) as refused:
        read_json(path)
    assert str(refused.value).startswith(str(path)) and words in str(refused.value)
    assert "\n" not in str(refused.value) and time.monotonic() - started < 10
    toml = _written(tmp_path / "config.toml", DEEP_TOML)
    with pytest.raises(ConfigError, match="nests more than 64 levels deep"):
        read_toml(toml)


def _doctor(project: Path, home: Path, *host: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "CODEX_HOME": str(home / "codex"), "CLAUDE_CONFIG_DIR": str(home)}
    return subprocess.run(
        [*COMMAND, "hook", "doctor", *host, "--notebook", str(project / "analysis.ipynb")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        env=env,
    )


@pytest.mark.parametrize("case", sorted(ODD))
@pytest.mark.parametrize(
    "where", [".claude/settings.json", ".claude/settings.local.json", "../.codex/hooks.json"]
)
def test_hook_doctor_says_which_file_it_could_not_read_and_goes_on(tmp_path, case, where):
    make, words = ODD[case]
    project = tmp_path / "project"
    notebook_in_plan_mode(project)
    odd = make(Path(os.path.normpath(project / where)))
    found = _doctor(project, tmp_path / "home")
    assert "Traceback" not in found.stderr and found.returncode == 1, found.stderr
    lines = found.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == ["claude-code", "codex"], lines
    assert any(f"{odd} {words}" in line for line in lines), lines


def test_an_odd_codex_config_is_said_by_the_doctor_and_install_trust(tmp_path):
    project = tmp_path / "project"
    notebook = notebook_in_plan_mode(project)
    home = tmp_path / "home"
    env = {**os.environ, "CODEX_HOME": str(home / "codex")}
    install = [*COMMAND, "hook", "install", "codex", "--notebook", str(notebook)]
    subprocess.run([*install, "--write"], check=True, cwd=project, env=env, capture_output=True)
    for make, words in (ODD["a FIFO"], (lambda p: _written(p, DEEP_TOML), "nests more than")):
        config = make(home / "codex" / "config.toml")
        found = _doctor(project, home, "codex")
        assert found.returncode == 1 and "Traceback" not in found.stderr
        assert found.stdout.startswith(f"codex: no: {config} {words}"), found.stdout
        trusting = subprocess.run(
            [*install, "--trust"], capture_output=True, text=True, timeout=60, cwd=project, env=env
        )
        assert trusting.returncode == 1 and "Traceback" not in trusting.stderr
        assert f"{config} {words}" in trusting.stderr and trusting.stderr.count("\n") == 1
        config.unlink()


def test_hook_install_leaves_an_odd_settings_file_as_it_is_in_one_line(tmp_path):
    project = tmp_path / "project"
    notebook = notebook_in_plan_mode(project)
    odd = _fifo(project / ".claude" / "settings.json")
    found = subprocess.run(
        [*COMMAND, "hook", "install", "claude-code", "--notebook", str(notebook), "--write"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
    )
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert found.stderr == f"jupyter-plans: {odd} is a FIFO, not a regular file; it was not " + (
        "read; it was left as it is\n"
    )


def test_load_ext_and_the_cells_after_it_go_on_in_a_real_kernel(tmp_path):
    """This plan's guard registered for Codex, a FIFO at .codex/hooks.json above it, and a
    config.toml nested 100,000 deep: %load_ext shows the card, no cell after it prints a
    traceback, and the live card says which file could not be read."""
    from jupyter_client.manager import start_new_kernel

    project = tmp_path / "project"
    notebook = notebook_in_plan_mode(project / "notebooks")
    env = {
        **os.environ,
        "JPY_SESSION_NAME": str(notebook),
        "CODEX_HOME": str(tmp_path / "home" / "codex"),
    }
    install = [*COMMAND, "hook", "install", "codex", "--notebook", str(notebook), "--write"]
    subprocess.run(install, check=True, cwd=project, env=env, capture_output=True)
    _fifo(tmp_path / ".codex" / "hooks.json")
    config = _written(tmp_path / "home" / "codex" / "config.toml", DEEP_TOML)
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(notebook.parent), env=env)
    try:
        said = []
        warning = (
            "from jupyter_plans.agents.hosts.codex_trust import guard_warning\n"
            f"print(guard_warning({str(notebook)!r}, None, 'default'))"
        )
        for code in ("%load_ext jupyter_plans", "%plan", "1 + 1", "print('after')", warning):
            outputs = []
            reply = client.execute_interactive(code, timeout=30, output_hook=outputs.append)
            assert reply["content"]["status"] == "ok", (code, reply["content"])
            assert not [o for o in outputs if o["msg_type"] == "error"], code
            said += [o["content"]["text"] for o in outputs if o["msg_type"] == "stream"]
        assert not any("Traceback" in text for text in said), said
        # What the live card says, in the kernel: the file named, in one line.
        assert "".join(said).splitlines()[-1] == (  # one print may come as two messages
            f"Plan mode may not be enforced in Codex: {config} nests more than 64 levels deep, "
            "and Codex cannot read it either."
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_the_servers_card_route_answers_and_keeps_answering_the_others(tmp_path):
    root = tmp_path / "root"
    notebook = notebook_in_plan_mode(root / "odd")
    notebook_in_plan_mode(root / "plain")
    _fifo(root / "odd" / ".codex" / "hooks.json")
    _written(root / ".claude" / "settings.json", DEEP_JSON)
    extension = plans_only()
    env = {"CODEX_HOME": str(tmp_path / "codex-home")}
    with jupyter("server", root, SERVER_TOKEN, extension, log=tmp_path / "log", env=env) as (
        _process,
        base,
    ):

        def card(path: str) -> tuple[int, dict]:
            request = urllib.request.Request(f"{base}/api/plans/card?path={path}")
            request.add_header("Authorization", f"token {SERVER_TOKEN}")
            with urllib.request.urlopen(request, timeout=20) as response:
                return response.status, json.loads(response.read())

        answers: dict[str, tuple[int, dict]] = {}
        odd = threading.Thread(target=lambda: answers.update(odd=card("odd/analysis.ipynb")))
        odd.start()
        assert card("plain/analysis.ipynb")[0] == 200
        odd.join(30)
        status, data = answers["odd"]
        assert status == 200
        fifo = root / "odd" / ".codex" / "hooks.json"
        assert f"{fifo} is a FIFO, not a regular file" in data["guard_warning"]
    assert "Traceback" not in (tmp_path / "log").read_text()
    assert notebook.exists()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"id": "default", "name": ', "is not valid JSON"),
        ('["a list"]', "is not an agent profile: it holds list"),
        ('{"id": "default", "nme": "typo"}', "is not an agent profile: "),
        ("[" * 100_000, "nests more than 64 levels deep"),
    ],
)
def test_a_malformed_agent_profile_is_named_in_its_error(tmp_path, monkeypatch, content, words):
    from jupyter_plans.agents.acp.profiles import profile

    shipped = Path(profile.__file__).parent
    for found in shipped.glob("*.json"):
        (tmp_path / found.name).write_text(found.read_text())
    broken = tmp_path / "codex-acp.json"
    broken.write_text(content)
    monkeypatch.setattr(profile, "HERE", tmp_path)
    profile.profiles.cache_clear()
    try:
        with pytest.raises(ConfigError) as refused:
            profile.profiles()
        assert str(refused.value).startswith(f"{broken} {words}"), str(refused.value)
        assert "\n" not in str(refused.value)
    finally:
        profile.profiles.cache_clear()
