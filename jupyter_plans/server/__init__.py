"""The Jupyter Server extension: a notebook's plan over HTTP, behind Jupyter's own auth."""

from __future__ import annotations


def _jupyter_server_extension_points() -> list[dict]:
    from .app import JupyterPlansApp

    return [{"module": "jupyter_plans.server", "app": JupyterPlansApp}]
