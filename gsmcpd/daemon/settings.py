"""
Declaring a setting once.

A setting is one attribute of a frozen attrs class, declared with its
option, help, parser and default::

    maxSessions = setting("max-sessions", "most GemStone sessions open at "
                          "once, or 'none'", parse=countOrNone, default="3")

The option C{--max-sessions}, the environment variable
C{GSMCP_MAX_SESSIONS} (for systemd's C{EnvironmentFile=}), its C{--help}
line and the attribute C{maxSessions} all follow from that declaration:
L{optionsFor} makes the twistd options of a class, L{SettingsOptions.config}
reads the command line, else the environment, else the configuration file
(L{gsmcpd.daemon.sources}), else the default, parses each, and builds the
class.  A value that does not parse is refused with one line naming where
it came from (the option, the variable, or the file and key).

A parser (L{gsmcpd.daemon.parsers}, imported here for declarations) takes
the text and answers the value, or raises L{ValueError} saying what was
expected.  A default is text, parsed like given text, so C{--help} shows it
as an operator would write it.
"""

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar, overload

import attr
from attr import AttrsInstance
from twisted.python import usage

from gsmcpd.daemon.parsers import (  # noqa: F401 (for declarations)
    count,
    countOrNone,
    countOrPercentage,
    endpoint,
    parseFlag,
    positiveSeconds,
    positiveSecondsOrNone,
    seconds,
    secondsOrNone,
    secretFile,
    words,
)
from gsmcpd.daemon.sources import (
    CONFIG_OPTION,
    CONFIG_VARIABLE,
    DEFAULT_SOURCE,
    ENVIRONMENT,
    FILE,
    FLAG,
    LIST,
    OPTION,
    VALUE,
    SettingsFile,
    SettingsFileError,
    Source,
    shaped,
)

ENVIRON_PREFIX = "GSMCP_"
CONNECTION, SESSIONS, AUTH, OPERATIONS = (
    "connection", "sessions", "auth", "operations")
GROUPS = (CONNECTION, SESSIONS, AUTH, OPERATIONS)
"""The parts of C{--help}, in order."""
NO_FILE = SettingsFile()
_METADATA_KEY = "gsmcpd.setting"
T = TypeVar("T")
C = TypeVar("C", bound=AttrsInstance)
Given = Mapping[str, Any]
"""The command line's values by option, as L{usage.Options} holds them."""


class ConfigError(Exception):
    """
    The configuration cannot work; the message names the setting.
    """


@attr.s(frozen=True, auto_attribs=True)
class Setting:
    """
    What a setting is called and how its text becomes a value.

    @ivar kind: L{VALUE} (one text), L{FLAG} (present or not) or L{LIST}
        (a repeatable option; the variable takes a space-separated list).
    @ivar group: which part of C{--help} lists it (one of L{GROUPS}).
    @ivar formerly: the option it was called before a rename, still
        accepted (option, variable and file key) with a warning.
    """

    option: str
    help: str
    parse: Callable[[str], Any]
    default: str | None
    environ: str
    kind: str = VALUE
    group: str = OPERATIONS
    formerly: str | None = None

    @property
    def usage(self) -> str:
        """
        The C{--help} line.
        """
        line = f"{self.help} [{self.environ}]"
        return line + (f" (default: {self.default})" if self.default else "")

    def value(self, text: str, source: Source) -> Any:
        """
        C{text} parsed; C{source} (a L{Source}) names where it came from.

        @raise ConfigError: naming the source, when it does not parse.
        """
        try:
            return self.parse(text)
        except ValueError as e:
            raise ConfigError(f"{source.prefix()}{text!r}: {e}")

    def _places(self) -> Iterator[tuple[str, str]]:
        """
        Each name this setting is found under: C{(option, variable)}, the
        current one first.
        """
        yield self.option, self.environ
        if self.formerly:
            yield self.formerly, _environName(self.formerly)

    def locate(self, given: Given, environ: Mapping[str, str],
               settingsFile: SettingsFile = NO_FILE) -> tuple[Any, Source]:
        """
        The raw value and L{Source} of the first place that sets this: the
        command line (C{given}, as L{usage.Options} holds it), else the
        environment, else the configuration file, else the default.  A
        variable set to nothing counts as unset, as environment files
        write it.
        """
        for option, _ in self._places():
            if given.get(option) not in (None, 0, []):
                return given[option], Source(OPTION, f"--{option}", None,
                                             given[option])
        for _, variable in self._places():
            if environ.get(variable):
                return environ[variable], Source(ENVIRONMENT, variable, None,
                                                 environ[variable])
        for option, _ in self._places():
            found, source = settingsFile.find(option)
            if source is not None:
                return found, source
        return self.default, DEFAULT_SOURCE

    def lookup(self, given: Given, environ: Mapping[str, str],
               settingsFile: SettingsFile = NO_FILE) -> tuple[Any, Source]:
        """
        This setting's value and the L{Source} it came from (see
        L{locate}).

        @raise ConfigError: naming the source, when it does not parse.
        """
        raw, source = self.locate(given, environ, settingsFile)
        try:
            return self._parsed(raw, source), source
        except SettingsFileError as e:
            raise ConfigError(str(e))

    def _parsed(self, raw: Any, source: Source) -> Any:
        raw = shaped(self.kind, raw, source)
        if self.kind == LIST:
            return tuple(self.value(each, source) for each in raw)
        if raw is None or isinstance(raw, bool):
            return raw
        return self.value(raw, source)

    def read(self, given: Given, environ: Mapping[str, str],
             settingsFile: SettingsFile = NO_FILE) -> Any:
        """
        This setting's value (see L{lookup}).
        """
        return self.lookup(given, environ, settingsFile)[0]

    def renamed(self, source: Source) -> str | None:
        """
        The warning for a value found under this setting's former name, or
        L{None}.
        """
        current = {OPTION: f"--{self.option}", ENVIRONMENT: self.environ,
                   FILE: self.option}.get(source.kind)
        if current in (None, source.name):
            return None
        where = f"{source.path}: " if source.kind == FILE else ""
        return (f"{where}{source.name} is deprecated and will be removed: "
                f"use {current}")


