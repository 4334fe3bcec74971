"""
Checking a tool's arguments: the caps every argument carries, the strict
JSON Schema validator, and a fast path for the plain schemas most tools
have.  Kept apart from L{gsmcpd.tools.base} because a hostile request's
first line of defence should be readable on its own.
"""

import re
from collections.abc import Callable, Iterator
from typing import Any

import attr
import jsonschema

TEXT_ARGUMENTS = frozenset({"code", "source", "comment"})
"""String arguments that carry Smalltalk source or prose, not a name."""
MAX_TEXT_LENGTH = 1 << 20
"""Characters in a do-it, a method source or a class comment: GemStone's
own kernel has no method source near this."""
MAX_NAME_LENGTH = 1024
"""Characters in any other string argument: a name, a selector, a
category, a search pattern."""
MAX_ITEMS = 1024
"""Elements of an array argument (instance variables, class names)."""
MAX_INTEGER = (1 << 30) - 1
"""The largest integer argument (a limit, an offset): a SmallInteger on
every GemStone."""

Schema = dict[str, Any]
"""A JSON Schema, or one of its parts."""
JsonObject = dict[str, Any]
"""A JSON object: a call's arguments, a structured result."""


def _tooLong(kind: str, measure: str) -> Callable[..., Iterator[
        jsonschema.ValidationError]]:
    """
    A C{maxItems}/C{maxLength} check whose message does not quote the
    value: the stock one renders a million elements to say it is too long.
    """
    def check(validator: Any, limit: int, instance: Any,
              schema: Schema) -> Iterator[jsonschema.ValidationError]:
        if validator.is_type(instance, kind) and len(instance) > limit:
            yield jsonschema.ValidationError(
                f"{len(instance)} {measure} is more than the {limit} "
                f"allowed")

    return check


STRICT_VALIDATOR = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    validators={"maxItems": _tooLong("array", "items"),
                "maxLength": _tooLong("string", "characters")},
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda checker, value: isinstance(value, int)
        and not isinstance(value, bool)))
"""JSON Schema 2020-12, except that C{1.0} is not an integer (a template
would render it as a Float) and a value too long is not quoted."""


def capped(schema: Schema, name: str | None = None) -> Schema:
    """
    C{schema} with a C{maxLength}, C{maxItems} or C{maximum} on every
    string, array and integer that does not set its own, so no single
    argument can make a request freeze the daemon.  The cap comes first:
    validation checks keywords in order, and a million elements must be
    refused before each is checked.
    """
    kind = schema.get("type")
    caps = {"string": ("maxLength", MAX_TEXT_LENGTH if name in TEXT_ARGUMENTS
                       else MAX_NAME_LENGTH),
            "integer": ("maximum", MAX_INTEGER),
            "array": ("maxItems", MAX_ITEMS)}
    # A nullable argument lists its types: each is capped.
    kinds = kind if isinstance(kind, list) else [kind]
    schema = dict([caps[each] for each in kinds if each in caps], **schema)
    if "items" in schema:
        schema["items"] = capped(schema["items"], name)
    if "properties" in schema:
        schema["properties"] = {key: capped(value, key) for key, value
                                in schema["properties"].items()}
    return schema


DEFAULT_CAPS = frozenset({
    ("maxLength", MAX_NAME_LENGTH), ("maxLength", MAX_TEXT_LENGTH),
    ("maximum", MAX_INTEGER), ("maxItems", MAX_ITEMS)})
"""The caps L{capped} gives every argument that sets none: the daemon's
guard, enforced whether or not a listing shows it."""


def uncapped(schema: Schema) -> Schema:
    """
    C{schema} without the default caps (L{DEFAULT_CAPS}); a cap a tool
    sets itself stays.
    """
    schema = {key: value for key, value in schema.items()
              if not (isinstance(value, int) and (key, value) in DEFAULT_CAPS)}
    if "items" in schema:
        schema["items"] = uncapped(schema["items"])
    if "properties" in schema:
        schema["properties"] = {key: uncapped(value) for key, value
                                in schema["properties"].items()}
    if "anyOf" in schema:
        schema["anyOf"] = [uncapped(each) for each in schema["anyOf"]]
    return schema


_PLAIN_TYPES = {"string": str, "integer": int, "boolean": bool}
_PLAIN_KEYWORDS = frozenset({"type", "description", "default", "minLength",
                             "maxLength", "minimum", "maximum", "pattern"})


@attr.s(frozen=True, auto_attribs=True)
class PlainArguments:
    """
    A closed input schema whose arguments are all plain strings, integers
    or booleans, checked without jsonschema: most tools' schemas are, and
    jsonschema costs more than the rest of a call's dispatch.  It only ever
    accepts what jsonschema accepts; anything else goes to jsonschema for
    the verdict and the message.
    """

    properties: dict[str, tuple[Any, ...]]
    required: frozenset[str]

    @classmethod
    def of(cls, schema: Schema) -> "PlainArguments | None":
        """
        The check for C{schema}, or L{None} when it is not that plain.
        """
        if set(schema) - {"type", "properties", "required",
                          "additionalProperties"} or \
                schema.get("additionalProperties") is not False:
            return None
        properties = {}
        for name, each in schema["properties"].items():
            if set(each) - _PLAIN_KEYWORDS or each.get("type") not in \
                    _PLAIN_TYPES:
                return None
            pattern = each.get("pattern")
            properties[name] = (_PLAIN_TYPES[each["type"]],
                                each.get("minLength"), each.get("maxLength"),
                                each.get("minimum"), each.get("maximum"),
                                pattern and re.compile(pattern))
        return cls(properties, frozenset(schema.get("required", ())))

    def accepts(self, arguments: JsonObject) -> bool:
        if not self.required <= arguments.keys():
            return False
        for name, value in arguments.items():
            found = self.properties.get(name)
            if found is None:
                return False
            kind, minLength, maxLength, minimum, maximum, pattern = found
            # bool is an int in Python, not in JSON Schema.
            if type(value) is not kind or (
                    minLength is not None and len(value) < minLength) or (
                    maxLength is not None and len(value) > maxLength) or (
                    minimum is not None and value < minimum) or (
                    maximum is not None and value > maximum) or (
                    pattern is not None and not pattern.search(value)):
                return False
        return True


IDENTIFIER = r"^[A-Za-z][A-Za-z0-9_]*(?![\s\S])"
"""Anchored at the very end in both regex dialects a schema meets: Python's
C{$} also matches before a trailing newline, and C{\\Z} is not ECMA-262."""

STRING = {"type": "string"}
OPTIONAL_STRING = {"type": ["string", "null"]}
BOOLEAN = {"type": "boolean"}
INTEGER = {"type": "integer"}


def _described(description: str | None) -> Schema:
    return {} if description is None else {"description": description}


def stringArgument(description: str | None = None,
                   **constraints: Any) -> Schema:
    """
    A string argument's schema; a description only where the name and the
    tool's own description leave something unsaid.
    """
    return dict(STRING, **_described(description), **constraints)


def nonEmptyArgument(description: str | None = None) -> Schema:
    """
    A name, selector or pattern argument: an empty one names nothing, so
    the schema refuses it before a template runs.
    """
    return stringArgument(description, minLength=1)


def namesArgument(description: str | None = None) -> Schema:
    return {"type": "array", **_described(description),
            "items": {"type": "string", "pattern": IDENTIFIER}}


def flagArgument(description: str) -> Schema:
    return dict(BOOLEAN, description=description)


META = flagArgument("class side (default false)")
"""The C{meta} argument of a tool that names a method."""
