"""The ACP bridge, `jupyter-plans acp`: an ACP agent's plan, plan mode and approval in a session."""

from .command import main

__all__ = ["main"]