def _declare(declared: Setting, default: object, secret: bool) -> Any:
    return attr.ib(default=default, repr=not secret,
                   metadata={_METADATA_KEY: declared})


@overload
def setting(option: str, help: str, *, parse: Callable[[str], T],
            default: str, environ: str | None = None, secret: bool = False,
            group: str = OPERATIONS, formerly: str | None = None) -> T: ...


@overload
def setting(option: str, help: str, *, parse: Callable[[str], T],
            default: None = None, environ: str | None = None,
            secret: bool = False, group: str = OPERATIONS,
            formerly: str | None = None) -> T | None: ...


@overload
def setting(option: str, help: str, *, default: str,
            environ: str | None = None, secret: bool = False,
            group: str = OPERATIONS, formerly: str | None = None) -> str: ...


@overload
def setting(option: str, help: str, *, default: None = None,
            environ: str | None = None, secret: bool = False,
            group: str = OPERATIONS,
            formerly: str | None = None) -> str | None: ...


def setting(option: str, help: str, parse: Callable[[str], Any] = str,
            default: str | None = None, environ: str | None = None,
            secret: bool = False, group: str = OPERATIONS,
            formerly: str | None = None) -> Any:
    """
    Declare a setting taking one value.

    @param default: its text, parsed like given text; L{None}: unset.
    @param environ: the variable, when it is not C{GSMCP_} and the option
        in capitals.
    @param secret: never show the value in a C{repr}.
    @param group: the part of C{--help} that lists it (L{GROUPS}).
    @param formerly: its option before a rename, accepted for one release
        with a warning.
    """
    declared = Setting(option, help, parse, default,
                       environ or _environName(option), VALUE, group,
                       formerly)
    return _declare(declared, None if default is None else parse(default),
                    secret)


def flag(option: str, help: str, environ: str | None = None,
         group: str = OPERATIONS) -> bool:
    """
    Declare an on/off setting: on when the option is given, or the variable
    says one of 1, true, yes, on (a configuration file: true or false).
    """
    declared = Setting(option, help, parseFlag, None,
                       environ or _environName(option), FLAG, group)
    return _declare(declared, False, False)


@overload
def repeatable(option: str, help: str, *, parse: Callable[[str], T],
               environ: str | None = None,
               group: str = OPERATIONS) -> tuple[T, ...]: ...


@overload
def repeatable(option: str, help: str, *, environ: str | None = None,
               group: str = OPERATIONS) -> tuple[str, ...]: ...


