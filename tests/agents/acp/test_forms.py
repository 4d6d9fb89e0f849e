"""The forms agents give plan mode, read from their raw messages (any ACP schema version): a
session mode `plan`, or a select config option with a value `plan`; the plan's Markdown as a
proposal's explanation and steps; and the reject that lets an agent's turn go on."""

from __future__ import annotations

from acp.schema import PermissionOption

from jupyter_plans.agents.acp.bridge import AgentSession
from jupyter_plans.agents.acp.modes import (
    MODE,
    Modes,
    approves_itself,
    asking_mode,
    in_plan,
    plan_switch,
    read_options,
)
from jupyter_plans.agents.acp.options import reject_outcome
from jupyter_plans.agents.acp.text import first_paragraph, list_items


def select(option_id, current, *values, grouped=False):
    choices = [{"value": v, "name": v.title()} for v in values]
    if grouped:
        choices = [{"group": "g", "name": "G", "options": choices}]
    return {
        "id": option_id,
        "name": option_id,
        "type": "select",
        "currentValue": current,
        "options": choices,
    }


CLAUDE = {
    "modes": {
        "currentModeId": "auto",
        "availableModes": [
            {"id": m, "name": m} for m in ("default", "acceptEdits", "plan", "auto")
        ],
    },
    "configOptions": [
        select("mode", "auto", "default", "acceptEdits", "plan", "auto"),
        select("effort", "auto", "low", "auto", grouped=True),
    ],
}
CODEX = {
    "modes": {
        "currentModeId": "agent",
        "availableModes": [
            {"id": m, "name": m}
            for m in ("read-only", "workspace-write", "agent", "agent-full-access")
        ],
    },
    "configOptions": [
        select("mode", "agent", "read-only", "workspace-write", "agent", "agent-full-access"),
        select("collaboration_mode", "default", "default", "plan"),
        {"id": "fast", "type": "boolean", "currentValue": False},
        "not an option",
    ],
}


def learned(result: dict) -> AgentSession:
    session = AgentSession()
    Modes(None).learn(session, result)
    return session


def test_claude_codes_plan_mode_is_its_mode_option_mirrored_by_its_session_mode():
    session = learned(CLAUDE)
    assert plan_switch(session) == "mode" and asking_mode(session) is None
    assert approves_itself(session) and not in_plan(session)
    # Its current_mode_update alone moves the option too, and the other way round.
    Modes(None)._assume(session, MODE, "plan")
    assert session.options["mode"].current == "plan" and in_plan(session)
    Modes(None)._assume(session, "mode", "default")
    assert session.mode == "default" and not in_plan(session)
    assert session.options["effort"].values == ("low", "auto")  # groups read as values


def test_codex_has_plan_mode_only_as_its_collaboration_mode_and_a_mode_that_asks():
    session = learned(CODEX)
    assert plan_switch(session) == "collaboration_mode"
    assert asking_mode(session) == "read-only" and approves_itself(session)
    assert set(read_options(CODEX["configOptions"])) == {"mode", "collaboration_mode"}
    Modes(None).learn(
        session,
        {
            "configOptions": [
                select("mode", "read-only", *session.modes),
                select("collaboration_mode", "plan", "default", "plan"),
            ]
        },
    )
    assert session.mode == "read-only" and in_plan(session)


def test_an_agent_without_plan_mode_has_no_switch():
    session = learned({"modes": {"currentModeId": "x", "availableModes": [{"id": "x"}]}})
    assert plan_switch(session) is None and not in_plan(session)
    assert learned({"modes": "garbage", "configOptions": {"no": "list"}}).options == {}


def test_the_proposals_explanation_skips_headings_and_its_steps_are_the_top_level_items():
    markdown = (
        "# Clean the data\n## Why\nThe table has\nduplicates.\n\n"
        "1. Load it\n2) Drop duplicates\n   - a detail\n* [ ] Plot\n+ [x] Save\n"
        "```\n- not an item\n```\n-\n"
    )
    assert first_paragraph(markdown) == "The table has duplicates."
    assert list_items(markdown) == ["Load it", "Drop duplicates", "Plot", "Save"]
    assert first_paragraph("# Only a heading\n") == ""


def option(option_id, kind, name):
    return PermissionOption(option_id=option_id, kind=kind, name=name)


def test_a_reject_that_lets_the_turn_go_on_is_preferred():
    codex = [
        option("allow_once", "allow_once", "Yes, proceed"),
        option("cancel", "reject_once", "No, and tell Codex what to do differently"),
        option("decline", "reject_once", "No, continue without running it"),
    ]
    assert reject_outcome(codex)["optionId"] == "decline"
    assert reject_outcome(codex[:2])["optionId"] == "cancel"
    claude = [option("allow-once", "allow_once", "Yes"), option("reject", "reject_once", "No")]
    assert reject_outcome(claude)["optionId"] == "reject"
