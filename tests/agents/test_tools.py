"""The tool catalog in every provider's dialect, the dispatcher, and an agent's guarded tools."""

import json
import os
from pathlib import Path

import pytest

from jupyter_plans.errors import GuardRefused
from jupyter_plans.tools import DIALECTS, Toolbox, agent_tool, definitions

SNAPSHOTS = Path(__file__).parent / "snapshots"
STEPS = [{"id": "load", "description": "Load the CSV"}, {"id": "clean", "description": "Clean"}]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_each_dialect_matches_its_schema_snapshot(dialect):
    """A change to a tool's schema shows up here first; JUPYTER_PLANS_UPDATE_SNAPSHOTS=1
    rewrites the snapshot files, to be reviewed in the diff."""
    found = {
        "default": definitions(dialect, "default"),
        "plan": definitions(dialect, "plan"),
        "plan, with ask_user": definitions(dialect, "plan", ask_user=True),
        "default, every step completed": definitions(dialect, "default", completed=True),
    }
    path = SNAPSHOTS / f"tools-{dialect}.json"
    text = json.dumps(found, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if os.environ.get("JUPYTER_PLANS_UPDATE_SNAPSHOTS"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def _name_and_schema(dialect, entry):
    if dialect == "openai_chat":
        assert entry["type"] == "function" and set(entry) == {"type", "function"}
        return entry["function"]["name"], entry["function"]["parameters"]
    if dialect == "openai_responses":
        assert entry["type"] == "function" and entry["strict"] is False
        return entry["name"], entry["parameters"]
    if dialect == "anthropic":
        assert set(entry) == {"name", "description", "input_schema"}
        return entry["name"], entry["input_schema"]
    assert set(entry) == {"name", "description", "inputSchema"}
    return entry["name"], entry["inputSchema"]


def test_every_dialect_offers_the_same_tools_with_the_same_schemas_in_each_mode():
    for mode, names in (
        ("default", ["update_plan", "record_decision", "comment_reply"]),
        ("plan", ["update_plan", "plan_submit", "record_decision", "comment_reply"]),
    ):
        schemas = []
        for dialect in DIALECTS:
            pairs = [_name_and_schema(dialect, e) for e in definitions(dialect, mode)]
            assert [name for name, _ in pairs] == names
            schemas.append([schema for _, schema in pairs])
        assert all(found == schemas[0] for found in schemas)
        for schema in schemas[0]:
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            assert "$ref" not in json.dumps(schema)


def test_an_agent_without_planning_sees_no_plan_tools_and_cannot_call_them(session):
    @agent_tool("read")
    def peek() -> str:
        """Look at the data."""
        return "3 rows"

    box = Toolbox(session, [peek], planning=False)
    assert [e["name"] for e in box.definitions("anthropic")] == ["peek"]
    result = box.call("update_plan", {"expected_revision": 0, "steps": STEPS})
    assert result.is_error and "planning is not enabled for this agent" in result.content
    assert session.snapshot().plan is None and session.events() == []


def test_ask_user_is_offered_only_in_plan_mode_and_only_to_agents_that_ask_for_it(session):
    box, asking = Toolbox(session), Toolbox(session, ask_user=True)
    assert "ask_user" not in [e["name"] for e in asking.definitions("mcp")]
    session.on()
    assert "ask_user" not in [e["name"] for e in box.definitions("mcp")]
    assert [e["name"] for e in asking.definitions("mcp")][-1] == "ask_user"
    refused = box.call("ask_user", {"question": "Which sheet?"})
    assert refused.is_error and "not offered to this agent" in refused.content
    assert session.open_question() is None
    assert not asking.call("ask_user", {"question": "Which sheet?"}).is_error
    assert session.open_question().question == "Which sheet?"


# The dispatcher, one provider at a time.


def test_openai_chat_call_with_json_text_arguments_returns_a_tool_message(session):
    call = {
        "id": "call_abc",
        "type": "function",
        "function": {
            "name": "update_plan",
            "arguments": json.dumps({"expected_revision": 0, "steps": STEPS}),
        },
    }
    message = Toolbox(session).dispatch("openai_chat", call, turn_id="t1")
    assert message["role"] == "tool" and message["tool_call_id"] == "call_abc"
    assert json.loads(message["content"]) == {
        "is_error": False,
        "content": "Plan updated to revision 1.",
    }
    plan = session.snapshot().plan
    assert [s.id for s in plan.steps] == ["load", "clean"]
    assert (plan.call_id, plan.turn_id) == ("call_abc", "t1")


def test_a_provider_retry_under_the_same_call_id_is_applied_once(session):
    call = {
        "type": "function_call",
        "call_id": "fc_1",
        "name": "update_plan",
        "arguments": json.dumps({"expected_revision": 0, "steps": STEPS}),
    }
    box = Toolbox(session)
    first = box.dispatch("openai_responses", call)
    again = box.dispatch("openai_responses", call)
    assert first == again
    assert first["type"] == "function_call_output" and first["call_id"] == "fc_1"
    assert session.snapshot().plan.revision == 1 and len(session.events()) == 1


def test_anthropic_tool_use_refused_for_bounds_names_the_field(session):
    steps = [{"id": "a", "description": "x" * 241}]
    call = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "update_plan",
        "input": {"expected_revision": 0, "steps": steps},
    }
    message = Toolbox(session).dispatch("anthropic", call)
    assert message["type"] == "tool_result" and message["tool_use_id"] == "toolu_1"
    assert message["is_error"] is True
    assert "steps[0].description" in message["content"] and "240" in message["content"]
    assert session.snapshot().plan is None
    assert [e.kind for e in session.events()] == ["tool_finished"]


@pytest.mark.parametrize("arguments", ['{"expected_revision": 0, "steps": [', "[1, 2]", "null"])
def test_malformed_arguments_are_an_error_result_never_an_exception(session, arguments):
    call = {"id": "c1", "type": "function", "function": {"name": "update_plan"}}
    call["function"]["arguments"] = arguments
    message = Toolbox(session).dispatch("openai_chat", call)
    result = json.loads(message["content"])
    assert result["is_error"] is True and "\n" not in result["content"]
    assert "JSON" in result["content"]
    assert session.snapshot().plan is None


def test_mcp_call_and_an_unknown_tool(session):
    box = Toolbox(session)
    message = box.dispatch(
        "mcp", {"name": "record_decision", "arguments": {"title": "Keep", "rationale": "Why"}}
    )
    assert message == {
        "content": [{"type": "text", "text": "Decision recorded: Keep"}],
        "isError": False,
    }
    unknown = box.dispatch("mcp", {"name": "rm_rf", "arguments": {}})
    assert unknown["isError"] is True
    assert "unknown tool rm_rf" in unknown["content"][0]["text"]
    assert "update_plan, record_decision" in unknown["content"][0]["text"]


def test_a_numeric_provider_id_is_recorded_as_text_and_its_retry_applied_once(session):
    box = Toolbox(session)
    call = {"name": "update_plan", "id": 7, "arguments": {"expected_revision": 0, "steps": []}}
    first = box.dispatch("mcp", call)
    assert first["isError"] is False
    assert session.snapshot().plan.call_id == "7"
    assert box.dispatch("mcp", call) == first  # the retry: the recorded result, nothing new
    assert [e.kind for e in session.events()] == ["plan_updated"]


@pytest.mark.parametrize(
    ("provider_id", "message"),
    [
        ("call_\udc80", "call_id contains a lone surrogate U+DC80 at character 5"),
        (["call_1"], "call_id must be a string or None; found list"),
    ],
)
def test_a_provider_id_that_is_not_text_is_an_error_result_and_nothing_is_stored(
    session, provider_id, message
):
    call = {"id": provider_id, "function": {"name": "update_plan", "arguments": "{}"}}
    reply = Toolbox(session).dispatch("openai_chat", call)
    result = json.loads(reply["content"])
    assert result["is_error"] is True and result["content"].startswith(message)
    assert session.events() == [] and session.snapshot().plan is None


# An agent's own tools and the guard.


class Ran(list):
    """What the tools really did."""


@pytest.fixture
def ran():
    return Ran()


@pytest.fixture
def tools(ran):
    @agent_tool("read")
    def count_rows(table: str) -> int:
        """Count the rows of a table."""
        ran.append(("count_rows", table))
        return 3

    @agent_tool("write", name="save_table")
    def save(path: str, overwrite: bool = False) -> str:
        """Write the cleaned table to PATH."""
        ran.append(("save_table", path, overwrite))
        return f"saved {path}"

    return [count_rows, save]


def test_agent_tool_schemas_come_from_the_signature(tools):
    (entry,) = [e for e in definitions("openai_chat", "default", tools=tools) if "save" in str(e)]
    function = entry["function"]
    assert function["name"] == "save_table"
    assert function["description"] == "Write the cleaned table to PATH."
    assert function["parameters"]["required"] == ["path"]
    assert set(function["parameters"]["properties"]) == {"path", "overwrite"}


def test_in_plan_mode_a_write_tool_is_refused_with_what_to_do_instead(session, tools, ran):
    session.on()
    box = Toolbox(session, tools)
    read = box.call("count_rows", '{"table": "sales"}')
    assert not read.is_error and read.content == "3"
    refused = box.call("save_table", {"path": "out.csv"})
    assert refused.is_error
    assert "plan mode" in refused.content and "plan_submit" in refused.content
    assert ran == [("count_rows", "sales")]


def test_while_a_proposal_waits_write_tools_wait_too(session, tools, ran):
    session.on()
    box = Toolbox(session, tools)
    assert not box.call(
        "plan_submit",
        {"explanation": "e", "findings": [], "objectives": ["o"], "steps": STEPS},
    ).is_error
    refused = box.call("save_table", {"path": "out.csv"})
    assert refused.is_error and "waits for the person's decision" in refused.content
    # The agent's own plan tools are no consent: its update leaves the wait where it was.
    update = {"expected_revision": 1, "steps": STEPS}
    assert not box.call("update_plan", update).is_error
    assert box.call("save_table", {"path": "out.csv"}).is_error
    assert ran == []


def test_after_approval_each_write_still_asks_the_person(session, tools, ran):
    asked = []

    def confirm(tool, args):
        asked.append((tool.name, args))
        return len(asked) == 1  # yes the first time, no the second

    box = Toolbox(session, tools, confirm=confirm)
    session.on()
    box.call("plan_submit", {"explanation": "e", "findings": [], "objectives": [], "steps": STEPS})
    session.approve()
    assert box.call("save_table", {"path": "a.csv"}).content == "saved a.csv"
    declined = box.call("save_table", {"path": "b.csv", "overwrite": True})
    assert declined.is_error and "the person declined to run save_table" in declined.content
    assert asked == [
        ("save_table", {"path": "a.csv", "overwrite": False}),
        ("save_table", {"path": "b.csv", "overwrite": True}),
    ]
    assert ran == [("save_table", "a.csv", False)]
    # Reading never asks.
    box.call("count_rows", {"table": "t"})
    assert len(asked) == 2


def test_bad_arguments_and_failures_of_an_agent_tool_are_one_line_errors(session):
    @agent_tool("read")
    def divide(a: int, b: int) -> float:
        """Divide."""
        return a / b

    box = Toolbox(session, [divide])
    wrong = box.call("divide", {"a": "many", "b": 1})
    assert wrong.is_error and wrong.content.startswith("divide: a: ")
    assert "'many'" in wrong.content
    extra = box.call("divide", {"a": 1, "b": 1, "c": 2})
    assert extra.is_error and "c: Extra inputs are not permitted" in extra.content
    failed = box.call("divide", {"a": 1, "b": 0})
    assert failed.is_error
    assert failed.content == "divide failed: ZeroDivisionError: division by zero"
    assert box.call("divide", "").is_error  # no arguments for a tool that needs them


def test_a_guarded_function_called_directly_in_plan_mode_does_not_run(session, ran):
    @agent_tool("execute", session=session)
    def run_query(sql: str) -> str:
        """Run SQL against the warehouse."""
        ran.append(sql)
        return "ok"

    assert run_query("select 1") == "ok"
    session.on()
    with pytest.raises(GuardRefused, match="plan mode"):
        run_query("drop table sales")
    assert ran == ["select 1"]


@pytest.mark.parametrize("name", ["update_plan", "ask_user", "finish_plan"])
def test_an_agent_tool_may_not_take_a_reserved_name(name):
    with pytest.raises(ValueError, match=f"tool name '{name}' is reserved"):
        agent_tool("read", name=name)(lambda: None)


def test_a_risk_must_be_read_write_or_execute():
    with pytest.raises(ValueError, match="risk is 'delete'"):
        agent_tool("delete")(lambda: None)


def test_a_tool_from_a_module_with_postponed_annotations(tmp_path, session, monkeypatch):
    module = tmp_path / "postponed_tools.py"
    module.write_text(
        "from __future__ import annotations\n"
        "from jupyter_plans.tools import agent_tool\n\n"
        "@agent_tool('read')\n"
        "def shape(name: str, rows: int = 5) -> list[int]:\n"
        "    'The shape of a table.'\n"
        "    return [rows, 2]\n"
    )
    monkeypatch.syspath_prepend(tmp_path)
    from postponed_tools import shape

    assert shape.parameters["properties"]["rows"]["type"] == "integer"
    assert Toolbox(session, [shape]).call("shape", {"name": "t"}).content == "[5, 2]"