def repeatable(option: str, help: str, parse: Callable[[str], Any] = str,
               environ: str | None = None, group: str = OPERATIONS) -> Any:
    """
    Declare a setting given any number of times; its variable takes a
    space-separated list (a configuration file: a list).  The value is a
    tuple.
    """
    declared = Setting(option, help, parse, None,
                       environ or _environName(option), LIST, group)
    return _declare(declared, (), False)


def _environName(option: str) -> str:
    return ENVIRON_PREFIX + option.upper().replace("-", "_")


def declaredSettings(cls: type[AttrsInstance]) -> list[tuple[str, Setting]]:
    """
    The attribute name and L{Setting} of each setting C{cls} declares, in
    declaration order.
    """
    return [(field.name, field.metadata[_METADATA_KEY])
            for field in attr.fields(cls) if _METADATA_KEY in field.metadata]


def optionOf(cls: type[AttrsInstance], name: str) -> str:
    """
    How an operator names attribute C{name} of C{cls}: C{--option}.
    """
    return "--" + dict(declaredSettings(cls))[name].option


def fileKeys(cls: type[AttrsInstance]) -> list[str]:
    """
    Every key a configuration file may hold for C{cls}: each setting's
    option, and a renamed one's former option.
    """
    return [name for _, declared in declaredSettings(cls)
            for name in (declared.option, declared.formerly) if name]


class SettingsOptions(usage.Options, Generic[C]):
    """
    Options made from a class's declared settings by L{optionsFor}.

    @ivar sources: after L{config}, the L{Source} of each attribute's value.
    @ivar warnings: after L{config}, a line for each setting given under a
        name that is going away.
    """

    settingsClass: type[C]

    def __init__(self) -> None:
        super().__init__()
        self.sources: dict[str, Source] = {}
        self.warnings: list[str] = []
        for _, declared in declaredSettings(self.settingsClass):
            if declared.kind == LIST:
                self[declared.option] = []

    def settingsFile(self, environ: Mapping[str, str]) -> SettingsFile:
        """
        The configuration file C{--config} (else C{GSMCP_CONFIG}) names,
        read; an empty one when neither does.

        @raise ConfigError: naming the file and the key at fault.
        """
        path = self.get(CONFIG_OPTION) or environ.get(CONFIG_VARIABLE)
        try:
            return SettingsFile.load(path, fileKeys(self.settingsClass))
        except SettingsFileError as e:
            raise ConfigError(str(e))

    def config(self, environ: Mapping[str, str] | None = None) -> C:
        """
        The settings class, built from the command line, else C{environ}
        (default: the process environment), else the configuration file,
        else the defaults.

        @raise ConfigError: naming the setting at fault.
        """
        environ = os.environ if environ is None else environ
        settingsFile = self.settingsFile(environ)
        values: dict[str, Any] = {}
        self.sources, self.warnings = {}, []
        for name, declared in declaredSettings(self.settingsClass):
            values[name], source = declared.lookup(self, environ,
                                                   settingsFile)
            self.sources[name] = source
            warning = declared.renamed(source)
            if warning:
                self.warnings.append(warning)
        return self.settingsClass(**values)


def optionsFor(cls: type[C], doc: str) -> type[SettingsOptions[C]]:
    """
    A L{usage.Options} class offering every setting C{cls} declares, and
    C{--config}.
    """
    declared = [each for _, each in declaredSettings(cls)]
    namespace = {
        "__doc__": doc,
        "__module__": cls.__module__,
        "settingsClass": cls,
        "optFlags": [[each.option, None, each.usage]
                     for each in declared if each.kind == FLAG],
        "optParameters": [
            [CONFIG_OPTION, None, None, "TOML file of settings named as the "
             f"options [{CONFIG_VARIABLE}]"]] + [
            [each.option, None, None, each.usage]
            for each in declared if each.kind == VALUE] + [
            [each.formerly, None, None, f"deprecated: use --{each.option}"]
            for each in declared if each.formerly],
    }
    for each in declared:
        if each.kind == LIST:
            namespace["opt_" + each.option.replace("-", "_")] = \
                _appender(each)
    return type("Options", (SettingsOptions,), namespace)


def _appender(declared: Setting) -> Callable[[usage.Options, str], None]:
    def append(self: usage.Options, value: str) -> None:
        self[declared.option].append(value)
    append.__doc__ = f"{declared.usage} (repeatable)"
    return append
