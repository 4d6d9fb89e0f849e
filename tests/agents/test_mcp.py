"""DESIGN section 7: `jupyter-plans mcp`, driven by the official MCP client over real stdio."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import time
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client as SDKClient
from mcp import StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.shared.subscriptions import ToolsListChanged
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

import jupyter_plans
from jupyter_plans import PlanStore
from tests.agents.mcp_client import COMMAND, NOTICE_TIMEOUT, serving
from tests.waiting import until

TIMEOUT = 60  # a whole scenario, server start included

STEPS = [{"id": "load", "description": "load the data"}, {"id": "plot", "description": "plot"}]
PLAN_TOOLS = {"update_plan", "record_decision", "comment_reply"}
PROPOSAL_ARGS = {"explanation": "e", "findings": [], "objectives": [], "steps": STEPS}


def scenario(test):
    """Run an async test body under a timeout, with the real plan file in tmp_path."""

    def run(tmp_path):
        async def body():
            with anyio.fail_after(TIMEOUT):
                await test(tmp_path)

        anyio.run(body)

    run.__name__ = test.__name__
    return run


def db_of(tmp_path: Path) -> str:
    return str(tmp_path / "nb.plans.sqlite")


def on_db(tmp_path: Path, session: str = "s") -> tuple[str, ...]:
    return ("--db", db_of(tmp_path), "--session", session)


def snapshot(db: str, session: str = "s") -> dict:
    with PlanStore(db) as store:
        return store.session(session).snapshot().model_dump(mode="json")


def events(db: str, session: str = "s") -> list:
    with PlanStore(db) as store:
        return store.session(session).events()


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def text_of(result: types.CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


# The handshake.


@scenario
async def test_initialize_advertises_durable_plans_and_list_changed(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        init = client.init
        assert init.capabilities.experimental == {"durable_plans": {"version": 1}}
        assert init.capabilities.tools is not None and init.capabilities.tools.list_changed
        assert init.server_info.name == "jupyter-plans"
        assert init.server_info.version == jupyter_plans.__version__
        assert "plan_submit" in init.instructions and "update_plan" in init.instructions


# Tools as the session's mode offers them.


@scenario
async def test_tools_follow_the_mode_at_each_list(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        listed = (await client.session.list_tools()).tools
        assert {tool.name for tool in listed} == PLAN_TOOLS
        for tool in listed:
            assert tool.description
            assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        update = next(tool for tool in listed if tool.name == "update_plan")
        assert "expected_revision" in update.input_schema["properties"]

        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").on()
        assert set(await client.tool_names()) == PLAN_TOOLS | {"plan_submit"}


@scenario
async def test_accepted_call_is_visible_to_another_store(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        result = await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not result.is_error, text_of(result)
        assert "revision 1" in text_of(result)
        plan = snapshot(db_of(tmp_path))["plan"]
        assert plan["revision"] == 1
        assert [step["id"] for step in plan["steps"]] == ["load", "plot"]


REFUSED = [  # (tool, arguments, what the one-line reason names)
    ("update_plan", {"expected_revision": 7, "steps": STEPS}, "expected_revision"),
    (
        "plan_submit",
        {"explanation": "x", "findings": [], "objectives": [], "steps": STEPS},
        "plan mode",
    ),
    ("update_plan", {"expected_revision": 1, "steps": "load, plot"}, "steps"),
    ("update_plan", {"expected_revision": 1, "steps": STEPS, "colour": "red"}, "colour"),
    ("update_plan", {}, "expected_revision"),
    ("ask_user", {"question": "which file?"}, "ask_user"),
    ("no_such_tool", {}, "no_such_tool"),
]


@scenario
async def test_a_refusal_is_an_error_result_and_changes_nothing(tmp_path):
    db = db_of(tmp_path)
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        assert not (
            await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        ).is_error
        for name, arguments, said in REFUSED:
            before = snapshot(db)
            result = await client.call(name, arguments)
            reason = text_of(result)
            assert result.is_error, (name, arguments)
            assert said in reason and "\n" not in reason.strip(), reason
            after = snapshot(db)
            assert (after["plan"], after["mode"]) == (before["plan"], before["mode"])
            added = [event.kind for event in events(db)[before["cursor"] :]]
            assert added in ([], ["tool_finished"]), added


# Mode changes made by other processes.


@scenario
async def test_plan_on_from_a_shell_sends_list_changed(tmp_path):
    db = db_of(tmp_path)
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        assert set(await client.tool_names()) == PLAN_TOOLS
        seen = len(client.notices)
        done = await anyio.run_process([*COMMAND, "plan", "--db", db, "--session", "s", "on"])
        assert done.returncode == 0
        exited = time.monotonic()
        at, _ = await client.wait_for(types.ToolListChangedNotification, after=seen)
        print(f"list_changed at {(at - exited) * 1000:+.0f} ms from the exit of `plan on`")
        assert set(await client.tool_names()) == PLAN_TOOLS | {"plan_submit"}

        seen = len(client.notices)
        await anyio.run_process([*COMMAND, "plan", "--db", db, "--session", "s", "off"])
        await client.wait_for(types.ToolListChangedNotification, after=seen)
        assert set(await client.tool_names()) == PLAN_TOOLS


@scenario
async def test_list_changed_latency_after_another_processs_commit(tmp_path):
    latencies = []
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        await client.tool_names()
        with PlanStore(db_of(tmp_path)) as store:
            # Commits at different points of the server's poll interval.
            for pause, verb in zip((0.05, 0.13, 0.21, 0.29), ("on", "off") * 2, strict=True):
                await anyio.sleep(pause)  # on purpose: a point in the poll's interval
                seen = len(client.notices)
                getattr(store.session("s"), verb)()  # returns once committed
                committed = time.monotonic()
                at, _ = await client.wait_for(types.ToolListChangedNotification, after=seen)
                latencies.append(at - committed)
    latencies.sort()
    print(
        "list_changed latency after a commit by another process: median "
        f"{latencies[len(latencies) // 2] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms"
    )
    assert latencies[-1] < NOTICE_TIMEOUT


@scenario
async def test_a_commit_that_keeps_the_mode_updates_resources_not_tools(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        await client.tool_names()
        uri = "plans://session/s/snapshot"
        with pytest.warns(MCPDeprecationWarning):  # the handshake era's way; 2026 listens
            await client.session.subscribe_resource(uri)
        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
            _, notice = await client.wait_for(types.ResourceUpdatedNotification)
            assert notice.params.uri == uri
            store.session("other").on()  # another session's mode is not this server's
        seen = len(client.notices)
        await client.call("record_decision", {"title": "t", "rationale": "r"})
        # Told of the decision, the server has looked at the other session's change too; what
        # it sent before answering the next request has come before that answer.
        await client.wait_for(types.ResourceUpdatedNotification, after=seen)
        await client.tool_names()
        kinds = [type(notice) for _, notice in client.notices]
        assert types.ToolListChangedNotification not in kinds


@scenario
async def test_a_2026_client_hears_of_mode_changes_on_its_listen_stream(tmp_path):
    params = StdioServerParameters(
        command=COMMAND[0], args=[*COMMAND[1:], "mcp", *on_db(tmp_path)], cwd=str(tmp_path)
    )
    async with SDKClient(params, mode="auto") as client:
        assert client.protocol_version in MODERN_PROTOCOL_VERSIONS
        assert client.server_capabilities.experimental == {"durable_plans": {"version": 1}}
        assert {tool.name for tool in (await client.list_tools()).tools} == PLAN_TOOLS
        async with client.listen(tools_list_changed=True) as events:
            with PlanStore(db_of(tmp_path)) as store:
                store.session("s").on()
            with anyio.fail_after(NOTICE_TIMEOUT):
                async for event in events:
                    if isinstance(event, ToolsListChanged):
                        break
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == PLAN_TOOLS | {"plan_submit"}
        result = await client.call_tool("record_decision", {"title": "t", "rationale": "r"})
        assert not result.is_error


@scenario
async def test_a_client_that_lists_its_tools_once_is_offered_plan_submit_from_the_start(tmp_path):
    # Codex (0.166 to 0.171) never asks for the tools again after list_changed: the person's
    # %plan on while it runs must still let its model propose.
    async with serving(tmp_path, *on_db(tmp_path), client_name="codex-mcp-client") as client:
        listed = {tool.name: tool for tool in (await client.session.list_tools()).tools}
        assert set(listed) == PLAN_TOOLS | {"plan_submit", "finish_plan"}
        assert "only in plan mode" in listed["plan_submit"].description
        early = await client.call("plan_submit", {**PROPOSAL_ARGS})
        assert early.is_error
        assert text_of(early).startswith("plan_submit is offered only in plan mode")
        assert snapshot(db_of(tmp_path))["plan"] is None
        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").on()
        accepted = await client.call("plan_submit", {**PROPOSAL_ARGS})
        assert not accepted.is_error, text_of(accepted)
        assert snapshot(db_of(tmp_path))["pending_proposal_hash"] is not None
    async with serving(tmp_path, *on_db(tmp_path), client_name="claude-code") as client:
        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").off()
        assert set(await client.tool_names()) == PLAN_TOOLS


@scenario
async def test_discover_advertises_only_the_notices_the_server_sends(tmp_path):
    params = StdioServerParameters(
        command=COMMAND[0], args=[*COMMAND[1:], "mcp", *on_db(tmp_path)], cwd=str(tmp_path)
    )
    async with SDKClient(params, mode="auto") as client:
        assert client.protocol_version in MODERN_PROTOCOL_VERSIONS
        resources = client.server_capabilities.resources
        # The two resources never change as a list; their contents are told of when they do.
        assert resources is not None and resources.list_changed is False
        assert resources.subscribe is True
        assert client.server_capabilities.tools.list_changed is True


# Call ids: no turns.


@scenario
async def test_calls_carry_mcp_call_ids_and_no_turn(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        first = await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        second = await client.call("record_decision", {"title": "csv", "rationale": "small"})
        assert not first.is_error and not second.is_error
    async with serving(tmp_path, *on_db(tmp_path)) as client:  # a restarted server
        third = await client.call("update_plan", {"expected_revision": 1, "steps": STEPS[:1]})
        assert not third.is_error, text_of(third)

    recorded = [
        e for e in events(db_of(tmp_path)) if e.kind in ("plan_updated", "decision_recorded")
    ]
    assert len(recorded) == 3
    with PlanStore(db_of(tmp_path)) as store:
        call_ids = [row.call_id for row in _event_rows(store)]
    assert len(set(call_ids)) == 3 and all(c.startswith("mcp-") for c in call_ids), call_ids
    instance = {c.rsplit("-", 1)[0] for c in call_ids}
    assert len(instance) == 2  # one per server instance
    for event in recorded:
        if event.kind == "plan_updated":
            assert event.data["turn_id"] is None and event.data["call_id"].startswith("mcp-")
    assert snapshot(db_of(tmp_path))["plan"]["turn_id"] is None


def _event_rows(store):
    from jupyter_plans.store.schema import events as table

    with store.engine.connect() as conn:
        return conn.execute(
            table.select().where(table.c.call_id.is_not(None)).order_by(table.c.seq)
        ).all()


@scenario
async def test_a_call_is_never_late_after_another_turn_is_cancelled(tmp_path):
    with PlanStore(db_of(tmp_path)) as store:
        session = store.session("s")
        session.on()
        turn = session.call_tool(
            "update_plan", {"expected_revision": 0, "steps": STEPS}, turn_id="t1"
        )
        assert not turn.is_error
        session.off()  # cancels turn t1
        late = session.call_tool(
            "update_plan", {"expected_revision": 1, "steps": STEPS}, turn_id="t1"
        )
        assert late.is_error and "late" in late.content
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        result = await client.call("update_plan", {"expected_revision": 1, "steps": STEPS[:1]})
        assert not result.is_error, text_of(result)
    assert snapshot(db_of(tmp_path))["plan"]["revision"] == 2


# Resources.


@scenario
async def test_resources_are_the_snapshot_and_the_context_block(tmp_path):
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        listed = {str(r.uri): r for r in (await client.session.list_resources()).resources}
        snap_uri, context_uri = "plans://session/s/snapshot", "plans://session/s/context"
        assert set(listed) == {snap_uri, context_uri}
        assert listed[snap_uri].mime_type == "application/json"
        assert listed[context_uri].mime_type == "text/plain"

        read = (await client.session.read_resource(snap_uri)).contents
        assert len(read) == 1 and read[0].mime_type == "application/json"
        assert json.loads(read[0].text) == snapshot(db_of(tmp_path))

        with PlanStore(db_of(tmp_path)) as store:  # read fresh: another writer's change shows
            store.session("s").on()
        assert (
            json.loads((await client.session.read_resource(snap_uri)).contents[0].text)["mode"]
            == "plan"
        )

        context = (await client.session.read_resource(context_uri)).contents[0]
        assert context.mime_type == "text/plain"
        assert "untrusted" in context.text and "load the data" in context.text
        assert len(context.text) <= 14_000

        with pytest.raises(MCPError):
            await client.session.read_resource("plans://session/other/snapshot")


# Where the plan file is.


@scenario
async def test_notebook_finds_the_plan_file_beside_it(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    notebook = folder / "analysis.ipynb"
    notebook.write_text("{}")
    async with serving(tmp_path, "--notebook", str(notebook)) as client:
        result = await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not result.is_error, text_of(result)
    plan_file = folder / "analysis.plans.sqlite"
    assert plan_file.is_file()
    assert snapshot(str(plan_file), "default")["plan"]["revision"] == 1

    with PlanStore(plan_file) as store:  # without --session: the store's current session
        store.set_current_session("second")
    async with serving(tmp_path, "--notebook", str(notebook)) as client:
        await client.call("update_plan", {"expected_revision": 0, "steps": STEPS[:1]})
    async with serving(tmp_path, "--notebook", str(notebook), "--session", "third") as client:
        await client.call("update_plan", {"expected_revision": 0, "steps": STEPS[:1]})
    assert snapshot(str(plan_file), "second")["plan"]["revision"] == 1
    assert snapshot(str(plan_file), "third")["plan"]["revision"] == 1


# The command line.


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--session", "s"],
        ["--db", "x.plans.sqlite", "--port", "1"],
    ],
    ids=["nothing", "session-only", "unknown-flag"],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path, args):
    proc = cli("mcp", *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "--help" in proc.stderr, proc.stderr
    assert not (tmp_path / "x.plans.sqlite").exists()


def test_without_session_the_files_current_one_is_served(tmp_path):
    with PlanStore(db_of(tmp_path)) as store:
        store.set_current_session("later")
    client = RawClient(tmp_path, "--db", db_of(tmp_path))
    try:
        listed = client.request(2, "resources/list", {})["result"]["resources"]
        client.call(3, "update_plan", {"expected_revision": 0, "steps": STEPS})
    finally:
        assert client.close() == ""
    assert "later" in listed[0]["title"]
    assert snapshot(db_of(tmp_path), "later")["plan"]["revision"] == 1


def test_the_server_ends_cleanly_when_its_input_closes(tmp_path):
    proc = cli("mcp", *on_db(tmp_path), cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_a_foreign_plan_file_exits_1_with_one_line(tmp_path):
    with sqlite3.connect(tmp_path / "other.sqlite") as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    proc = cli("mcp", "--db", "other.sqlite", "--session", "s", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1, "")
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "another program" in lines[0], proc.stderr


@scenario
async def test_finish_plan_is_listed_once_every_step_is_completed(tmp_path):
    done = [{**step, "status": "completed"} for step in STEPS]
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        result = await client.call("update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not result.is_error
        assert set(await client.tool_names()) == PLAN_TOOLS
        seen = len(client.notices)
        with PlanStore(db_of(tmp_path)) as store:  # another process completes the steps
            args = {"expected_revision": 1, "steps": done}
            assert not store.session("s").call_tool("update_plan", args).is_error
        await client.wait_for(types.ToolListChangedNotification, after=seen)
        assert set(await client.tool_names()) == PLAN_TOOLS | {"finish_plan"}
        result = await client.call("finish_plan", {"review": []})
        assert not result.is_error and "finished at revision 2" in text_of(result)
        seen = len(client.notices)
        result = await client.call("update_plan", {"expected_revision": 2, "steps": STEPS})
        assert "reopens the finished plan" in text_of(result)
        await client.wait_for(types.ToolListChangedNotification, after=seen)
        assert set(await client.tool_names()) == PLAN_TOOLS


# Request ids that look alike, or are huge, never make one call answer for another.


class RawClient:
    """A JSON-RPC client written by hand on the server's stdio, free to choose its own ids
    (the SDK's client numbers its requests itself)."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [*COMMAND, "mcp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        self.request(
            "init",
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, request_id, method: str, params: dict) -> dict:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            assert line, self.process.stderr.read().decode()
            answer = json.loads(line)
            if (
                "id" in answer
                and answer["id"] == request_id
                and type(answer["id"]) is type(request_id)
            ):
                return answer
        raise AssertionError(f"no answer to request {request_id!r}")

    def call(self, request_id, name: str, arguments: dict) -> dict:
        answer = self.request(request_id, "tools/call", {"name": name, "arguments": arguments})
        return answer["result"]

    def close(self) -> str:
        self.process.stdin.close()
        self.process.wait(timeout=30)
        return self.process.stderr.read().decode()


