"""`jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...]`: run AGENT
behind the bridge, with this process's stdio as the ACP connection to the client."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import stat
import sys
import threading
from pathlib import Path
from typing import Any

from ...errors import PlanStoreError
from ...store.locate import add_where_options, for_command
from .wire import LINE_LIMIT, Peer

USAGE = "jupyter-plans acp (--notebook NB | --db DB) [--session SID] -- AGENT [ARGS...]"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="jupyter-plans acp",
        usage=USAGE,
        description="An ACP agent on stdio that runs AGENT (another ACP agent, such as "
        "claude-agent-acp) as its child, keeps the agent's plan in the session, and maps plan "
        "mode and its approval to the agent's modes and permission requests.",
    )
    add_where_options(parser)
    return parser


def main(argv: list[str]) -> int:
    """Run the bridge until the client or the agent closes; 2 for a usage error."""
    argv = list(argv)
    split = argv.index("--") if "--" in argv else len(argv)
    options, agent = argv[:split], argv[split + 1 :]
    try:
        args = _parser().parse_args(options)
        if not agent:
            raise UsageError("give the agent's command after --, e.g. -- claude-agent-acp")
        if args.db is None and args.notebook is None:
            raise UsageError("give --notebook NB or --db DB: which plan to use")
    except UsageError as error:
        print(f"jupyter-plans acp: {error} (usage: {USAGE})", file=sys.stderr)
        return 2
    try:
        import acp  # noqa: F401 - the SDK comes with the extra
    except ImportError:
        print(
            "jupyter-plans acp: the bridge needs the agent-client-protocol package: "
            "pip install 'jupyter-plans[acp]'",
            file=sys.stderr,
        )
        return 1
    try:
        found = for_command(args.notebook, args.db, args.session)
    except PlanStoreError as error:
        print(f"jupyter-plans acp: {error}", file=sys.stderr)
        return 1
    db, notebook = found.database, found.notebook
    if "://" not in db:  # the agent's hooks run in the agent's folder
        db = str(Path(db).expanduser().absolute())
    from ...session import PlanStore
    from ...store.following import follow

    try:
        store = follow.open_for(notebook, db, PlanStore, "jupyter-plans acp")
    except PlanStoreError as error:
        print(f"jupyter-plans acp: {error}", file=sys.stderr)
        return 1
    try:
        session = store.session(found.session)
        return asyncio.run(serve(session, agent, db))
    except PlanStoreError as error:
        print(f"jupyter-plans acp: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # noqa: BLE001 - one line, never a traceback
        print(f"jupyter-plans acp: failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    finally:
        store.close()


async def serve(session, agent: list[str], where: str | None = None) -> int:
    """Relay between this process's stdio and AGENT's until one of them closes."""
    from .bridge import Bridge
    from .child import agent_process

    async with contextlib.AsyncExitStack() as stack:
        try:
            agent_out, agent_in, process = await stack.enter_async_context(
                agent_process(agent, LINE_LIMIT)
            )
        except OSError as error:  # the agent's command cannot be run
            reason = error.strerror or str(error)
            print(f"jupyter-plans acp: cannot run {agent[0]!r}: {reason}", file=sys.stderr)
            return 1
        reader, writer = await _client_streams()
        client = Peer("client", reader, writer)
        bridge = Bridge(session, Peer("agent", agent_out, agent_in), client, where)
        _stop_on_signals(bridge)
        ended = await bridge.run()
    if bridge.failed is not None:
        print(
            f"jupyter-plans acp: {bridge.known.profile.name} could not start a session "
            f"({bridge.failed}); the agent and the bridge stopped",
            file=sys.stderr,
        )
        return 1
    if ended == "agent" and process.returncode:
        print(
            f"jupyter-plans acp: the agent exited with code {process.returncode}", file=sys.stderr
        )
        return 1
    return 0


def _stop_on_signals(bridge: Any) -> None:
    """SIGTERM and SIGINT (a client stopping its agent) end the bridge as its peers' closing
    does: the proposals its agent waits on are dropped and the card hears no agent is bridged."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, bridge.stop)


async def _client_streams() -> tuple[Any, Any]:
    """This process's stdio as a reader and a writer. The SDK's streams take pipes, sockets
    and terminals; any other stdio (a file, /dev/null) is read by a thread and written as it
    comes."""
    from acp import stdio_streams

    if _pollable(0) and _pollable(1):
        return await stdio_streams(limit=LINE_LIMIT)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)

    def feed() -> None:
        # os.read, not sys.stdin: a daemon thread blocked in the buffered reader holds its
        # lock, and the interpreter aborts at exit when the agent ended first.
        try:
            for chunk in iter(lambda: os.read(0, 1 << 16), b""):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except (OSError, RuntimeError):  # stdin closed, or the loop already closed
            pass
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=feed, daemon=True).start()
    return reader, _StdoutWriter()


class _StdoutWriter:
    """A writer for a stdout that is no pipe: each line written and flushed at once."""

    def write(self, data: bytes) -> None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()

    async def drain(self) -> None:
        pass


def _pollable(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)
