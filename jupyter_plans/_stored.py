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
def _schema() -> Any:
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
    plan = record(
        {
            "revision": required(),
            "turn_id": optional(),
            "call_id": optional(),
            "explanation": optional(),
            "findings": optional(default_factory=list),
            "objectives": optional(default_factory=list),
            "phases": cs.typed_dict_field(cs.list_schema(phase)),
        }
    )
    return record(
        {
            "name": required(),
            "call_id": optional(),
            "turn_id": optional(),
            "plan": cs.typed_dict_field(plan),
            "result": required(),
            "enforcement": required(),
        }
    )


@cache
def _serializer() -> SchemaSerializer:
    return SchemaSerializer(_schema())


@cache
def _validator() -> SchemaValidator:
    return SchemaValidator(_schema())


def encode_plan_event(data: dict) -> str:
    """The stored text of a plan_updated event's data."""
    return _serializer().to_json(data, exclude_none=True, exclude_defaults=True).decode()


def decode_plan_event(text: str) -> dict:
    """A plan_updated event's data, whole, from its stored text (with the plan's `steps`)."""
    data = _validator().validate_json(text)
    plan = data["plan"]
    plan["steps"] = [step for phase in plan["phases"] for step in phase["steps"]]
    return data