def test_ids_888_and_the_string_888_are_two_calls(tmp_path):
    client = RawClient(tmp_path, *on_db(tmp_path))
    try:
        first = client.call(888, "update_plan", {"expected_revision": 0, "steps": STEPS})
        second = client.call("888", "update_plan", {"expected_revision": 1, "steps": STEPS[:1]})
        assert not first["isError"] and not second["isError"], second
        assert "revision 2" in second["content"][0]["text"]
        # A huge id is one call too, and its event stays small.
        huge = "8" * 2_000_000
        third = client.call(huge, "update_plan", {"expected_revision": 2, "steps": STEPS})
        assert not third["isError"], third
    finally:
        stderr = client.close()
    assert "Traceback" not in stderr, stderr
    plan = snapshot(db_of(tmp_path))["plan"]
    assert plan["revision"] == 3 and [s["id"] for s in plan["steps"]] == [s["id"] for s in STEPS]
    with PlanStore(db_of(tmp_path)) as store:
        rows = _event_rows(store)
    call_ids = [row.call_id for row in rows]
    assert len(set(call_ids)) == 3 and all(len(c.encode()) <= 128 for c in call_ids), call_ids
    assert max(len(row.data) for row in rows) < 10_000


# Lines that are not JSON-RPC messages get a JSON-RPC error, never silence.


