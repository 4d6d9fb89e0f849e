"""What the real ACP agents send, recorded: each scenario drives one agent directly (no bridge)
with a scripted model and writes the raw JSON-RPC both ways, the model's requests and a summary
to build/real-transcripts/AGENT/SCENARIO.*. Run it again when a pinned version moves:

    .venv/bin/python -m tests.agents.acp.discovery [AGENT ...] [--only SCENARIO ...]

The scenarios live in discovery_claude.py and discovery_codex.py; build/real-transcripts/
FINDINGS.md says what they showed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import text_block

from .harness import Asked
from .real import AGENTS, BY_NAME, TIMEOUT, RealAgent, Run, option_of, started

OUT = Path(__file__).resolve().parents[3] / "build" / "real-transcripts"
PROMPT_TIMEOUT = 150.0


@dataclass
class Scenario:
    name: str
    script: Callable[[RealAgent, Path], list]  # the model's turns for this agent and cwd
    steps: Callable[[Run, Any], Awaitable[None]]  # (run, summary) after initialize
    agents: tuple[str, ...] = ()  # empty: every agent of the family
    plan_capability: bool = False
    classifier: str | None = None  # Claude's auto mode classifier verdict, if not "allow"
    env: dict = field(default_factory=dict)


class Summary:
    """What a scenario saw, in short, beside its full transcript."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.notes: dict[str, Any] = {}
        self.answers: list[dict] = []

    def note(self, key: str, value: Any) -> None:
        self.notes[key] = value

    def data(self) -> dict:
        client = self.run.client
        return {
            "notes": self.notes,
            "asked": self.answers,
            "updates": [_short(u) for _, u in client.updates],
            "files": sorted(
                str(p.relative_to(self.run.cwd)) for p in self.run.cwd.rglob("*") if p.is_file()
            ),
            "model": [
                {"answer": r.answer, "turn": r.turn, "system": _system(r.body)}
                for r in self.run.model.requests
            ],
        }


def _short(update: Any) -> dict:
    data = update.model_dump(mode="json", by_alias=True, exclude_none=True)
    kind = data.get("sessionUpdate")
    if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
        return {"sessionUpdate": kind, "text": data.get("content", {}).get("text", "")[:300]}
    if kind == "available_commands_update":
        return {"sessionUpdate": kind, "count": len(data.get("availableCommands") or [])}
    if kind == "usage_update":
        return {"sessionUpdate": kind}
    if kind == "config_option_update":
        values = {o["id"]: o.get("currentValue") for o in data.get("configOptions") or []}
        return {"sessionUpdate": kind, "values": values}
    return data


def _system(body: Any) -> str:
    if not isinstance(body, dict):
        return str(body)[:100]
    system = body.get("system") or body.get("instructions") or ""
    if isinstance(system, list):
        system = " | ".join(b.get("text", "")[:60] for b in system if isinstance(b, dict))
    tools = [t.get("name") or t.get("type") for t in body.get("tools") or []]
    return f"{str(system)[:160]!r} tools={tools[:12]}"


def policy(summary: Summary, choose: Callable[[Asked], str | None]) -> Callable[[Asked], Any]:
    """Answer as CHOOSE says and keep what was asked and answered."""

    def answer(asked: Asked) -> str | None:
        option = choose(asked)
        call = asked.tool_call.model_dump(mode="json", by_alias=True, exclude_none=True)
        summary.answers.append(
            {
                "toolCall": {k: v for k, v in call.items() if k != "content"},
                "content": call.get("content"),
                "options": [
                    o.model_dump(mode="json", by_alias=True, exclude_none=True)
                    for o in asked.options
                ],
                "answered": option or "cancelled",
            }
        )
        return option

    return answer


def reject(asked: Asked) -> str | None:
    """The reject option that lets a turn go on where there is one (Codex's `decline`)."""
    ids = [o.option_id for o in asked.options]
    if "decline" in ids:
        return "decline"
    return option_of(asked, "reject_once", "reject_always")


def allow_once(asked: Asked) -> str | None:
    return option_of(asked, "allow_once")


def plan_or_reject(plan_answer: Callable[[Asked], str | None]) -> Callable[[Asked], str | None]:
    """Answer a switch_mode request (the plan) with PLAN_ANSWER and anything else with reject."""

    def choose(asked: Asked) -> str | None:
        return plan_answer(asked) if asked.tool_call.kind == "switch_mode" else reject(asked)

    return choose


async def prompt(run: Run, session_id: str, text: str, summary: Summary, key: str) -> Any:
    try:
        result = await asyncio.wait_for(
            run.conn.prompt(session_id=session_id, prompt=[text_block(text)]), PROMPT_TIMEOUT
        )
        summary.note(key, result.model_dump(mode="json", by_alias=True, exclude_none=True))
        return result
    except Exception as exc:  # noqa: BLE001 - recorded, the scenario goes on
        summary.note(key, f"{type(exc).__name__}: {exc}")
        return None


async def call(summary: Summary, key: str, coroutine: Awaitable) -> Any:
    """Await one request, noting its result or error."""
    try:
        result = await asyncio.wait_for(coroutine, TIMEOUT)
        dumped = (
            result.model_dump(mode="json", by_alias=True, exclude_none=True)
            if hasattr(result, "model_dump")
            else result
        )
        summary.note(key, dumped)
        return result
    except Exception as exc:  # noqa: BLE001
        summary.note(key, f"{type(exc).__name__}: {exc}")
        return None


async def run_scenario(agent: RealAgent, scenario: Scenario, root: Path) -> dict:
    tmp = root / "runs" / agent.name / scenario.name
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    async with started(
        agent,
        tmp,
        scenario.script(agent, tmp / "work"),
        plan_capability=scenario.plan_capability,
        env=scenario.env,
    ) as run:
        if scenario.classifier and hasattr(run.model, "classifier"):
            run.model.classifier = scenario.classifier
        summary = Summary(run)
        summary.note("initialize", run.initialized.model_dump(mode="json", by_alias=True))
        try:
            await scenario.steps(run, summary)
        except Exception:  # noqa: BLE001 - keep what was seen
            summary.note("error", traceback.format_exc())
        await asyncio.sleep(1.0)  # on purpose: what the agent sends unasked is recorded too
        out = root / agent.name
        run.save(out / f"{scenario.name}.jsonl")
        data = summary.data()
        (out / f"{scenario.name}.summary.json").write_text(
            json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8"
        )
        return data


def scenarios_for(agent: RealAgent) -> list[Scenario]:
    if agent.name.startswith("claude"):
        from .discovery_claude import SCENARIOS
    else:
        from .discovery_codex import SCENARIOS
    return [s for s in SCENARIOS if not s.agents or agent.name in s.agents]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="*", default=[a.name for a in AGENTS])
    parser.add_argument("--only", nargs="*", default=None)
    options = parser.parse_args()
    for name in options.agents:
        agent = BY_NAME[name]
        reason = agent.installed()
        if reason:
            print(f"{name}: {reason}")
            continue
        for scenario in scenarios_for(agent):
            if options.only and scenario.name not in options.only:
                continue
            data = asyncio.run(run_scenario(agent, scenario, OUT))
            print(
                f"{name} {scenario.name}: asked {len(data['asked'])}, files {data['files']}, "
                f"error {'error' in data['notes']}"
            )


if __name__ == "__main__":
    main()
