"""A session in plan mode whose agent asks to leave it, for the tests of proposals over ACP."""

from __future__ import annotations

from .harness import new_session, prompt, script

PLAN = [
    ["Read the CSV", "completed"],
    ["Fit a model", "in_progress"],
    ["Plot residuals", "pending"],
]
MARKDOWN = (
    "Fit a linear model to the sales data,\nthen check its residuals.\n\n"
    "## Steps\n1. Read the CSV\n2. Fit a model\n3. Plot residuals\n"
)


async def proposal(client, conn, person, tmp_path, markdown=MARKDOWN):
    """A session in plan mode whose agent asked to leave it; the request as the client has it."""
    sid = await new_session(conn, tmp_path)
    await person("on")
    await client.report("set_mode")
    running = prompt(conn, sid, script({"plan": PLAN}, {"exit_plan_mode": markdown}))
    asked = await client.next_asked()
    return sid, running, asked
