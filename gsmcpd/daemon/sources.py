"""
Where a setting's text comes from: the command line, the environment, a
TOML configuration file, or its default, in that order of precedence.

A configuration file names settings as the options do, without the dashes::

    port = "tcp:8000:interface=127.0.0.1"
    max-sessions = 8
    allowed-origin = ["http://localhost:3000"]
    toolset-options = { mutation = { confirmDestructive = true } }

It is read with the standard library's L{tomllib}; a key that names no
setting is refused, so a misspelt one is never silently ignored.
"""

import difflib
import json
import tomllib
from collections.abc import Collection
from typing import Any

import attr

OPTION, ENVIRONMENT, FILE, DEFAULT = "option", "environment", "file", \
    "default"
VALUE, FLAG, LIST = "value", "flag", "list"
"""The kinds of setting: one text, on/off, or any number of texts."""
CONFIG_OPTION, CONFIG_VARIABLE = "config", "GSMCP_CONFIG"


class SettingsFileError(ValueError):
    """
    The configuration file cannot be used; the message says why in one
    line, naming the file and the key.
    """


@attr.s(frozen=True, auto_attribs=True)
class Source:
    """
    Where one setting's text was found.

    @ivar kind: L{OPTION}, L{ENVIRONMENT}, L{FILE} or L{DEFAULT}.
    @ivar name: the option (C{--call-timeout}), the variable, or the
        file's key, as it was spelled there.
    @ivar path: the configuration file, for L{FILE}.
    @ivar given: what was written there, as it was written.
    """

    kind: str
    name: str = ""
    path: str | None = None
    given: object = attr.ib(default=None, eq=False)

    def prefix(self) -> str:
        """
        How a refusal of this source's text starts.
        """
        if self.kind == OPTION:
            return f"{self.name} "
        if self.kind == ENVIRONMENT:
            return f"{self.name}="
        if self.kind == FILE:
            return f"{self.path}: {self.name} = "
        return "the default "

    def describe(self) -> str:
        """
        Where the value came from, for C{gsmcpd check}.
        """
        if self.kind == FILE:
            return f"{self.path} ({self.name})"
        if self.kind == DEFAULT:
            return "default"
        return self.name


DEFAULT_SOURCE = Source(DEFAULT)


@attr.s(frozen=True, auto_attribs=True)
class SettingsFile:
    """
    The settings a TOML file gives, by option name.
    """

    path: str | None = None
    values: dict[str, Any] = attr.ib(factory=dict)

    @classmethod
    def load(cls, path: str | None, known: Collection[str]) -> "SettingsFile":
        """
        Read C{path}; C{known} is every name a key may take.

        @raise SettingsFileError: the file cannot be read, is not TOML, or
            names a setting there is none of.
        """
        if not path:
            return cls()
        try:
            with open(path, "rb") as f:
                values = tomllib.load(f)
        except OSError as e:
            raise SettingsFileError(f"--config {path}: {e.strerror}")
        except tomllib.TOMLDecodeError as e:
            raise SettingsFileError(f"--config {path}: not TOML: {e}")
        for key in values:
            if key not in known:
                close = difflib.get_close_matches(key, known, 1)
                raise SettingsFileError(
                    f"{path}: {key!r} is not a setting"
                    + (f" (did you mean {close[0]!r}?)" if close else
                       " (gsmcpd serve --help lists them)"))
        return cls(path, values)

    def find(self, key: str) -> tuple[Any, Source | None]:
        """
        The value under C{key} and its L{Source}, or C{(None, None)}.
        """
        if key not in self.values:
            return None, None
        value = self.values[key]
        return value, Source(FILE, key, self.path, value)


def shaped(kind: str, raw: Any, source: Source) -> Any:
    """
    A setting's raw value from C{source} in the shape a setting of C{kind}
    parses: for L{LIST}, a list of texts; for L{FLAG}, C{True}/C{False}, or
    a variable's text; for L{VALUE}, the text or L{None}.

    @raise SettingsFileError: for a file's value of the wrong type.
    """
    if kind == FLAG:
        if source.kind == ENVIRONMENT:
            return raw
        return fileFlag(raw, source) if source.kind == FILE else bool(raw)
    if kind == LIST:
        if source.kind == ENVIRONMENT:
            return raw.split()
        return fileList(raw, source) if source.kind == FILE else raw or []
    return fileText(raw, source) if source.kind == FILE else raw


def fileText(value: object, source: Source) -> str:
    """
    A TOML value as the text its setting parses: a number as written, a
    list of words space-separated, a table as JSON.

    @raise SettingsFileError: for a value no setting takes as text.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise SettingsFileError(f"{source.prefix()}{value!r}: expected text "
                                "or a number, not true/false")
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list) and all(isinstance(each, str)
                                       for each in value):
        return " ".join(value)
    if isinstance(value, dict):
        return json.dumps(value)
    raise SettingsFileError(f"{source.prefix()}{value!r}: expected text, a "
                            "number, a list of text or a table")


def fileFlag(value: object, source: Source) -> bool:
    if not isinstance(value, bool):
        raise SettingsFileError(f"{source.prefix()}{value!r}: expected true "
                                "or false")
    return value


def fileList(value: object, source: Source) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(each, str)
                                       for each in value):
        return value
    raise SettingsFileError(f"{source.prefix()}{value!r}: expected a list "
                            "of text")
