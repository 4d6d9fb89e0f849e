"""How a plan_updated event's data is stored: without what its shape already says.

A plan is stored once, in the event that made it. Its `steps` are left out (they are its
phases' steps, in order), and so is every field that holds its default: a null, an empty
list, a step's `pending` status. A stored plan of 12 steps takes about two thirds of the
space, which keeps PostgreSQL from compressing it and lets SQLite fit two to a page.

One table says the shape. A pydantic-core serializer made from it writes the plan's body and
leaves the defaults out; the event around the body is written field by field in the table's
order, nulls left out, as that serializer would (a test holds the two to the same bytes).
Reading puts the defaults in again, every key in the order the session writes it, with the
standard library alone: a card or a hook reads a plan without loading pydantic-core. Data
stored whole (by an earlier version) reads back the same.
"""

from __future__ import annotations

from functools import cache
from json import loads
from json.encoder import encode_basestring as _string  # a str's JSON, non-ASCII kept
from typing import Any

# The shape of a stored plan event: each record's fields in their order, and what each field
# is when it is left out. REQUIRED is never left out; ABSENT stays out; `list` is a new empty
# list; any other value is the default itself. A dict is a record, [record] a list of them.
REQUIRED, ABSENT = object(), object()
_STEP = {
    "id": REQUIRED,
    "description": REQUIRED,
    "status": "pending",
    "acceptance": None,
    "depends_on": list,
    "evidence": None,
    "check": None,
}
_BODY = {
    "explanation": None,
    "findings": list,
    "objectives": list,
    "phases": [{"title": None, "steps": [_STEP]}],
}
_PLAN = {"revision": REQUIRED, "turn_id": None, "call_id": None, **_BODY}
_EVENT = {
    "name": REQUIRED,
    "call_id": None,
    "turn_id": None,
    "plan": _PLAN,
    "result": REQUIRED,
    "enforcement": REQUIRED,
    "by": ABSENT,  # the person's edit: who
}


@cache
def _schemas() -> tuple[Any, Any]:
    """The event's pydantic-core schema, and that of its plan's body (the plan but for
    revision and ids): the shape above, for the serializer that writes a plan's body."""
    from pydantic_core import core_schema as cs  # loaded by the first plan written

    def record(fields: dict) -> Any:
        return cs.typed_dict_schema({key: field(shape) for key, shape in fields.items()})

    def field(shape: Any) -> Any:
        if isinstance(shape, dict):
            return cs.typed_dict_field(record(shape))
        if isinstance(shape, list):
            return cs.typed_dict_field(cs.list_schema(record(shape[0])))
        if shape is REQUIRED or shape is ABSENT:
            return cs.typed_dict_field(cs.any_schema(), required=shape is REQUIRED)
        default = {"default_factory": list} if shape is list else {"default": shape}
        return cs.typed_dict_field(
            cs.with_default_schema(cs.any_schema(), **default), required=False
        )

    return record(_EVENT), record(_BODY)


def _read(data: dict, fields: dict) -> dict:
    """A stored record read back whole: its fields in the shape's order, defaults put in
    again, and no other key (data stored whole by an earlier version reads back the same)."""
    whole = {}
    for key, shape in fields.items():
        if key in data:
            value = data[key]
            if isinstance(shape, dict):
                value = _read(value, shape)
            elif isinstance(shape, list):
                value = [_read(item, shape[0]) for item in value]
        elif shape is ABSENT:
            continue
        elif shape is list:
            value = []
        elif shape is REQUIRED or isinstance(shape, (dict, list)):
            raise ValueError(f"a stored plan event has no {key!r}")
        else:
            value = shape
        whole[key] = value
    return whole


@cache
def _body_serializer() -> Any:
    from pydantic_core import SchemaSerializer

    return SchemaSerializer(_schemas()[1])


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
    data = _read(loads(text), _EVENT)
    plan = data["plan"]
    plan["steps"] = [step for phase in plan["phases"] for step in phase["steps"]]
    data["author"] = "user" if data["name"] == USER_EDIT else "agent"
    if data["author"] == "user":
        data.setdefault("by", None)  # an edit made before who decided was kept
    return data
