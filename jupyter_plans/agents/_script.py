"""The scripts the scripted agent replays: their shape, and loading them from YAML or JSON.

A script has a `name`, a `description`, an optional `task` (the person's first message it
answers) and `turns`. A turn has an `id` (the turn_id of its calls), `on` (which message
starts it, see `scripted.py`) and `actions`, each one of:

- `say: TEXT`: the agent's words, for the transcript.
- `call: TOOL` with `args`: a plan tool (update_plan, plan_submit, record_decision) called
  through `session.call_tool`; `expected_revision: auto` is the revision read just before.
- `update: STEP` with `status` and/or `evidence` (`expected_revision` defaults to `auto`):
  update_plan with the current plan sent back and that one step changed, as an agent that
  re-reads its plan does; it keeps the scripts readable.
- `tool: NAME` with `risk` (read, write or execute), optional `args` and the recorded
  `result`: the agent's own, simulated tool, which the mode guard may refuse.
- `reply: TEXT` with an optional `step`: the agent's comment_reply to each of the person's
  open comments on that step (on any step, and on the plan, without it), as an agent that
  addressed them does; where there is none, the transcript says so.
- `wait: decision` (the last action of its turn) or `wait: message` (a pause in the turn).

A script that cannot be replayed is refused when it is loaded, with one line that names the
turn and the action (counting from 1), so a teacher finds the mistake before class.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..plan.catalog import CATALOG, RESERVED_NAMES
from ..plan.models import Status

# Turn ids and script names end up in turn_id and call_id, and in transcripts people read.
_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_SCRIPTS = resources.files(__package__) / "scripts"


class ScriptError(ValueError):
    """A script that cannot be replayed; the message is one line naming the turn and action."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Say(_Strict):
    say: str = Field(min_length=1)


class Call(_Strict):
    call: str
    args: dict[str, Any]

    def arguments(self, revision: int) -> dict:
        """The arguments to send, given the session's current revision."""
        args = copy.deepcopy(self.args)  # the script is shared; the session may keep what it gets
        if args.get("expected_revision") == "auto":
            args["expected_revision"] = revision
        return args


class Update(_Strict):
    update: str = Field(min_length=1, description="The id of the step to change.")
    status: Status | None = None
    evidence: str | None = None
    expected_revision: int | Literal["auto"] = "auto"

    def arguments(self, plan: dict | None) -> dict | None:
        """update_plan's arguments: `plan` (a snapshot's, as JSON) with this step changed.

        None when the plan has no such step.
        """
        plan = copy.deepcopy(plan)
        steps = [step for phase in plan["phases"] for step in phase["steps"]] if plan else []
        found = [step for step in steps if step["id"] == self.update]
        if not found:
            return None
        if self.status is not None:
            found[0]["status"] = self.status
        if self.evidence is not None:
            found[0]["evidence"] = self.evidence
        expected = plan["revision"] if self.expected_revision == "auto" else self.expected_revision
        kept = ("explanation", "findings", "objectives", "phases")
        return {"expected_revision": expected, **{key: plan[key] for key in kept}}


class Tool(_Strict):
    tool: str = Field(min_length=1)
    risk: Literal["read", "write", "execute"]
    args: dict[str, Any] = Field(default_factory=dict)
    result: str


class Wait(_Strict):
    wait: Literal["decision", "message"]


class Reply(_Strict):
    reply: str = Field(min_length=1, description="The agent's reply to the person's comments.")
    step: str | None = Field(None, description="Only the open comments on this step.")


Action = Union[Say, Call, Update, Tool, Wait, Reply]  # noqa: UP007 - read by isinstance
_ACTIONS: dict[str, type[_Strict]] = {
    "say": Say,
    "call": Call,
    "update": Update,
    "tool": Tool,
    "wait": Wait,
    "reply": Reply,
}


class Turn(_Strict):
    id: str = Field(pattern=_NAME)
    on: Literal["any", "person", "approval", "changes"] = "any"
    actions: tuple[Action, ...]


class Script(_Strict):
    name: str = Field(pattern=_NAME)
    description: str = Field(min_length=1)
    task: str | None = Field(None, description="The person's first message the script answers.")
    turns: tuple[Turn, ...]


class _Head(_Strict):
    name: str = Field(pattern=_NAME)
    description: str = Field(min_length=1)
    task: str | None = None


class _TurnHead(_Strict):
    id: str = Field(pattern=_NAME)
    on: Literal["any", "person", "approval", "changes"] = "any"
    actions: list[Any] = Field(min_length=1)


def shipped_scripts() -> list[str]:
    """The names of the scripts that come with the package."""
    return sorted(p.name[: -len(".yaml")] for p in _SCRIPTS.iterdir() if p.name.endswith(".yaml"))


