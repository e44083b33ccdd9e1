"""A shipped JSON Schema compiled into plain Python predicates: a yes or no for each instance.

The schema file is the one definition of what is valid; this module only knows what each
keyword means. ``checker(name)`` walks the schema once and returns nested closures (a
property's type test, an object's allowed fields) that answer as quickly as a hand-written
validator would. fastjsonschema's generated code answers the same question about 2.5 times
slower on result lines: an ``if`` that does not hold is an exception raised and caught on
every line, with the failing schema built as its payload. A "no" is explained by jsonschema
(``schemas.validator``), which the predicates never replace.

Only the keywords of the schemas compiled here are known (``KEYWORDS``); any other keyword is
refused when the schema is compiled, so a schema edit can never be skipped silently. Values
follow JSON Schema 2020-12: ``true`` and ``false`` are not numbers, ``1.0`` is an integer,
``minimum`` and ``minLength`` say nothing about values of other types. One deliberate
difference: a float NaN is no JSON number (no JSON text holds one, and goldcase's decoders
refuse the ``NaN`` constant), so it fails ``number`` and ``integer``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import cache, reduce
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.schemas import load_schema

Check = Callable[[Any], bool]

# Keywords that say nothing about validity (annotations, and $defs, reached through $ref).
ANNOTATIONS = frozenset(("$schema", "$id", "$defs", "$comment", "title", "description"))
KEYWORDS = frozenset(
    (
        "$ref", "type", "enum", "const", "minLength", "minimum", "maximum", "properties",
        "additionalProperties", "required", "minProperties", "items", "anyOf", "oneOf", "not",
        "if", "then", "else",
    )
)  # fmt: skip


@cache
def checker(name: str) -> Check:
    """The predicate of the shipped schema ``name``: True exactly when an instance is valid."""
    schema = load_schema(name)
    return _Compiler(name, schema).compile(schema)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_number(value: Any) -> bool:
    # value == value is False for NaN only
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _is_integer(value: Any) -> bool:
    if isinstance(value, float):
        return value.is_integer()  # False for NaN and the infinities
    return isinstance(value, int) and not isinstance(value, bool)


def _is_null(value: Any) -> bool:
    return value is None


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _is_dict(value: Any) -> bool:
    return isinstance(value, dict)


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


_TYPES: dict[str, Check] = {
    "string": _is_str,
    "number": _is_number,
    "integer": _is_integer,
    "null": _is_null,
    "boolean": _is_bool,
    "array": _is_list,
    "object": _is_dict,
}


class _Compiler:
    def __init__(self, name: str, root: Mapping[str, Any]) -> None:
        self.name = name
        self.root = root
        self.refs: dict[str, Check] = {}
        self.resolving: set[str] = set()

    def refuse(self, what: str) -> GoldcaseError:
        return GoldcaseError(
            f"goldcase's {self.name} uses {what}, which its compiled check does not know; "
            "reinstall goldcase"
        )

    def compile(self, schema: Any) -> Check:
        if schema is True or schema is False:
            return _always if schema else _never
        if not isinstance(schema, dict):
            raise self.refuse(f"a schema that is {type(schema).__name__}")
        unknown = sorted(set(schema) - ANNOTATIONS - KEYWORDS)
        if unknown:
            raise self.refuse(f"the keyword {unknown[0]!r}")
        tests = [*self._ref(schema), *self._values(schema), *self._combined(schema)]
        return _all(tests)

    def _ref(self, schema: Mapping[str, Any]) -> list[Check]:
        ref = schema.get("$ref")
        if ref is None:
            return []
        if not isinstance(ref, str) or not ref.startswith("#/"):
            raise self.refuse(f"the reference {ref!r}")
        if ref in self.resolving:  # refused, not looped on
            raise self.refuse(f"the recursive reference {ref!r}")
        if ref not in self.refs:
            target: Any = self.root
            for step in ref[2:].split("/"):
                if not isinstance(target, dict) or step not in target:
                    raise self.refuse(f"the reference {ref!r}")
                target = target[step]
            self.resolving.add(ref)
            self.refs[ref] = self.compile(target)
            self.resolving.discard(ref)
        return [self.refs[ref]]

    def _values(self, schema: Mapping[str, Any]) -> list[Check]:
        """type, with the keywords of each type folded into that type's one test; without a
        type, each kind's keywords hold for values of that kind and pass every other value."""
        tests: list[Check] = []
        for key in ("enum", "const"):
            if key in schema:
                tests.append(self._one_of_strings(schema[key] if key == "enum" else [schema[key]]))
        kinds = {
            "string": _string(schema),
            "number": _number(schema, integer=False),
            "integer": _number(schema, integer=True),
            "object": self._object(schema),
            "array": self._array(schema),
            "null": _is_null,
            "boolean": _is_bool,
        }
        if "type" in schema:
            wanted = schema["type"]
            names = [wanted] if isinstance(wanted, str) else wanted
            if not isinstance(names, list) or not all(n in kinds for n in names):
                raise self.refuse(f"the type {wanted!r}")
            tests.append(
                _or_null(_any([kinds[n] for n in names if n != "null"]))
                if "null" in names and len(names) > 1
                else _any([kinds[n] for n in names])
            )
            return tests
        for kind, keys in _KIND_KEYWORDS.items():
            if any(k in schema for k in keys):
                # an object test passes non-objects itself: no guard to call first
                guarded = kind == "object"
                check = self._object(schema, strict=False) if guarded else kinds[kind]
                tests.append(check if guarded else _guarded(_TYPES[kind], check))
        return tests

    def _one_of_strings(self, values: Any) -> Check:
        # JSON equality of strings is Python's; other values (1 and true, 1 and 1.0) are not
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise self.refuse(f"the enum or const {values!r} (strings only)")
        allowed = frozenset(values)
        return lambda value: isinstance(value, str) and value in allowed

    def _object(self, schema: Mapping[str, Any], *, strict: bool = True) -> Check:
        properties = {k: self.compile(s) for k, s in schema.get("properties", {}).items()}
        rest = self.compile(schema.get("additionalProperties", True))
        required = tuple(schema.get("required", ()))
        least = schema.get("minProperties", 0)
        return _object_check(properties, rest, required, least, strict=strict)

    def _array(self, schema: Mapping[str, Any]) -> Check:
        if "items" not in schema:
            return _is_list
        item = self.compile(schema["items"])
        return lambda value: isinstance(value, list) and all(map(item, value))

    def _combined(self, schema: Mapping[str, Any]) -> list[Check]:
        tests: list[Check] = []
        if "anyOf" in schema:
            tests.append(_any([self.compile(s) for s in schema["anyOf"]]))
        if "oneOf" in schema:
            branches = [self.compile(s) for s in schema["oneOf"]]
            tests.append(lambda value: sum(1 for b in branches if b(value)) == 1)
        if "not" in schema:
            negated = self.compile(schema["not"])
            tests.append(lambda value: not negated(value))
        if "if" in schema:
            condition = self.compile(schema["if"])
            then = self.compile(schema.get("then", True))
            otherwise = self.compile(schema.get("else", True))
            tests.append(lambda value: then(value) if condition(value) else otherwise(value))
        return tests


