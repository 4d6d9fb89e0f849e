"""labextension/src/types.ts says what the Python snapshot is: each interface has every key of
the snapshot's JSON schema (made from the pydantic model), of the same type, and no other; tsc
checks it, naming the key that is missing or mistyped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from jupyter_plans.plan.models import Snapshot
from tests.helpers.snapshot_types import check_module, schema_module, ts_type

ROOT = Path(__file__).resolve().parents[1]
TSC = ROOT / "labextension" / "node_modules" / ".bin" / "tsc"
TYPES = ROOT / "labextension" / "src" / "types.ts"


def tsc(folder: Path, types_ts: Path) -> subprocess.CompletedProcess:
    schema = Snapshot.model_json_schema(mode="serialization")
    names = [*schema["$defs"], "Snapshot"]
    (folder / "schema.ts").write_text(schema_module(schema), encoding="utf-8")
    (folder / "check.ts").write_text(check_module(types_ts, names), encoding="utf-8")
    options = {
        "strict": True,
        "noEmit": True,
        "skipLibCheck": True,
        "target": "ES2020",
        "module": "ESNext",
        "moduleResolution": "bundler",
        "types": [],
    }
    config = {"compilerOptions": options, "files": ["check.ts"]}
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run(
        [str(TSC), "-p", str(folder)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def typescript():
    if not TSC.exists():
        pytest.fail("labextension/node_modules is missing: the package's install builds it")


def test_types_ts_is_the_snapshots_schema(tmp_path, typescript):
    done = tsc(tmp_path, TYPES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_key_missing_or_mistyped_in_types_ts_is_named(tmp_path, typescript):
    """The check fails on a types.ts that lacks a key, types one otherwise, or has one the
    snapshot has not."""
    source = TYPES.read_text(encoding="utf-8")
    broken = source.replace("  revision: number;\n  turn_id", "  revision: string;\n  turn_id", 1)
    broken = broken.replace("  ok: boolean;\n", "", 1)
    broken = broken.replace("  sources: string[];\n", "  sources: string[];\n  mood: string;\n", 1)
    assert broken.count("revision: string") == 1 and "mood" in broken and broken != source
    types_ts = tmp_path / "types.ts"
    types_ts.write_text(broken, encoding="utf-8")
    done = tsc(tmp_path, types_ts)
    assert done.returncode != 0
    for said in (
        "revision differs from the schema",
        "ok is missing from types.ts",
        "mood is not in the schema",
    ):
        assert said in done.stdout, done.stdout


def test_the_schema_is_written_as_typescript():
    assert ts_type({"anyOf": [{"type": "integer"}, {"type": "null"}]}) == "number | null"
    assert ts_type({"enum": ["open", "resolved"], "type": "string"}) == '"open" | "resolved"'
    assert ts_type({"type": "array", "items": {"$ref": "#/$defs/Step"}}) == "Array<S_Step>"
    cells = {"type": "object", "additionalProperties": {"type": "boolean"}}
    assert ts_type(cells) == "{ [key: string]: boolean }"
    assert ts_type({"type": "object", "additionalProperties": True}) == "any"
    assert json.loads(json.dumps(Snapshot.model_json_schema(mode="serialization")))
