"""A shipped schema compiled into predicates: each keyword means what JSON Schema 2020-12 says
(jsonschema is the reference), NaN is no number, and a keyword it does not know is refused when
the schema is compiled rather than skipped."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from goldcase.errors import GoldcaseError
from goldcase.schemacheck import _Compiler, checker

INSTANCES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    1.5,
    -0.5,
    2,
    float("inf"),
    "",
    "a",
    "abc",
    "answer",
    [],
    [1],
    ["a", ""],
    [{"doc": "a"}],
    {},
    {"a": 1},
    {"a": "x", "b": 2},
    {"a": "x", "b": 2.0, "c": 3},
    {"a": "x", "b": "y"},
    {"b": None},
    {"kind": "answer"},
    {"kind": "answer", "a": "x"},
    {"kind": "other"},
    {'it\'s "x"\n': "a"},
    {'it\'s "x"\n': 1},
    {"k')or(1": None},
    {"k')or(1": 1},
]

SCHEMAS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "minLength": 1},
    {"minLength": 2},
    {"type": "integer", "minimum": 1},
    {"type": "number", "minimum": 0, "maximum": 1},
    {"type": ["number", "null"], "minimum": 0, "maximum": 1},
    {"type": ["string", "null"]},
    {"maximum": 1},
    {"type": "boolean"},
    {"type": "null"},
    {"enum": ["answer", "abstain"]},
    {"const": "answer"},
    {"type": "array", "items": {"type": "string", "minLength": 1}},
    {"items": {"type": "object", "required": ["doc"]}},
    {"type": "object"},
    {"required": ["a"]},
    {"minProperties": 1},
    {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}},
    {"properties": {"a": {"type": "string"}}},
    {"additionalProperties": {"type": "integer"}, "properties": {"a": {"type": "string"}}},
    {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "minProperties": 2,
    },
    {"type": "object", "additionalProperties": False, "minProperties": 1},
    {  # a field name is a string literal in the compiled source, whatever it holds
        "type": "object",
        "additionalProperties": False,
        "properties": {'it\'s "x"\n': {"type": "string"}, "k')or(1": {"type": "null"}},
    },
    {"type": ["object", "null"], "additionalProperties": False, "properties": {"b": {}}},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"not": {"type": "array"}},
    {
        "if": {"properties": {"kind": {"const": "answer"}}, "required": ["kind"]},
        "then": {"required": ["a"]},
        "else": {"not": {"required": ["a"]}},
    },
    {"$defs": {"text": {"type": "string"}}, "type": "array", "items": {"$ref": "#/$defs/text"}},
    {"description": "annotations only"},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=[str(s) for s in SCHEMAS])
def test_each_keyword_agrees_with_jsonschema(schema: dict[str, Any]) -> None:
    check = _Compiler("test.schema.json", schema).compile(schema)
    reference = Draft202012Validator(schema)
    for instance in INSTANCES:
        assert check(instance) is reference.is_valid(instance), instance


@pytest.mark.parametrize("schema", [{"type": "number"}, {"type": "integer"}])
def test_nan_is_no_json_number(schema: dict[str, Any]) -> None:
    assert _Compiler("test.schema.json", schema).compile(schema)(float("nan")) is False


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        ({"type": "string", "pattern": "^a"}, "the keyword 'pattern'"),
        ({"properties": {"a": {"format": "date"}}}, "the keyword 'format'"),
        ({"enum": [1, "a"]}, "the enum or const [1, 'a'] (strings only)"),
        ({"type": "text"}, "the type 'text'"),
        ({"$ref": "case.schema.json#/properties/id"}, "the reference"),
        ({"$ref": "#/$defs/missing"}, "the reference '#/$defs/missing'"),
        ({"$defs": {"a": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}, "recursive"),
    ],
)
def test_a_keyword_it_does_not_know_is_refused(schema: dict[str, Any], named: str) -> None:
    with pytest.raises(GoldcaseError, match="compiled check does not know") as caught:
        _Compiler("test.schema.json", schema).compile(schema)
    assert named in str(caught.value)


def test_the_results_schema_compiles() -> None:
    line = checker("results.schema.json")
    assert line({"id": "E1", "outcome": "answer", "answer": "30 days", "confidence": 0.5})
    assert not line({"id": "E1", "outcome": "answer"})  # an answer needs answer or fact
    assert not line({"id": "E1", "outcome": "abstain", "confidence": float("nan")})