_KIND_KEYWORDS = {
    "string": ("minLength",),
    "number": ("minimum", "maximum"),
    "object": ("properties", "additionalProperties", "required", "minProperties"),
    "array": ("items",),
}


def _or_null(check: Check) -> Check:
    return lambda value: value is None or check(value)


def _guarded(is_kind: Check, check: Check) -> Check:
    return lambda value: not is_kind(value) or check(value)


def _string(schema: Mapping[str, Any]) -> Check:
    least = schema.get("minLength", 0)
    if not least:
        return _is_str
    # len counts code points, as JSON Schema's minLength does
    return lambda value: isinstance(value, str) and len(value) >= least


def _number(schema: Mapping[str, Any], *, integer: bool) -> Check:
    kind = _is_integer if integer else _is_number
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None and high is None:
        return kind
    low = -math.inf if low is None else low
    high = math.inf if high is None else high
    if integer:
        return lambda value: kind(value) and low <= value <= high
    # _is_number written out: a confidence on every line
    return lambda value: (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == value
        and low <= value <= high
    )


def _all(tests: list[Check]) -> Check:
    # chained pairs rather than a loop or all(...): no generator made per value
    return reduce(_both, tests) if tests else _always


def _both(first: Check, second: Check) -> Check:
    return lambda value: first(value) and second(value)


def _any(tests: list[Check]) -> Check:
    return reduce(_either, tests)


def _either(first: Check, second: Check) -> Check:
    return lambda value: first(value) or second(value)


def _object_check(
    properties: dict[str, Check],
    rest: Check,
    required: tuple[str, ...],
    least: int,
    *,
    strict: bool,
) -> Check:
    """An object's properties, additionalProperties, required and minProperties in one test
    (every field looked up once); a value that is not an object fails when ``strict`` (the
    schema's type is object) and passes otherwise."""
    get = properties.get
    fields = tuple(properties.items())
    needed = frozenset(required)

    if rest is _always and not fields and not least:  # required alone: no loop to enter
        if strict:
            return lambda value: isinstance(value, dict) and needed <= value.keys()
        return lambda value: not isinstance(value, dict) or needed <= value.keys()

    if rest is _always:  # open: only the named fields are tested

        def open_object(value: Any) -> bool:
            if not isinstance(value, dict):
                return not strict
            if len(value) < least or not needed <= value.keys():
                return False
            # a loop, not all(...): a generator for each object costs a fifth of the check
            for key, test in fields:  # noqa: SIM110
                if key in value and not test(value[key]):
                    return False
            return True

        return open_object

    def closed_object(value: Any) -> bool:
        if not isinstance(value, dict):
            return not strict
        if len(value) < least or not needed <= value.keys():
            return False
        for key, item in value.items():  # noqa: SIM110 - as above
            if not get(key, rest)(item):
                return False
        return True

    return closed_object
