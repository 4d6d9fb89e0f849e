"""json_lite reads and writes as json does, for every text and value: what it gives, and what it
raises in json's words. The coding-agent hook reads its host's input and writes its answer with
it (test_answers.py holds the answers themselves, byte for byte)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_plans import json_lite

SEPARATORS = [(",", ":"), (", ", ": ")]
texts = st.text(alphabet=st.characters(exclude_categories=()), max_size=40)  # surrogates too
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    # keys as json takes them: text, and numbers, booleans and None, which it writes as text
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            texts | st.integers() | st.floats() | st.booleans() | st.none(), inner, max_size=4
        )
    ),
    max_leaves=20,
)
# Text near JSON: pieces of it, whitespace json takes and json does not, a BOM, broken escapes.
pieces = st.sampled_from(
    ['{"a": ', "[", "]", "}", ",", ":", '"x"', '"\\u', "d800", '\\"', "1", "-", "1e999", ".5",
     "NaN", "-Infinity", "true", "nul", " ", "\t", "\n", "\r", "\x0c", "\xa0", "\ufeff",
     '"\x01"', "\\", "0" * 5000]
)  # fmt: skip
near_json = st.lists(pieces, max_size=12).map("".join)


def outcome(call, *args, **kwargs):
    """What a call gives, or the type and words of what it raises; NaN compared as a word."""
    try:
        value = call(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return ("raised", type(error), str(error))
    return ("gave", json.dumps(value) if not isinstance(value, str) else value)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from(SEPARATORS))
def test_dumps_writes_what_json_writes(value, separators):
    assert json_lite.dumps(value, separators) == json.dumps(value, separators=separators)


@settings(max_examples=400, deadline=None)
@given(values, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(value, around):
    text = around + json.dumps(value) + around
    assert outcome(json_lite.loads, text) == outcome(json.loads, text)


@settings(max_examples=1000, deadline=None)
@given(near_json | texts)
def test_loads_refuses_what_json_refuses_in_its_words(text):
    assert outcome(json_lite.loads, text) == outcome(json.loads, text)


@pytest.mark.parametrize(
    "value",
    [{"a": object()}, {(1, 2): 3}, [1, {2, 3}], b"bytes"],
    ids=["object", "tuple key", "set", "bytes"],
)
def test_dumps_refuses_what_json_refuses_in_its_words(value):
    assert outcome(json_lite.dumps, value) == outcome(json.dumps, value)


def test_a_circle_and_a_deep_nest_are_refused_as_json_refuses_them():
    circle: list = []
    circle.append(circle)
    assert outcome(json_lite.dumps, circle) == outcome(json.dumps, circle)
    deep = "[" * 100_000 + "]" * 100_000
    assert outcome(json_lite.loads, deep) == outcome(json.loads, deep)
    assert outcome(json_lite.loads, deep)[1] is RecursionError


def test_constants_read_as_json_reads_them():
    found = json_lite.loads('[NaN, Infinity, -Infinity, 1.5, 10000000000000000000000, "\\ud800"]')
    assert math.isnan(found[0]) and found[1:5] == [math.inf, -math.inf, 1.5, 10**22]
    assert found[5] == "\ud800"


def test_without_jsons_c_functions_json_answers(monkeypatch):
    monkeypatch.setattr(json_lite, "make_scanner", None)
    monkeypatch.setattr(json_lite, "make_encoder", None)
    assert json_lite.loads(' {"a": [1, "\\u00e9"]} ') == {"a": [1, "é"]}
    assert json_lite.dumps({"a": "é"}, (",", ":")) == '{"a":"\\u00e9"}'
    assert outcome(json_lite.loads, "[1,]") == outcome(json.loads, "[1,]")