def load_script(name_or_path: str | Path) -> Script:
    """A shipped script by name, or a script read from a .json, .yaml or .yml file."""
    if isinstance(name_or_path, str) and name_or_path in shipped_scripts():
        text = (_SCRIPTS / f"{name_or_path}.yaml").read_text(encoding="utf-8")
        return parse_script(_read_yaml(text, name_or_path), name_or_path)
    path = Path(name_or_path)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise ScriptError(
            f"no shipped script is named {str(name_or_path)!r} (shipped: "
            f"{', '.join(shipped_scripts())}), and a script file ends in .json, .yaml or .yml"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ScriptError(f"cannot read script {str(path)!r}: {error}") from None
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ScriptError(f"{str(path)!r} is not JSON: {error}") from None
    else:
        data = _read_yaml(text, str(path))
    return parse_script(data, str(path))


def parse_script(data: Any, origin: str = "the script") -> Script:
    """The script in `data` (parsed JSON or YAML), checked action by action."""
    if not isinstance(data, dict):
        raise ScriptError(f"{origin}: a script is a mapping of name, description and turns")
    head = _check(_Head, {k: v for k, v in data.items() if k != "turns"}, origin)
    where = f"script {head.name!r}"
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise ScriptError(f"{where}: turns is a list of at least one turn; found {raw_turns!r:.60}")
    turns, seen = [], set()
    for number, raw_turn in enumerate(raw_turns, 1):
        turn_where = f"{where}, turn {number}"
        if isinstance(raw_turn, dict) and isinstance(raw_turn.get("id"), str):
            turn_where += f" ({raw_turn['id']!r})"
        turn = _check(_TurnHead, raw_turn, turn_where)
        if turn.id in seen:
            raise ScriptError(f"{turn_where}: turn id {turn.id!r} is used twice")
        seen.add(turn.id)
        actions = [
            _action(raw, f"{turn_where}, action {index}", last=index == len(turn.actions))
            for index, raw in enumerate(turn.actions, 1)
        ]
        turns.append(Turn(id=turn.id, on=turn.on, actions=tuple(actions)))
    return Script(name=head.name, description=head.description, task=head.task, turns=tuple(turns))


def _action(raw: Any, where: str, last: bool) -> Action:
    keys = list(raw) if isinstance(raw, dict) else []
    kinds = [key for key in keys if key in _ACTIONS]
    if len(kinds) != 1:
        found = ", ".join(map(str, keys)) if keys else repr(raw)[:60]
        raise ScriptError(
            f"{where}: an action has exactly one of say, call, update, tool, reply or wait; "
            f"found {found}"
        )
    action = _check(_ACTIONS[kinds[0]], raw, where)
    if isinstance(action, Call) and action.call not in CATALOG:
        plan_tools = ", ".join(CATALOG)
        if action.call in RESERVED_NAMES:
            reason = f"{action.call} is a reserved plan tool this version does not offer"
        else:
            reason = f"unknown plan tool {action.call!r}"
        raise ScriptError(
            f"{where}: {reason}; call takes one of {plan_tools}, and the agent's own tools "
            "are written as tool: NAME with a risk"
        )
    if isinstance(action, Tool) and action.tool in RESERVED_NAMES:
        instead = f"call it with call: {action.tool}, or " if action.tool in CATALOG else ""
        raise ScriptError(
            f"{where}: {action.tool} is a reserved plan tool name; "
            f"{instead}give the agent's own tool another name"
        )
    if isinstance(action, Update) and action.status is None and action.evidence is None:
        raise ScriptError(f"{where}: update {action.update!r} gives neither status nor evidence")
    if isinstance(action, Wait) and action.wait == "decision" and not last:
        raise ScriptError(
            f"{where}: wait: decision ends a turn; move the actions after it into a turn that "
            "starts on: approval or on: changes"
        )
    return action


def _check(model: type[_Strict], raw: Any, where: str) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ScriptError(f"{where}: {_first_problem(error)}") from None


def _first_problem(error: ValidationError) -> str:
    problems = error.errors()
    first = problems[0]
    field = ".".join(str(part) for part in first["loc"]) or "the value"
    if first["type"] == "missing":
        text = f"{field} is missing"
    elif first["type"] == "extra_forbidden":
        text = f"unknown field {field!r}"
    else:
        text = f"{field}: {first['msg']}; found {first['input']!r:.60}"
    if len(problems) > 1:
        text += f" (and {len(problems) - 1} more problems)"
    return text


def _read_yaml(text: str, origin: str) -> Any:
    try:
        import yaml
    except ImportError:
        raise ScriptError(
            f"reading {origin!r} needs PyYAML (pip install pyyaml), or give the script as JSON"
        ) from None
    try:
        return yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        at = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ScriptError(f"{origin!r} is not valid YAML{at}: {problem}") from None


@functools.cache
def _yaml_loader() -> type:
    import yaml

    class ScriptLoader(yaml.SafeLoader):
        pass

    # YAML 1.1 reads a key `on` as True and a bare 2024-03-01 as a date; a script is text,
    # so only true and false are booleans here, as in YAML 1.2.
    ScriptLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if not tag.endswith((":bool", ":timestamp"))]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    ScriptLoader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), "tTfF"
    )
    return ScriptLoader
