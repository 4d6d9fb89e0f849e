"""Whether `jupyter-plans mcp` can run in this environment: the MCP server is written for the mcp
package 2.x (2.3 or newer), which the `mcp` extra brings. Checked before `mcp_server` is
imported, so that a missing or older mcp is said in one line, with the fix."""

from __future__ import annotations

import re
from importlib import metadata

LOWEST = (2, 3)
NEXT_MAJOR = 3
FIX = "pip install 'jupyter-plans[mcp]'"


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _release(version: str) -> tuple[int, int]:
    match = re.match(r"(\d+)(?:\.(\d+))?", version)
    return (int(match.group(1)), int(match.group(2) or 0)) if match else (0, 0)


def unmet() -> str | None:
    """None when the mcp package here is one the server runs on; else what was found and what
    to do, in one line."""
    needs = "the MCP server needs the mcp package 2.3 or newer"
    try:
        import mcp  # noqa: F401 - only whether it imports
    except ImportError as error:
        if error.name == "mcp":
            return f"{needs}, which is not installed: {FIX}"
        found = _installed("mcp") or "a copy"
        reason = " ".join(str(error).split())
        return f"{needs} (found {found}, which does not import: {reason}): {FIX}"
    found = _installed("mcp")
    if found is None:  # importable with no metadata (a folder on the path): let it try
        return None
    release = _release(found)
    if LOWEST <= release and release[0] < NEXT_MAJOR:
        return None
    if release[0] >= NEXT_MAJOR:
        return f"{needs}, below {NEXT_MAJOR} (found {found}): {FIX}"
    jupyter_ai = _installed("jupyter-ai")
    if jupyter_ai is not None and release[0] < 2:
        # Installing the extra here would take mcp from under Jupyter AI's jupyter-server-mcp.
        return (
            f"{needs} (found {found}, which jupyter-ai {jupyter_ai} here keeps below 2): "
            f"run the MCP server from another environment, with {FIX}"
        )
    return f"{needs} (found {found}): {FIX}"
