"""The ACP bridge, `jupyter-plans acp`: an ACP agent's plan, plan mode and approval in a session
(with Jupyter AI's persona for it, a notebook's ACP client and the scripted ACP agent)."""

from .command import main

__all__ = ["main"]
