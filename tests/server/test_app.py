"""The server extension is an ExtensionApp, `JupyterPlansApp` (DESIGN section 16): its settings
are configurable with help text, it is enabled on install, it gives the kernels and terminals
it starts its settings, and stopping it closes every store it opened."""

import asyncio
import os
import subprocess
import sys

from jupyter_plans.server.app import HANDLERS, JupyterPlansApp
from jupyter_plans.server.files import PlanFiles


def test_its_settings_say_what_they_are():
    help_text = JupyterPlansApp.class_get_help()
    for trait in ("database", "session_id"):
        assert f"--JupyterPlansApp.{trait}" in help_text
        assert JupyterPlansApp.class_traits()[trait].metadata.get("config") is True
    assert "$JUPYTER_PLANS_DATABASE" in help_text and "{notebook_path}" in help_text
    assert [route for route, _ in HANDLERS] == [
        f"api/plans/{name}"
        for name in ("sessions", "snapshot", "card", "events", "decision", "comment")
    ]


def test_it_is_enabled_on_install():
    listed = subprocess.run(
        [sys.executable, "-m", "jupyter", "server", "extension", "list"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = (listed.stdout + listed.stderr).splitlines()
    at = next(n for n, line in enumerate(lines) if line.split()[:1] == ["jupyter_plans"])
    assert "enabled" in lines[at]
    # Its extension point loads: the ExtensionApp is found, with its version.
    assert lines[at + 1].strip() == "- Validating jupyter_plans..."
    assert "OK" in lines[at + 2] and "jupyter_plans" in lines[at + 2]


def test_stopping_it_closes_every_store_and_gives_back_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("JUPYTER_PLANS_DATABASE", raising=False)
    monkeypatch.setenv("JUPYTER_PLANS_SESSION_ID", "{notebook_stem}")
    for name in ("a", "b"):
        (tmp_path / f"{name}.ipynb").write_text("{}")
    files = PlanFiles(str(tmp_path))
    opened = [files.store(files.locate(f"{n}.ipynb"), create=True) for n in ("a", "b")]
    app = JupyterPlansApp(database=str(tmp_path / "team.sqlite"), session_id="{notebook_path}")
    app.settings["jupyter_plans_files"] = files
    app._exported = app._export(str(tmp_path))
    assert os.environ["JUPYTER_PLANS_DATABASE"] == str(tmp_path / "team.sqlite")
    assert os.environ["JUPYTER_PLANS_SESSION_ID"] == "{notebook_path}"
    asyncio.run(app.stop_extension())
    assert all(store.connections.closed for store in opened)
    assert "JUPYTER_PLANS_DATABASE" not in os.environ
    assert os.environ["JUPYTER_PLANS_SESSION_ID"] == "{notebook_stem}"
