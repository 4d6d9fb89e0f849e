"""The Jupyter Server extension: a notebook's plan over HTTP, behind Jupyter's own auth."""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyter_plans.server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from .app import setup

    setup(serverapp)