def _reply(client: RawClient) -> dict:
    line = client.process.stdout.readline()
    assert line, client.process.stderr.read().decode()
    return json.loads(line)


@pytest.mark.parametrize(
    "line, code, answer_id",
    [
        ("{not json", -32700, None),
        ("\x00\x01", -32700, None),
        ('[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, None),  # a batch
        ("[]", -32600, None),
        ("42", -32600, None),
        ('{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600, None),
        ('{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600, None),
        ('{"id": 5, "method": "ping"}', -32600, 5),  # no "jsonrpc"
        ('{"jsonrpc": "1.0", "id": "x", "method": "ping"}', -32600, "x"),
        ('{"jsonrpc": "2.0", "id": 6, "method": 7}', -32600, 6),
        # A lone surrogate (JavaScript cuts a string inside an emoji): in the id, in params.
        ('{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}', -32600, None),
        (
            '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": '
            '{"name": "update_plan", "arguments": {"explanation": "a\\ud800"}}}',
            -32600,
            8,
        ),
    ],
)
def test_a_line_that_is_not_a_message_gets_a_json_rpc_error(tmp_path, line, code, answer_id):
    client = RawClient(tmp_path, *on_db(tmp_path))
    try:
        client.process.stdin.write(line.encode() + b"\n")
        client.process.stdin.flush()
        reply = _reply(client)
        assert reply["error"]["code"] == code and reply["id"] == answer_id, reply
        assert client.request(99, "ping", {})["result"] == {}  # and the server goes on
    finally:
        assert "Traceback" not in client.close()


def test_an_unknown_tool_is_recorded_and_its_refusal_quotes_little(tmp_path):
    client = RawClient(tmp_path, *on_db(tmp_path))
    try:
        unknown = client.call(1, "rm_rf", {"path": "/"})
        huge = client.call(2, "x" * 1_000_000, {})
    finally:
        assert "Traceback" not in client.close()
    assert unknown["isError"] and "unknown tool rm_rf;" in unknown["content"][0]["text"]
    text = huge["content"][0]["text"]
    assert huge["isError"] and "1000000 bytes; the limit is 64" in text
    assert "x" * 101 not in text and len(text) < 400
    recorded = [e for e in events(db_of(tmp_path)) if e.kind == "tool_finished"]
    assert [e.data["name"] for e in recorded] == ["rm_rf", "x" * 64]
    assert all(e.data["result"]["is_error"] for e in recorded)


def test_generated_lines_are_each_answered(tmp_path):
    """Hostile lines from hypothesis, one server: every line that is not a message is
    answered with -32700 or -32600, a request with its own id; nothing else is stored."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    client = RawClient(tmp_path, *on_db(tmp_path))
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=8,
    )
    not_json = st.text(min_size=1, max_size=30).filter(
        lambda t: "\n" not in t and "\r" not in t and t.strip() and not _is_json(t)
    )
    bad_ids = st.dictionaries(st.text(max_size=3), st.integers(), min_size=1) | st.lists(
        st.integers(), max_size=2
    )
    seen = {-32700: 0, -32600: 0}

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        st.one_of(
            not_json.map(lambda t: (t, -32700)),
            json_values.filter(lambda v: not isinstance(v, dict)).map(
                lambda v: (json.dumps(v), -32600)
            ),
            bad_ids.map(
                lambda i: (json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}), -32600)
            ),
        )
    )
    def check(case):
        line, code = case
        client.process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        client.process.stdin.flush()
        reply = _reply(client)
        assert reply["error"]["code"] == code and reply["id"] is None, (line, reply)
        seen[code] += 1

    try:
        check()
        assert client.request("last", "ping", {})["result"] == {}
    finally:
        assert "Traceback" not in client.close()
    assert seen[-32700] > 10 and seen[-32600] > 10
    assert events(db_of(tmp_path)) == []


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_a_replaced_plan_file_is_followed_by_the_mcp_server(tmp_path):
    """A call after the plan file was replaced lands in the file at the path, never the old."""
    import os

    client = RawClient(tmp_path, *on_db(tmp_path))
    try:
        first = client.call(1, "update_plan", {"expected_revision": 0, "steps": STEPS})
        assert not first["isError"]
        other = tmp_path / "other.plans.sqlite"
        with PlanStore(other) as store:
            store.session("s").call_tool("record_decision", {"title": "t", "rationale": "r"})
        os.replace(other, db_of(tmp_path))
        second = client.call(2, "update_plan", {"expected_revision": 0, "steps": STEPS[:1]})
        assert not second["isError"], second
    finally:
        assert "Traceback" not in client.close()
    snap = snapshot(db_of(tmp_path))
    assert [d["title"] for d in snap["decisions"]] == ["t"]  # the new file's own history
    assert snap["plan"]["revision"] == 1 and len(snap["plan"]["steps"]) == 1


@pytest.mark.postgres
def test_on_postgresql_the_server_is_told_of_commits_and_asks_nothing_while_idle(tmp_path):
    """DESIGN section 12: another process's commit reaches the MCP client through NOTIFY, and
    while nothing changes the server's connections send PostgreSQL no query."""
    psycopg = pytest.importorskip("psycopg")
    from tests.engines import postgres_schema

    with postgres_schema() as db:
        tag = f"plans-mcp-{time.time_ns()}"
        url = f"{db}&application_name={tag}"
        admin = psycopg.connect(db.split("?")[0].replace("+psycopg", ""), autocommit=True)

        def last_query_start():
            return admin.execute(
                "SELECT count(*), max(query_start) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (tag,),
            ).fetchone()

        def listening() -> bool:
            return admin.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE application_name = %s AND query = 'LISTEN jupyter_plans'",
                (tag,),
            ).fetchone()[0]

        async def body():
            async with serving(tmp_path, "--db", url, "--session", "s") as client:
                assert set(await client.tool_names()) == PLAN_TOOLS
                await until(listening, "the server's listener")
                connections, before = last_query_start()
                await anyio.sleep(2.5)  # on purpose: idle, past the slow poll's interval
                assert last_query_start() == (connections, before), "an idle server queried"
                seen = len(client.notices)
                with PlanStore(db) as store:
                    store.session("s").on()
                    committed = time.monotonic()
                at, _ = await client.wait_for(types.ToolListChangedNotification, after=seen)
                print(f"list_changed {(at - committed) * 1000:.0f} ms after a PostgreSQL commit")
                assert set(await client.tool_names()) == PLAN_TOOLS | {"plan_submit"}

        with admin:
            anyio.run(body)


@scenario
async def test_comment_reply_is_the_agents_one_act_on_the_persons_comments(tmp_path):
    """DESIGN section 14: offered over MCP with the plan tools; a reply sets the comment
    addressed, and a reply to a resolved or unknown comment is refused in one line."""
    db = db_of(tmp_path)
    with PlanStore(db) as store:
        session = store.session("s")
        session.call_tool("update_plan", {"expected_revision": 0, "steps": STEPS})
        session.comment("plot", "use a log scale", by="alice")
        session.comment("load", "mind the header", by="alice")
        session.resolve_comment("c2")
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        listed = {tool.name: tool for tool in (await client.session.list_tools()).tools}
        assert set(listed["comment_reply"].input_schema["properties"]) == {"comment_id", "reply"}
        result = await client.call("comment_reply", {"comment_id": "c1", "reply": "Log scale now"})
        assert not result.is_error, text_of(result)
        for cid, words in (("c2", "c2 is resolved"), ("c9", "no comment of this session")):
            refused = await client.call("comment_reply", {"comment_id": cid, "reply": "x"})
            assert refused.is_error and words in text_of(refused) and "\n" not in text_of(refused)
    found = snapshot(db)["comments"]
    assert [(c["id"], c["status"], c["reply"]) for c in found] == [
        ("c1", "addressed", "Log scale now"),
        ("c2", "resolved", None),
    ]


@scenario
async def test_a_steps_check_over_mcp_is_proposed_bound_and_read_never_run(tmp_path):
    """DESIGN section 17 over MCP: plan_submit's schema takes a step's check, a check that is no
    expression is refused in one line, the snapshot and context resources carry each check's
    status; and nothing runs it here (only a kernel with the session loaded does)."""
    checked = [{**STEPS[0], "check": "len(df) > 0"}, STEPS[1]]
    async with serving(tmp_path, *on_db(tmp_path)) as client:
        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").on()
        tools = {tool.name: tool for tool in (await client.session.list_tools()).tools}
        step = tools["plan_submit"].input_schema["properties"]["steps"]["anyOf"][0]["items"]
        assert "check" in step["properties"]
        refused = await client.call(
            "plan_submit", {**PROPOSAL_ARGS, "steps": [{**STEPS[0], "check": "df = load()"}]}
        )
        assert refused.is_error and text_of(refused).startswith("steps[0].check is an assignment")
        accepted = await client.call("plan_submit", {**PROPOSAL_ARGS, "steps": checked})
        assert not accepted.is_error, text_of(accepted)
        with PlanStore(db_of(tmp_path)) as store:
            store.session("s").approve()
        snap = (await client.session.read_resource("plans://session/s/snapshot")).contents[0]
        assert json.loads(snap.text)["checks"]["load"]["status"] == "not_run"
        context = (await client.session.read_resource("plans://session/s/context")).contents[0]
        shown = json.loads(context.text.split("\n")[2])["plan"]["phases"][0]["steps"][0]
        assert (shown["check"]["expression"], shown["check"]["status"]) == (
            "len(df) > 0",
            "not_run",
        )
    assert [e.kind for e in events(db_of(tmp_path))].count("step_checked") == 0
