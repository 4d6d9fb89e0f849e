"""How a plan_updated event's data is stored: without what its shape already says.

A plan is stored once, in the event that made it. Its `steps` are left out (they are its
phases' steps, in order), and so is every field that holds its default: a null, an empty
list, a step's `pending` status. A stored plan of 12 steps takes about two thirds of the
space, which keeps PostgreSQL from compressing it and lets SQLite fit two to a page.

One pydantic-core schema serves both ways: its serializer leaves the defaults out, its
validator puts them back, every key in the order the session writes it. Data stored whole
(by an earlier version) reads back the same.
"""

from __future__ import annotations

from functools import cache
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
        }
    )
    return event, record(body)


@cache
def _serializers() -> tuple[SchemaSerializer, SchemaSerializer]:
    event, body = _schemas()
    return SchemaSerializer(event), SchemaSerializer(body)


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(_schemas()[0])


def encode_plan_body(body: dict) -> str:
    """The stored text of a plan's body: explanation, findings, objectives and phases."""
    return _serializers()[1].to_json(body, exclude_none=True, exclude_defaults=True).decode()


def encode_plan_event(data: dict, body: str | None = None) -> str:
    """The stored text of a plan_updated event's data.

    `body`, when given, is encode_plan_body of the plan's body, made before (validation makes
    it to measure the input): the event is then serialized with an empty plan, whose
    `"phases":[]` gives way to the body's fields. That key cannot occur elsewhere in the
    text: a quote inside a string is escaped.
    """
    serialize = _serializers()[0].to_json
    if body is None:
        return serialize(data, exclude_none=True, exclude_defaults=True).decode()
    plan = data["plan"]
    empty = {"revision": plan["revision"], "turn_id": plan["turn_id"], "call_id": plan["call_id"]}
    text = serialize({**data, "plan": {**empty, "phases": []}}, exclude_none=True).decode()
    return text.replace('"phases":[]', body[1:-1], 1)


def decode_plan_event(text: str) -> dict:
    """A plan_updated event's data, whole, from its stored text (with the plan's `steps`)."""
    data = _validator().validate_json(text)
    plan = data["plan"]
    plan["steps"] = [step for phase in plan["phases"] for step in phase["steps"]]
    return data
