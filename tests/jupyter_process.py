"""A real `jupyter server` or `jupyter lab` in a subprocess on 127.0.0.1, for the tests."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

SERVER_TOKEN = "plans-server-token"  # the token of the `server` fixture (tests/conftest.py)
STOP_S = 20  # a server's time to stop after SIGTERM; it gives its kernels 5 s (jupyter_client)


def plans_only() -> str:
    """The option that starts a `jupyter server` with the plans extension alone: every other
    server extension this environment enables (JupyterLab, Jupyter AI's, the terminals) is left
    out: a start takes 1.2 s here instead of 2.7 (Jupyter AI's ACP client alone imports for
    1 s). For the tests of the server's routes; the browser tests run JupyterLab as installed."""
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager

    enabled = ExtensionConfigManager(read_config_path=jupyter_config_path())
    extensions = {name: False for name in enabled.get_jpserver_extensions()}
    return f"--ServerApp.jpserver_extensions={extensions | {'jupyter_plans': True}!r}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def jupyter(
    app: str,
    root: Path,
    token: str,
    *options: str,
    log: Path,
    env: dict | None = None,
    python: str = sys.executable,
):
    """Run `jupyter APP` serving ROOT until the block ends; yields (process, base URL). `env`
    adds to the environment it runs in; `python` is the environment's (default: this one)."""
    port = free_port()
    with open(log, "w") as output:
        process = subprocess.Popen(
            [
                python,
                "-m",
                "jupyter",
                app,
                "--allow-root",
                "--no-browser",
                f"--port={port}",
                "--ip=127.0.0.1",
                f"--ServerApp.token={token}",
                f"--ServerApp.root_dir={root}",
                *options,
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=root,
            env={**os.environ, "PYTHONFAULTHANDLER": "1", **(env or {})},
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    process.kill()
                    raise RuntimeError(log.read_text()[-3000:]) from None
                time.sleep(0.3)
        try:
            yield process, base
        finally:
            _stop(process, f"jupyter {app}", log)


def _stop(process: subprocess.Popen, name: str, log: Path) -> None:
    """Stop a server as Ctrl-C would. It stops its kernels first: slow on a loaded machine, and
    not what is tested; but one that is still there after STOP_S is asked where it is (Python's
    faulthandler writes every thread's stack to its log on SIGABRT) and the run is warned."""
    process.terminate()
    try:
        process.wait(timeout=STOP_S)
        return
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=20)
    text = log.read_text(errors="replace")
    at = text.find("Fatal Python error")  # where faulthandler's stacks begin
    where = text[at:] if at >= 0 else text[-4000:]
    if not _left_an_anyio_worker(where):
        warnings.warn(f"{name} was still stopping after {STOP_S} s: {where[:4000]}", stacklevel=2)


def _left_an_anyio_worker(where: str) -> bool:
    """Whether the server had stopped and Python's exit waited on an AnyIO worker thread (seen
    under load only). jupyter_server's contents do their file work on AnyIO's workers, and AnyIO
    ends a worker when the task that started it ends; where that task had not ended when the
    server stopped its event loop, nothing ends the worker (neither is this package's)."""
    current = where[where.find("Current thread") :]
    return " in _shutdown" in current.split("\n\n")[0] and "anyio/_backends/" in where


# No news pop-up over the page, and no check for updates: a page the tests (and the docs'
# pictures) can drive as a person would see it.
QUIET_LAB = {
    "@jupyterlab/apputils-extension:notification": {"checkForUpdates": False, "fetchNews": "false"}
}


@contextlib.contextmanager
def jupyter_lab(root: Path, token: str, *extra: str, env: dict | None = None):
    """JupyterLab serving ROOT with `window.jupyterapp` exposed and settings, user settings and
    workspaces of its own under ROOT, and the EXTRA options; yields its base URL."""
    import json

    settings = root / ".settings"
    settings.mkdir(exist_ok=True)
    (settings / "overrides.json").write_text(json.dumps(QUIET_LAB))
    options = (
        "--LabApp.expose_app_in_browser=True",
        f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={root / '.user-settings'}",
        f"--LabApp.workspaces_dir={root / '.workspaces'}",
        *extra,
    )
    with jupyter("lab", root, token, *options, log=root / "lab.log", env=env) as (_, base):
        yield base


@contextlib.contextmanager
def plans_server(root: Path):
    """A real `jupyter server` with the plans extension alone, serving ROOT (its log beside
    ROOT); yields its base URL, root, port and process id."""
    with jupyter("server", root, SERVER_TOKEN, plans_only(), log=root.parent / "server.log") as (
        process,
        base,
    ):
        yield {"base": base, "root": root, "port": int(base.rsplit(":", 1)[1]), "pid": process.pid}
