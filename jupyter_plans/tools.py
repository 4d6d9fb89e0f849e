"""The tools, as a user imports them: the plan's tool catalog in every provider's dialect, and
`agent_tool` and `Toolbox` for an agent's own tools beside it."""

from .agents.toolbox import AgentTool, Toolbox, agent_tool, result_message
from .plan.catalog import CATALOG, DIALECTS, RESERVED_NAMES, definition, definitions, offered

__all__ = [
    "CATALOG",
    "DIALECTS",
    "RESERVED_NAMES",
    "AgentTool",
    "Toolbox",
    "agent_tool",
    "definition",
    "definitions",
    "offered",
    "result_message",
]
