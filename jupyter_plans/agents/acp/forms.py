"""The forms an agent gives its modes and plan mode, read from its raw messages (`modes`,
`configOptions`), so any version of the ACP schema it speaks is understood alike: a session
mode `plan`, or a select config option with a value `plan`, and the mode that makes it ask."""

from __future__ import annotations

from typing import Any

from .profiles import Profile
from .state import AgentSession, Select
from .text import clean, cut, is_blank

MAX_WORDS_BYTES = 200  # the agent's words for a mode, as the card shows them

PLAN = "plan"
DEFAULT = "default"
MODE = "@mode"  # the switch that is the session mode, beside config option ids


def read_modes(raw: Any) -> tuple[tuple[str, ...], Any, dict[str, str]] | None:
    """(the mode ids, the current one, each mode's words: its name and description) of a
    `modes` object, or None when it is not one."""
    if not isinstance(raw, dict) or not isinstance(raw.get("availableModes"), list):
        return None
    ids, described = [], {}
    for mode in raw["availableModes"]:
        if isinstance(mode, dict) and isinstance(mode.get("id"), str):
            ids.append(mode["id"])
            words = [mode.get(k) for k in ("name", "description")]
            said = ": ".join(clean(w) for w in words if isinstance(w, str) and not is_blank(w))
            described[mode["id"]] = cut(said, MAX_WORDS_BYTES)
    return tuple(ids), raw.get("currentModeId"), described


def read_options(raw: Any) -> dict[str, Select] | None:
    """The select config options of a `configOptions` list by id, or None when it is not one."""
    if not isinstance(raw, list):
        return None
    found = {}
    for option in raw:
        if not isinstance(option, dict) or option.get("type") != "select":
            continue
        if not isinstance(option.get("id"), str) or not isinstance(option.get("options"), list):
            continue
        values = []
        for choice in option["options"]:  # values, or groups of values
            inner = choice.get("options") if isinstance(choice, dict) else None
            for value in inner if isinstance(inner, list) else [choice]:
                if isinstance(value, dict) and isinstance(value.get("value"), str):
                    values.append(value["value"])
        found[option["id"]] = Select(tuple(values), option.get("currentValue"))
    return found


def plan_switch(agent_session: AgentSession, profile: Profile) -> str | None:
    """The switch to plan mode: the profile's, where the agent offers it; else a config option
    with a value `plan`, else the session mode (MODE), else None when it offers no plan mode."""
    wanted = profile.plan_switch
    if wanted == MODE and PLAN in agent_session.modes:
        return MODE
    if wanted in agent_session.options and PLAN in agent_session.options[wanted].values:
        return wanted
    for option_id, select in agent_session.options.items():
        if PLAN in select.values:
            return option_id
    return MODE if PLAN in agent_session.modes else None


def in_plan(agent_session: AgentSession) -> bool:
    if agent_session.mode == PLAN:
        return True
    return any(
        PLAN in select.values and select.current == PLAN
        for select in agent_session.options.values()
    )


def asking_mode(agent_session: AgentSession, profile: Profile) -> str | None:
    """The mode that makes the agent ask, where its permission modes are apart from plan mode."""
    if PLAN in agent_session.modes:
        return None
    return next((m for m in profile.asking_modes if m in agent_session.modes), None)


def learn(agent_session: AgentSession, result: dict) -> None:
    """Take what a result or an update says of the agent's modes and config options."""
    modes = read_modes(result.get("modes"))
    if modes is not None:
        agent_session.modes, current, agent_session.described = modes
        assume(agent_session, MODE, current)
    options = read_options(result.get("configOptions"))
    if options is not None:
        agent_session.options = options
        agent_session.raw_options = [o for o in result["configOptions"] if isinstance(o, dict)]
        mirror = _mirror(agent_session)
        if mirror is not None:
            agent_session.mode = options[mirror].current


def current_options(agent_session: AgentSession) -> list[dict]:
    """The agent's config options as it last sent them, each select at the value the bridge
    knows it holds now."""
    return [
        {**raw, "currentValue": agent_session.options[raw["id"]].current}
        if raw.get("id") in agent_session.options
        else raw
        for raw in agent_session.raw_options
    ]


def told(update: dict, switch: str, agent_session: AgentSession) -> Any:
    """The value an agent's mode or option update gives `switch` (the session mode, or a
    config option), or None when it says nothing of it."""
    mirror = _mirror(agent_session)
    if update.get("sessionUpdate") == "current_mode_update":
        return update.get("currentModeId") if switch in (MODE, mirror) else None
    wanted = mirror if switch == MODE else switch
    for option in update.get("configOptions") or []:
        if isinstance(option, dict) and option.get("id") == wanted:
            return option.get("currentValue")
    return None


def value(agent_session: AgentSession, switch: str) -> Any:
    if switch == MODE:
        return agent_session.mode
    select = agent_session.options.get(switch)
    return None if select is None else select.current


def assume(agent_session: AgentSession, switch: str, to: Any) -> None:
    """Known at once, before the agent answers, so its echo is not taken for its own act.
    The session mode and the config option that mirrors it move together, whichever of them
    the agent tells."""
    mirror = _mirror(agent_session)
    if switch in (MODE, mirror):
        agent_session.mode = to
        switch = mirror
    if switch in agent_session.options:
        agent_session.options[switch].current = to


def _mirror(agent_session: AgentSession) -> str | None:
    """The config option that mirrors the session modes (same values), if one does."""
    if not agent_session.modes:
        return None
    modes = set(agent_session.modes)
    return next(
        (key for key, select in agent_session.options.items() if set(select.values) == modes),
        None,
    )


def out_of_plan(agent_session: AgentSession, switch: str) -> str | None:
    values = agent_session.modes if switch == MODE else agent_session.options[switch].values
    if DEFAULT in values:
        return DEFAULT
    return next((v for v in values if v != PLAN), None)
