"""The snapshot's JSON schema (from the pydantic model) written as TypeScript, and a TypeScript
file that holds labextension/src/types.ts to it key by key, for `tsc` to check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# types.ts's name for each model of the snapshot, where the two differ.
TS_NAMES = {"Comment": "PlanComment"}


def ts_type(schema: dict[str, Any]) -> str:
    """A TypeScript type for a JSON schema of the snapshot (the kinds pydantic writes)."""
    if "$ref" in schema:
        return "S_" + schema["$ref"].rsplit("/", 1)[1]
    if "anyOf" in schema:
        return " | ".join(ts_type(option) for option in schema["anyOf"])
    if "enum" in schema:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    kind = schema.get("type")
    if kind == "array":
        return f"Array<{ts_type(schema['items'])}>"
    if kind == "object":
        values = schema.get("additionalProperties")
        if "properties" in schema:
            return _object(schema)
        if isinstance(values, dict):
            return f"{{ [key: string]: {ts_type(values)} }}"
        return "any"  # a dict the schema says nothing more of
    simple = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
    return {**simple, "null": "null"}[kind]


def _object(schema: dict[str, Any]) -> str:
    # Every key: a snapshot as model_dump writes it holds them all.
    properties = schema["properties"].items()
    fields = [f"{json.dumps(key)}: {ts_type(value)};" for key, value in properties]
    return "{ " + " ".join(fields) + " }"


def schema_module(schema: dict[str, Any]) -> str:
    """The schema's models as TypeScript types named S_<model>."""
    lines = ["// Made from jupyter_plans.plan.models.Snapshot's JSON schema: not to be edited."]
    for name, model in {**schema.get("$defs", {}), "Snapshot": schema}.items():
        lines.append(f"export type S_{name} = {_object(model)};")
    return "\n".join(lines) + "\n"


CHECK = """// Holds each interface of types.ts to the snapshot's schema, key by key: a key it lacks,
// one it has that the schema has not, and one whose type differs each stop tsc, named.
// Whether a key may be left out (a card saved by an earlier version) is not compared.
import type * as TS from "{types}";
import type * as S from "./schema";

type Defined<T> = T extends undefined ? never : T extends Array<infer U>
  ? Array<Defined<U>>
  : T extends object ? {{ [K in keyof T]-?: Defined<T[K]> }} : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Verdict<T, S, K extends PropertyKey> = K extends keyof S
  ? K extends keyof T
    ? Same<Defined<T[K]>, Defined<S[K]>> extends true
      ? "ok"
      : `${{K & string}} differs from the schema`
    : `${{K & string}} is missing from types.ts`
  : `${{K & string}} is not in the schema`;
type Report<T, S> = {{ [K in keyof T | keyof S]-?: Verdict<T, S, K> }};
type Expect<T extends {{ [key: string]: "ok" }}> = T;

{checks}
"""


def check_module(types_ts: Path, names: list[str]) -> str:
    """The check of types.ts for each model of the schema."""
    lines = []
    for name in names:
        ts_name = TS_NAMES.get(name, name)
        lines.append(f"export type {ts_name}Holds = Expect<Report<TS.{ts_name}, S.S_{name}>>;")
    module = str(types_ts.with_suffix(""))
    return CHECK.format(types=module, checks="\n".join(lines))
