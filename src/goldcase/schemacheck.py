"""A shipped JSON Schema compiled into Python functions: a yes or no for each instance.

The schema file is the one definition of what is valid; this module only knows what each
keyword means. ``checker(name)`` walks the schema once and writes the source of a function
that tests every keyword the way a hand-written validator would: one pass over an object's
fields, each field's type and bounds tested inline, the ``if`` of an answer one expression,
a small function only for each closed object and each list's items. It checks every result
line ``score`` reads and every case file and draft the loader parses. fastjsonschema, which it
replaced, answered about 3 times slower on result lines (an ``if`` that does not hold is an
exception raised and caught on every line) and took three times as long to build the case
schema's check (the price of every ``check FILE`` of an edited case); closures (one call per
keyword) were 1.6 times slower. A "no" is explained by jsonschema (``schemas.validator``).

The source is made from goldcase's own shipped schema, never from anything a user wrote:
field names enter it as Python string literals (``repr``), other values as named constants.

Only the keywords of the schemas compiled here are known (``KEYWORDS``); any other keyword is
refused when the schema is compiled, so a schema edit can never be skipped silently. Values
follow JSON Schema 2020-12: ``true`` and ``false`` are not numbers, ``1.0`` is an integer,
``minimum`` and ``minLength`` say nothing about values of other types, ``pattern`` is
searched for (Python's ``re``, as jsonschema does), ``uniqueItems`` compares as JSON does
(true is not 1, 1 is 1.0). A reference is to this schema or to another shipped one
(``case.schema.json#/properties/id``). One deliberate
difference: a float NaN is no JSON number (no JSON text holds one, and goldcase's decoders
refuse the ``NaN`` constant), so it fails ``number`` and ``integer``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from goldcase.errors import GoldcaseError
from goldcase.schemas import load_schema

Check = Callable[[Any], bool]

# Keywords that say nothing about validity (annotations, and $defs, reached through $ref).
ANNOTATIONS = frozenset(("$schema", "$id", "$defs", "$comment", "title", "description", "default"))
KEYWORDS = frozenset(
    (
        "$ref", "type", "enum", "const", "minLength", "maxLength", "pattern", "minimum",
        "maximum", "properties", "additionalProperties", "required", "minProperties", "items",
        "minItems", "maxItems", "uniqueItems", "anyOf", "allOf", "oneOf", "not", "if", "then",
        "else",
    )
)  # fmt: skip


@cache
def checker(name: str) -> Check:
    """The predicate of the shipped schema ``name``: True exactly when an instance is valid."""
    schema = load_schema(name)
    return _Compiler(name, schema).compile(schema)


# Each type as an expression of a value written X (a name or a subscript, read more than once:
# it has no side effect). "X == X" is False for NaN only.
_NUMBER = "(isinstance(X, (int, float)) and not isinstance(X, bool) and X == X)"
_TYPES = {
    "string": "isinstance(X, str)",
    "number": _NUMBER,
    "integer": (
        "(X.is_integer() if isinstance(X, float)"
        " else isinstance(X, int) and not isinstance(X, bool))"
    ),
    "null": "X is None",
    "boolean": "isinstance(X, bool)",
    "array": "isinstance(X, list)",
    "object": "isinstance(X, dict)",
}
_KINDS = {
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum"),
    "object": ("properties", "additionalProperties", "required", "minProperties"),
    "array": ("items", "minItems", "maxItems", "uniqueItems"),
}


class _Compiler:
    def __init__(self, name: str, root: Mapping[str, Any]) -> None:
        self.name = name
        self.root = root
        self.file = name  # the schema file whose "#/..." references are being read
        self.source: list[str] = []
        self.constants: dict[str, Any] = {}
        self.refs: dict[str, str] = {}  # a $ref -> the function that tests its target
        self.resolving: set[str] = set()
        self.functions = 0
        # the values known to be objects where the expression being written is tested
        self.objects: set[str] = set()

    def refuse(self, what: str) -> GoldcaseError:
        return GoldcaseError(
            f"goldcase's {self.name} uses {what}, which its compiled check does not know; "
            "reinstall goldcase"
        )

    def compile(self, schema: Any) -> Check:
        """The function testing ``schema``, its source executed once."""
        top = self.function(schema)
        namespace: dict[str, Any] = dict(self.constants)
        # goldcase's own schema, written as source above: nothing a user wrote is run
        exec(compile("\n".join(self.source), f"<{self.name}>", "exec"), namespace)
        checked: Check = namespace[top]
        return checked

    def constant(self, value: Any) -> str:
        name = f"_k{len(self.constants)}"
        self.constants[name] = value
        return name

    def function(self, schema: Any) -> str:
        """The name of a new function ``f(v)`` that tests ``schema``."""
        self.functions += 1
        name = f"_f{self.functions}"
        outer = self.objects  # this function's v is another value than the caller's
        try:
            if _is_closed_object(schema):
                self.objects = set()
                lines = self._closed_object(schema)
                rest = {k: v for k, v in schema.items() if k not in _KINDS["object"]}
                rest.pop("type")
                self.objects = {"v"}  # tested above: the rest's object tests need no type test
                lines.append(f"    return bool({self.expression(rest, 'v')})")
            else:
                self.objects = set()
                lines = [f"    return bool({self.expression(schema, 'v')})"]
        finally:
            self.objects = outer
        self.source += [f"def {name}(v):", *lines, ""]
        return name

    def expression(self, schema: Any, value: str) -> str:
        """A Python expression, True exactly when ``value`` (source text) meets ``schema``."""
        if schema is True or schema is False:
            return str(schema)
        if not isinstance(schema, dict):
            raise self.refuse(f"a schema that is {type(schema).__name__}")
        unknown = sorted(set(schema) - ANNOTATIONS - KEYWORDS)
        if unknown:
            raise self.refuse(f"the keyword {unknown[0]!r}")
        if _is_closed_object(schema):
            return f"{self.function(schema)}({value})"
        tests = [*self._ref(schema, value), *self._values(schema, value)]
        tests += self._combined(schema, value)
        return _all(tests)

    def _ref(self, schema: Mapping[str, Any], value: str) -> list[str]:
        ref = schema.get("$ref")
        if ref is None:
            return []
        file, _, pointer = ref.partition("#") if isinstance(ref, str) else ("", "", "")
        shipped = not file or ("/" not in file and file.endswith(".schema.json"))
        if not pointer.startswith("/") or not shipped:
            raise self.refuse(f"the reference {ref!r}")
        file = file or self.file  # another shipped schema, or this one
        where = f"{file}#{pointer}"
        if where in self.resolving:  # refused, not looped on
            raise self.refuse(f"the recursive reference {ref!r}")
        if where not in self.refs:
            target: Any = self.root if file == self.file else load_schema(file)
            for step in pointer[1:].split("/"):
                if not isinstance(target, dict) or step not in target:
                    raise self.refuse(f"the reference {ref!r}")
                target = target[step]
            self.resolving.add(where)
            self.refs[where] = self._in_file(file, target)
            self.resolving.discard(where)
        return [f"{self.refs[where]}({value})"]

    def _in_file(self, file: str, target: Any) -> str:
        """The function of ``target``, a part of the schema ``file`` (its own references read
        in that file)."""
        outer = (self.file, self.root)
        if file != self.file:
            self.file, self.root = file, load_schema(file)
        try:
            return self.function(target)
        finally:
            self.file, self.root = outer

    def _values(self, schema: Mapping[str, Any], value: str) -> list[str]:
        """type; each kind's keywords, tested on values of that kind (they pass any other);
        enum and const."""
        tests: list[str] = []
        for key in ("enum", "const"):
            if key in schema:
                allowed = schema[key] if key == "enum" else [schema[key]]
                tests.append(self._one_of_strings(allowed, value))
        wanted = schema.get("type")
        names = [wanted] if isinstance(wanted, str) else wanted
        if wanted is not None:
            if not isinstance(names, list) or not all(n in _TYPES for n in names):
                raise self.refuse(f"the type {wanted!r}")
            tests.append(_any([_TYPES[n].replace("X", value) for n in names]))
        for kind, keys in _KINDS.items():
            if any(k in schema for k in keys):
                test = self._kind(kind, schema, value)
                if names != [kind] and not (kind == "object" and value in self.objects):
                    # (else the type test above, or the function's own, holds already)
                    is_kind = _NUMBER if kind == "number" else _TYPES[kind]
                    test = f"(not {is_kind.replace('X', value)} or {test})"
                tests.append(test)
        return tests

    def _kind(self, kind: str, schema: Mapping[str, Any], value: str) -> str:
        if kind == "string":
            return self._string(schema, value)
        if kind == "number":
            bounds = [
                f"{value} {op} {self.constant(schema[key])}"
                for key, op in (("minimum", ">="), ("maximum", "<="))
                if key in schema
            ]
            return _all(bounds)
        if kind == "array":
            return self._array(schema, value)
        return self._open_object(schema, value)

    def _string(self, schema: Mapping[str, Any], value: str) -> str:
        tests = _lengths(schema, value, "minLength", "maxLength")
        if "pattern" in schema:  # searched, not matched whole, as JSON Schema says
            found = self.constant(re.compile(schema["pattern"]).search)
            tests.append(f"{found}({value}) is not None")
        return _all(tests)

    def _array(self, schema: Mapping[str, Any], value: str) -> str:
        tests = _lengths(schema, value, "minItems", "maxItems")
        if "items" in schema:  # first: a list of values no JSON holds stops here
            tests.append(f"{self._items(schema['items'])}({value})")
        if schema.get("uniqueItems") is True:
            tests.append(f"{self.constant(_distinct)}({value})")
        return _all(tests)

    def _one_of_strings(self, values: Any, value: str) -> str:
        # JSON equality of strings is Python's, and true, false and null are themselves; other
        # values (1 and true, 1 and 1.0) are not compared by Python's ==
        if not isinstance(values, list) or not all(_plain_constant(v) for v in values):
            raise self.refuse(f"the enum or const {values!r} (strings, booleans, null only)")
        tests = [f"{value} is {v!r}" for v in values if not isinstance(v, str)]
        strings = frozenset(v for v in values if isinstance(v, str))
        if strings:
            tests.append(f"(isinstance({value}, str) and {value} in {self.constant(strings)})")
        return _any(tests) if tests else "False"

    def _open_object(self, schema: Mapping[str, Any], value: str) -> str:
        """An object's keywords as one expression of a value known to be an object: for an
        object whose fields are not all named (an ``if``, a ``required`` alone)."""
        properties: dict[str, Any] = schema.get("properties", {})
        tests: list[str] = []
        if schema.get("minProperties"):
            tests.append(f"len({value}) >= {int(schema['minProperties'])}")
        if schema.get("required"):
            tests.append(self._required(schema["required"], value))
        rest = schema.get("additionalProperties", True)
        if rest is not True:
            named = self.constant(frozenset(properties))
            other = self.function(rest)
            tests.append(f"all({other}({value}[k]) for k in {value}.keys() - {named})")
        for key, sub in properties.items():
            test = self.expression(sub, f"{value}[{key!r}]")
            if test != "True":
                tests.append(f"({key!r} not in {value} or {test})")
        return _all(tests)

    def _required(self, names: Any, value: str) -> str:
        """The test that object ``value`` has every field of ``names`` (one name: ``in``, a
        tenth of a set's comparison with the keys)."""
        if isinstance(names, list) and len(names) == 1 and isinstance(names[0], str):
            return f"{names[0]!r} in {value}"
        return f"{self.constant(frozenset(names))} <= {value}.keys()"

    def _closed_object(self, schema: Mapping[str, Any]) -> list[str]:
        """The statements testing an object whose type is object and whose other fields meet
        ``additionalProperties``: one pass over its fields, each tested where it is named."""
        lines = ["    if not isinstance(v, dict):", "        return False"]
        if schema.get("minProperties"):
            lines += [f"    if len(v) < {int(schema['minProperties'])}:", "        return False"]
        if schema.get("required"):
            needed = self._required(schema["required"], "v")
            lines += [f"    if not {needed}:", "        return False"]
        lines.append("    for k, x in v.items():")
        branch = "if"
        for key, sub in schema.get("properties", {}).items():
            lines += [f"        {branch} k == {key!r}:", *_unless(self.expression(sub, "x"))]
            branch = "elif"
        rest = self.expression(schema["additionalProperties"], "x")
        if branch == "if":
            return [*lines, *_unless(rest, "        ")]
        return [*lines, "        else:", *_unless(rest)]

    def _items(self, items: Any) -> str:
        """A function testing a list's items (a loop: no generator made for each list)."""
        test = self.expression(items, "i")
        self.functions += 1
        name = f"_f{self.functions}"
        self.source += [f"def {name}(v):", "    for i in v:", *_unless(test), "    return True", ""]
        return name

    def _combined(self, schema: Mapping[str, Any], value: str) -> list[str]:
        tests: list[str] = []
        if "allOf" in schema:
            tests += [self.expression(s, value) for s in schema["allOf"]]
        if "anyOf" in schema:
            tests.append(_any([self.expression(s, value) for s in schema["anyOf"]]))
        if "oneOf" in schema:
            branches = " + ".join(f"bool({self.expression(s, value)})" for s in schema["oneOf"])
            tests.append(f"({branches}) == 1")
        if "not" in schema:
            tests.append(f"not {self.expression(schema['not'], value)}")
        if "if" in schema:
            condition = self.expression(schema["if"], value)
            then = self.expression(schema.get("then", True), value)
            otherwise = self.expression(schema.get("else", True), value)
            tests.append(f"(({then}) if ({condition}) else ({otherwise}))")
        return tests


def _lengths(schema: Mapping[str, Any], value: str, least: str, most: str) -> list[str]:
    """The tests of a string's or a list's length bounds (``len`` counts code points, as
    JSON Schema's string lengths do)."""
    tests = []
    if schema.get(least):
        tests.append(f"len({value}) >= {int(schema[least])}")
    if most in schema:
        tests.append(f"len({value}) <= {int(schema[most])}")
    return tests


def _plain_constant(value: Any) -> bool:
    return isinstance(value, str) or value is True or value is False or value is None


def _distinct(items: list[Any]) -> bool:
    """No two items equal as JSON values are (``uniqueItems``): true is not 1, 1 is 1.0, an
    object's keys in any order. Any value may come (a date YAML read, a key that is a number),
    and none makes this raise; a list nested past Python's recursion limit counts as distinct
    (jsonschema itself cannot compare it)."""
    try:
        keys = [_json_key(item) for item in items]
    except RecursionError:
        return True
    return len(set(keys)) == len(keys)


def _json_key(value: Any) -> Any:
    """A hashable key equal for two values exactly when they are equal as JSON values."""
    if value is True or value is False:
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)  # 1 == 1.0, and their hashes agree
    if isinstance(value, list):
        return ("array", tuple(_json_key(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((("key", k), _json_key(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:  # nothing JSON holds: equal only to itself
        return ("other", id(value))
    return ("other", value)


def _is_closed_object(schema: Any) -> bool:
    """An object schema tested field by field in its own function: its type is object and it
    says what its unnamed fields must be (``additionalProperties``, false or a schema)."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and schema.get("additionalProperties", True) is not True
    )


def _unless(test: str, indent: str = "            ") -> list[str]:
    """Statements returning False when ``test`` (an expression) does not hold."""
    if test == "True":
        return [f"{indent}pass"]
    if test == "False":
        return [f"{indent}return False"]
    return [f"{indent}if not ({test}):", f"{indent}    return False"]


def _all(tests: list[str]) -> str:
    tests = [t for t in tests if t != "True"]
    if not tests:
        return "True"
    return tests[0] if len(tests) == 1 else "(" + " and ".join(tests) + ")"


def _any(tests: list[str]) -> str:
    return tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")"
