"""The hook answers as it did: every recorded input of tests/hooks/ (and malformed ones), in
every state a plan can be in (none, default mode, plan mode, a proposal waiting, another
program's file, a notebook gone, a notebook moved, its name taken by a new notebook), named
every way (--db, --notebook, a session, a path pathlib would write otherwise, a relative one),
with --ask and --guard: what it prints, its exit status, and what it leaves in the plan file
are the recorded answers (answers.recorded.json, made by answers.py from the version whose
PreToolUse loaded the full store, argparse and pathlib for every call)."""

from __future__ import annotations

import json

from .answers import answers, recorded


def test_every_answer_is_the_recorded_one():
    expected, found = recorded(), answers()
    assert sorted(found) == sorted(expected)
    differ = [key for key in expected if found[key] != expected[key]]
    shown = "\n".join(
        f"{key}:\n  recorded {json.dumps(expected[key])[:400]}\n  now      "
        f"{json.dumps(found[key])[:400]}"
        for key in differ[:5]
    )
    assert not differ, f"{len(differ)} of {len(expected)} answers differ, such as\n{shown}"
