"""Real kernels on one PostgreSQL database, each with its live card: once idle, each holds one
connection of the server's, the one that listens for other processes' commits (it used to hold
three, for as long as it lived: twenty people with three notebooks open each were past the
server's default of 100 connections), and keeps to it while teammates write to their own
notebooks' plans."""

import time

from jupyter_client.manager import start_new_kernel

from jupyter_plans import PlanStore
from jupyter_plans.store.pg_idle import IDLE_SECONDS
from tests.engines import connections, postgres_schema, server
from tests.waiting import wait_until

KERNELS = 3
SETUP = """
__session__ = {notebook!r}
get_ipython().config.PlanMagics.database = {url!r}
get_ipython().config.PlanMagics.session_id = "{{notebook_stem}}"
%load_ext jupyter_plans
%plan on
%plan off
"""


def run(client, code: str) -> list:
    seen = []
    reply = client.execute_interactive(code, timeout=60, output_hook=seen.append)
    assert reply["content"]["status"] == "ok", reply["content"]
    return seen


def card_shows_mode(client, mode: str, deadline: float) -> bool:
    while time.monotonic() < deadline:
        try:
            message = client.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:  # noqa: BLE001 - nothing more came
            return False
        data = message["content"].get("data", {})
        snapshot = data.get("state", {}).get("snapshot") if isinstance(data, dict) else None
        if message["msg_type"] == "comm_msg" and snapshot and snapshot.get("mode") == mode:
            return True
    return False


def test_an_idle_kernel_with_a_live_card_holds_one_connection(tmp_path):
    with postgres_schema() as url, server(url) as direct:
        tag = f"plans-kernels-{time.time_ns()}"
        kernels = []
        try:
            for n in range(KERNELS):
                folder = tmp_path / f"k{n}"
                folder.mkdir()
                manager, client = start_new_kernel(kernel_name="python3", cwd=str(folder))
                kernels.append((manager, client))
                notebook = folder / f"analysis{n}.ipynb"
                shown = run(
                    client,
                    SETUP.format(notebook=str(notebook), url=f"{url}&application_name={tag}"),
                )
                assert any(
                    m["msg_type"] == "comm_open" and "snapshot" in m["content"]["data"]["state"]
                    for m in shown
                ), "no card was shown"
            busy = len(connections(direct, tag))
            wait_until(lambda: len(connections(direct, tag)) == KERNELS, "one connection a kernel")
            queries = [query for query, _start in connections(direct, tag)]
            assert queries == ["LISTEN jupyter_plans"] * KERNELS
            print(f"{KERNELS} kernels: {busy} connections just after their cells, {KERNELS} idle")
            # Teammates write to their own notebooks' sessions: no card here shows them, so no
            # kernel reads anything, nor opens a connection to do so.
            with PlanStore(url) as teammate:
                for n in range(int(2 * IDLE_SECONDS / 0.25)):
                    teammate.session(f"teammate{n % 3}").call_tool(
                        "record_decision", {"title": f"d{n}", "rationale": "r"}
                    )
                    held = len(connections(direct, tag))
                    assert held == KERNELS, f"{held} connections while teammates wrote"
                    time.sleep(0.25)  # on purpose: writes spread over two idle periods
            # Still live, on that one connection: another process's write reaches the card.
            with PlanStore(url) as writer:
                writer.session("analysis0").on()
            assert card_shows_mode(kernels[0][1], "plan", time.monotonic() + 10)
        finally:
            for manager, client in kernels:
                client.stop_channels()
                manager.shutdown_kernel(now=True)
