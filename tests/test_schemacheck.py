"""A shipped schema compiled into predicates: each keyword means what JSON Schema 2020-12 says
(jsonschema is the reference), NaN is no number, and a keyword it does not know is refused when
the schema is compiled rather than skipped."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from goldcase.errors import GoldcaseError
from goldcase.schemacheck import _Compiler, checker
from goldcase.schemas import validator

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
    "a b",
    "  ",
    " a",
    "\u0663",
    ["a", "a"],
    ["a", "b", "c"],
    [1, 1.0],
    [1, True],
    [[1], [1.0]],
    [{"a": 1}, {"a": 1.0}],
    [False, 0],
    [[1], [True]],
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}],
    # values YAML makes that no JSON holds (an unquoted date, a key that is a number)
    [date(2024, 1, 1)],
    [date(2024, 1, 1), date(2024, 1, 1)],
    [{1: "a", "b": "c"}],
    [{1: "a"}, {1: "a"}],
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
    {"description": "annotations only", "default": 3},
    {"type": "string", "pattern": "\\S"},
    {"pattern": "^[a-z]+$"},
    {"pattern": "\\d"},
    {"type": "string", "maxLength": 2},
    {"maxLength": 1},
    {"type": "array", "minItems": 2},
    {"maxItems": 0},
    {"type": "array", "uniqueItems": True},
    {"uniqueItems": False},
    {"allOf": [{"type": "string"}, {"minLength": 2}]},
    {"allOf": [{"required": ["a"]}, {"properties": {"a": {"const": True}}}]},
    {"const": True},
    {"const": False},
    {"enum": ["answer", None]},
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
        ({"type": "string", "format": "date"}, "the keyword 'format'"),
        ({"properties": {"a": {"contains": {}}}}, "the keyword 'contains'"),
        ({"enum": [1, "a"]}, "the enum or const [1, 'a'] (strings, booleans, null only)"),
        ({"type": "text"}, "the type 'text'"),
        ({"$ref": "../case.schema.json#/properties/id"}, "the reference"),
        ({"$ref": "https://example.com/x.schema.json#/a"}, "the reference"),
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


def _shipped_instances() -> list[Any]:
    """The sample set's case files, each also with one field taken away or replaced by a
    value of another shape: instances on both sides of every rule of the case schema."""
    cases = [yaml.safe_load(path.read_text(encoding="utf-8")) for path in SAMPLE]
    others: list[Any] = [None, True, 0, 1.5, "", " ", " x", "2024-13-01", [], ["a", "a"], {}]
    out: list[Any] = []
    for number, case in enumerate(cases):
        out.append(case)
        for key in sorted(case):
            taken = {k: v for k, v in case.items() if k != key}
            replaced = {**case, key: others[(number + len(key)) % len(others)]}
            out += [taken, replaced]
    return out


SAMPLE = sorted((Path(__file__).resolve().parent.parent / "cases").glob("*/*.yaml"))


@pytest.mark.parametrize("name", ["case.schema.json", "draft.schema.json"])
def test_the_case_and_draft_schemas_agree_with_jsonschema(name: str) -> None:
    """What the loader asks of every case file (and draft) it parses: the compiled schema says
    yes exactly when jsonschema does, on the sample set and on variants of every case."""
    check, reference = checker(name), validator(name)
    instances = _shipped_instances()
    if name == "draft.schema.json":  # a draft is a case's fields and what production did
        instances = [
            {**{k: v for k, v in i.items() if k not in ("resolution", "derived_from")}, **extra}
            for i in instances
            if isinstance(i, dict)
            for extra in ({}, {"trace": {"answer": None, "flags": ["cap_hit", "cap_hit"]}})
        ]
    verdicts = [check(i) for i in instances]
    assert verdicts == [reference.is_valid(i) for i in instances]
    assert len(SAMPLE) > 100 and True in verdicts and False in verdicts


def test_a_value_no_json_holds_is_a_finding_not_a_crash() -> None:
    """An unquoted date in a list the schema wants unique strings (tags) ended `check` with
    an internal error once the uniqueness test compared items as JSON text."""
    case = {"id": "ret-002", "question": "q?", "answerable": False, "tags": [date(2024, 1, 1)]}
    assert checker("case.schema.json")(case) is False
    nested: list[Any] = []
    for _ in range(3000):
        nested = [nested]
    assert checker("case.schema.json")({**case, "tags": nested}) is False
