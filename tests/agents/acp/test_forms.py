"""The forms agents give plan mode, read from their raw messages (any ACP schema version): a
session mode `plan`, or a select config option with a value `plan`; the plan's Markdown as a
proposal's explanation and steps; and the reject that lets an agent's turn go on."""

from __future__ import annotations

from acp.schema import PermissionOption

from jupyter_plans.agents.acp.forms import (
    MODE,
    asking_mode,
    assume,
    in_plan,
    learn,
    plan_switch,
    read_options,
)
from jupyter_plans.agents.acp.options import reject_choice, reject_outcome
from jupyter_plans.agents.acp.profiles import default, profiles
from jupyter_plans.agents.acp.state import AgentSession
from jupyter_plans.agents.acp.text import first_paragraph, list_items

CLAUDE_PROFILE = profiles()["claude-agent-acp"]
CODEX_PROFILE = profiles()["codex-acp"]


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
    learn(session, result)
    return session


def test_claude_codes_plan_mode_is_its_mode_option_mirrored_by_its_session_mode():
    session = learned(CLAUDE)
    for profile in (CLAUDE_PROFILE, default()):  # its profile, and what the default infers
        assert plan_switch(session, profile) == "mode" and asking_mode(session, profile) is None
        assert session.mode in profile.approves_itself and not in_plan(session)
    # Its current_mode_update alone moves the option too, and the other way round.
    assume(session, MODE, "plan")
    assert session.options["mode"].current == "plan" and in_plan(session)
    assume(session, "mode", "default")
    assert session.mode == "default" and not in_plan(session)
    assert session.options["effort"].values == ("low", "auto")  # groups read as values


def test_codex_has_plan_mode_only_as_its_collaboration_mode_and_a_mode_that_asks():
    session = learned(CODEX)
    for profile in (CODEX_PROFILE, default()):
        assert plan_switch(session, profile) == "collaboration_mode"
        assert asking_mode(session, profile) == "read-only"
        assert session.mode in profile.approves_itself
    assert set(read_options(CODEX["configOptions"])) == {"mode", "collaboration_mode"}
    learn(
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
    assert plan_switch(session, default()) is None and not in_plan(session)
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
    for profile in (CODEX_PROFILE, default()):
        assert reject_choice(codex, profile) == (
            {"outcome": "selected", "optionId": "decline"},
            False,
        )
        # Codex's only reject for a patch ends its turn.
        assert reject_choice(codex[:2], profile) == (
            {"outcome": "selected", "optionId": "cancel"},
            True,
        )
    claude = [option("allow-once", "allow_once", "Yes"), option("reject", "reject_once", "No")]
    for profile in (CLAUDE_PROFILE, default()):
        assert reject_choice(claude, profile) == (
            {"outcome": "selected", "optionId": "reject"},
            False,
        )
    # No reject offered: cancelled, which ends the turn.
    assert reject_choice(claude[:1], default()) == ({"outcome": "cancelled"}, True)
    assert reject_outcome(claude, CLAUDE_PROFILE)["optionId"] == "reject"
