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
reads the command line, else the environment, else the default, parses
each, and builds the class.  A value that does not parse is refused with one
line naming where it came from (the option, or the variable).

A parser takes the text and answers the value, or raises L{ValueError}
saying what was expected.  A default is text, parsed like given text, so
C{--help} shows it as an operator would write it.
"""

import os

import attr
from twisted.python import usage

ENVIRON_PREFIX = "GSMCP_"
VALUE, FLAG, LIST = "value", "flag", "list"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})
_METADATA_KEY = "gsmcpd.setting"


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
    """

    option: str
    help: str
    parse: object
    default: str | None
    environ: str
    kind: str = VALUE

    @property
    def usage(self):
        """
        The C{--help} line.
        """
        line = f"{self.help} [{self.environ}]"
        return line + (f" (default: {self.default})" if self.default else "")

    def value(self, text, source):
        """
        C{text} parsed; C{source} names where it came from (C{"--option "}
        or C{"VARIABLE="}).

        @raise ConfigError: naming the source, when it does not parse.
        """
        try:
            return self.parse(text)
        except ValueError as e:
            raise ConfigError(f"{source}{text!r}: {e}")

    def read(self, given, environ):
        """
        This setting's value: from the command line (C{given}, as
        L{usage.Options} holds it), else the environment, else the default.
        A variable set to nothing counts as unset, as environment files
        write it.
        """
        fromEnviron = environ.get(self.environ) or None
        source = f"--{self.option} "
        if self.kind == FLAG:
            return bool(given) or (
                fromEnviron is not None
                and self.value(fromEnviron, f"{self.environ}="))
        if self.kind == LIST:
            if not given and fromEnviron is not None:
                given, source = fromEnviron.split(), f"{self.environ}="
            return tuple(self.value(each, source) for each in given)
        if given is None and fromEnviron is not None:
            given, source = fromEnviron, f"{self.environ}="
        text = self.default if given is None else given
        return None if text is None else self.value(text, source)


def _declare(declared, default, secret):
    return attr.ib(default=default, repr=not secret,
                   metadata={_METADATA_KEY: declared})


def setting(option, help, parse=str, default=None, environ=None,
            secret=False):
    """
    Declare a setting taking one value.

    @param default: its text, parsed like given text; L{None}: unset.
    @param environ: the variable, when it is not C{GSMCP_} and the option
        in capitals.
    @param secret: never show the value in a C{repr}.
    """
    declared = Setting(option, help, parse, default,
                       environ or _environName(option))
    return _declare(declared, None if default is None else parse(default),
                    secret)


def flag(option, help, environ=None):
    """
    Declare an on/off setting: on when the option is given, or the variable
    says one of 1, true, yes, on.
    """
    declared = Setting(option, help, parseFlag, None,
                       environ or _environName(option), FLAG)
    return _declare(declared, False, False)


def repeatable(option, help, parse=str, environ=None):
    """
    Declare a setting given any number of times; its variable takes a
    space-separated list.  The value is a tuple.
    """
    declared = Setting(option, help, parse, None,
                       environ or _environName(option), LIST)
    return _declare(declared, (), False)


def _environName(option):
    return ENVIRON_PREFIX + option.upper().replace("-", "_")


def declaredSettings(cls):
    """
    The attribute name and L{Setting} of each setting C{cls} declares, in
    declaration order.
    """
    return [(field.name, field.metadata[_METADATA_KEY])
            for field in attr.fields(cls) if _METADATA_KEY in field.metadata]


def optionOf(cls, name):
    """
    How an operator names attribute C{name} of C{cls}: C{--option}.
    """
    return "--" + dict(declaredSettings(cls))[name].option


class SettingsOptions(usage.Options):
    """
    Options made from a class's declared settings by L{optionsFor}.
    """

    settingsClass = None

    def __init__(self):
        super().__init__()
        for _, declared in declaredSettings(self.settingsClass):
            if declared.kind == LIST:
                self[declared.option] = []

    def config(self, environ=None):
        """
        The settings class, built from the command line, else C{environ}
        (default: the process environment), else the defaults.

        @raise ConfigError: naming the setting at fault.
        """
        environ = os.environ if environ is None else environ
        return self.settingsClass(**{
            name: declared.read(self.get(declared.option), environ)
            for name, declared in declaredSettings(self.settingsClass)})


def optionsFor(cls, doc):
    """
    A L{usage.Options} class offering every setting C{cls} declares.
    """
    declared = [each for _, each in declaredSettings(cls)]
    namespace = {
        "__doc__": doc,
        "__module__": cls.__module__,
        "settingsClass": cls,
        "optFlags": [[each.option, None, each.usage]
                     for each in declared if each.kind == FLAG],
        "optParameters": [[each.option, None, None, each.usage]
                          for each in declared if each.kind == VALUE],
    }
    for each in declared:
        if each.kind == LIST:
            namespace["opt_" + each.option.replace("-", "_")] = \
                _appender(each)
    return type("Options", (SettingsOptions,), namespace)


def _appender(declared):
    def append(self, value):
        self[declared.option].append(value)
    append.__doc__ = f"{declared.usage} (repeatable)"
    return append


def parseFlag(text):
    """
    On or off, as an environment variable says it.
    """
    word = text.strip().lower()
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise ValueError("expected one of 1/0, true/false, yes/no, on/off")


def count(text):
    """
    An integer of zero or more.
    """
    if not text.strip().isdecimal():
        raise ValueError("expected a count (0 or more)")
    return int(text)


def countOrNone(text):
    """
    A positive integer, or C{none}.
    """
    if text.strip().lower() == "none":
        return None
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError("expected a positive count or 'none'")
    return count


def seconds(text):
    """
    A duration of zero seconds or more.
    """
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise ValueError("expected seconds")
    return value


def secondsOrNone(text):
    """
    A duration, or C{none} where that turns it off.
    """
    if text.strip().lower() == "none":
        return None
    try:
        return seconds(text)
    except ValueError:
        raise ValueError("expected seconds or 'none'")


def positiveSecondsOrNone(text):
    """
    A duration over zero, or C{none}.
    """
    value = secondsOrNone(text)
    if value == 0:
        raise ValueError("expected positive seconds or 'none'")
    return value


def words(text):
    """
    Names separated by spaces or commas.
    """
    return tuple(text.replace(",", " ").split())


def secretFile(path):
    """
    The first line of a file, so a password never appears on a command
    line or in the process table; a file others may read is refused.
    """
    try:
        with open(path, encoding="utf-8") as f:
            if os.fstat(f.fileno()).st_mode & 0o077:
                raise ValueError("group or others may read it: chmod 600 "
                                 "it")
            secret = f.readline().rstrip("\r\n")
    except OSError as e:
        raise ValueError(e.strerror)
    if not secret:
        raise ValueError("the file is empty")
    return secret
