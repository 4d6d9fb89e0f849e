"""How a plan_updated event's data is stored: without what its shape already says.

A plan is stored once, in the event that made it. Its `steps` are left out (they are its
phases' steps, in order), and so is every field that holds its default: a null, an empty
list, a step's `pending` status. A stored plan of 12 steps takes about two thirds of the
space, which keeps PostgreSQL from compressing it and lets SQLite fit two to a page.

One pydantic-core schema says the shape. Its serializer writes the plan's body and leaves
the defaults out; the event around the body is written field by field in the schema's order,
nulls left out, as that serializer would (a test holds the two to the same bytes). Its
validator reads the event back and puts the defaults in again, every key in the order the
session writes it. Data stored whole (by an earlier version) reads back the same.
"""

from __future__ import annotations

from functools import cache
from json.encoder import encode_basestring as _string  # a str's JSON, non-ASCII kept
from typing import Any

from pydantic_core import SchemaSerializer, SchemaValidator
from pydantic_core import core_schema as cs


@cache
def _schemas() -> tuple[Any, Any]:
    """The event's schema, and that of its plan's body (the plan but for revision and ids)."""
    value = cs.any_schema()

    def required() -> Any:
        return cs.typed_dict_field(value)

    def optional(**default: Any) -> Any:
        field = cs.with_default_schema(value, **(default or {"default": None}))
        return cs.typed_dict_field(field, required=False)

    def record(fields: dict) -> Any:
        return cs.typed_dict_schema(fields)

    step = record(
        {
            "id": required(),
            "description": required(),
            "status": optional(default="pending"),
            "acceptance": optional(),
            "depends_on": optional(default_factory=list),
            "evidence": optional(),
            "check": optional(),
        }
    )
    phase = record({"title": optional(), "steps": cs.typed_dict_field(cs.list_schema(step))})
    body = {
        "explanation": optional(),
        "findings": optional(default_factory=list),
        "objectives": optional(default_factory=list),
        "phases": cs.typed_dict_field(cs.list_schema(phase)),
    }
    plan = record({"revision": required(), "turn_id": optional(), "call_id": optional(), **body})
    event = record(
        {
            "name": required(),
            "call_id": optional(),
            "turn_id": optional(),
            "plan": cs.typed_dict_field(plan),
            "result": required(),
            "enforcement": required(),
            "by": cs.typed_dict_field(value, required=False),  # the person's edit: who
        }
    )
    return event, record(body)


@cache
def _body_serializer() -> SchemaSerializer:
    return SchemaSerializer(_schemas()[1])


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(_schemas()[0])


def encode_plan_body(body: dict) -> str:
    """The stored text of a plan's body: explanation, findings, objectives and phases."""
    return _body_serializer().to_json(body, exclude_none=True, exclude_defaults=True).decode()


def encode_plan_event(data: dict, body: str | None, result: str) -> str:
    """The stored text of a plan_updated event's data: the event schema's fields in its order,
    nulls left out, around the stored text of the plan's body.

    `result` is the JSON text of `data["result"]`, made once for the event and its column.
    `body` is encode_plan_body of the plan's body when validation made it (to measure the
    input), else None and made here. Every other value is a string, written as pydantic-core
    writes one (non-ASCII as it is), or the revision, an integer.
    """
    plan = data["plan"]
    if body is None:
        body = encode_plan_body({key: plan[key] for key in _BODY})
    return (
        f'{{"name":{_string(data["name"])}{_id("call_id", data)}{_id("turn_id", data)}'
        f',"plan":{{"revision":{plan["revision"]:d}{_id("turn_id", plan)}{_id("call_id", plan)}'
        f',{body[1:]},"result":{result},"enforcement":{_string(data["enforcement"])}'
        f"{_by(data)}}}"
    )


def _by(data: dict) -> str:
    by = data.get("by")
    if by is None:
        return ""
    return f',"by":{{"name":{"null" if by["name"] is None else _string(by["name"])}' + (
        f',"via":{_string(by["via"])}}}'
    )


_BODY = ("explanation", "findings", "objectives", "phases")


def _id(key: str, values: dict) -> str:
    value = values[key]
    return "" if value is None else f',"{key}":{_string(value)}'


# The name of a revision the person made (DESIGN section 4: its author is `user`); every other
# revision is the agent's, through its tools or its own plan (the ACP bridge's `acp_plan`).
USER_EDIT = "user_edit"


def decode_plan_event(text: str) -> dict:
    """A plan_updated event's data, whole, from its stored text (with the plan's `steps`), and
    its `author`: `user` for the person's edit, else `agent` (told by the name, so it is not
    stored, and events written before it was read back have it too)."""
    data = _validator().validate_json(text)
    plan = data["plan"]
    plan["steps"] = [step for phase in plan["phases"] for step in phase["steps"]]
    data["author"] = "user" if data["name"] == USER_EDIT else "agent"
    if data["author"] == "user":
        data.setdefault("by", None)  # an edit made before who decided was kept
    return data
