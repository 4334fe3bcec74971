"""
The parsers settings declare: each takes the text an operator wrote and
answers the value, or raises L{ValueError} saying what it expected.
"""

import json
import os

import attr

from gsmcpd.protocol.jsonrpc import JsonObject

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})
LOOPBACK_ENDPOINT = "tcp:{}:interface=127.0.0.1"
"""What a bare port number means: that port, on loopback only."""
TOOLSET_OPTIONS_EXAMPLE = '{"mutation": {"confirmDestructive": true}}'
"""An example that works with the default toolsets."""


def parseFlag(text: str) -> bool:
    """
    On or off, as an environment variable says it.
    """
    word = text.strip().lower()
    if word in TRUE_WORDS or word in FALSE_WORDS:
        return word in TRUE_WORDS
    raise ValueError("expected one of 1/0, true/false, yes/no, on/off")


def count(text: str) -> int:
    """
    An integer of zero or more.
    """
    if not text.strip().isdecimal():
        raise ValueError("expected a count (0 or more)")
    return int(text)


def countOrNone(text: str) -> int | None:
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


def seconds(text: str) -> float:
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


def secondsOrNone(text: str) -> float | None:
    """
    A duration, or C{none} where that turns it off.
    """
    if text.strip().lower() == "none":
        return None
    try:
        return seconds(text)
    except ValueError:
        raise ValueError("expected seconds or 'none'")


def positiveSecondsOrNone(text: str) -> float | None:
    """
    A duration over zero, or C{none}.
    """
    value = secondsOrNone(text)
    if value == 0:
        raise ValueError("expected positive seconds or 'none'")
    return value


def positiveSeconds(text: str) -> float:
    """
    A duration over zero.
    """
    value = seconds(text)
    if value == 0:
        raise ValueError("expected positive seconds")
    return value


@attr.s(frozen=True, auto_attribs=True)
class Percentage:
    """
    A share of a count known elsewhere, as C{50%} says it.
    """

    percent: int

    def of(self, total: int) -> int:
        """
        This share of C{total}, rounded down but at least 1.
        """
        return max(1, total * self.percent // 100)


def countOrPercentage(text: str) -> int | Percentage | None:
    """
    A positive integer, a L{Percentage} (C{50%}, 1 to 100), or C{none}.
    """
    if text.strip().endswith("%"):
        number = text.strip()[:-1]
        if number.isdecimal() and 1 <= int(number) <= 100:
            return Percentage(int(number))
        raise ValueError("expected a percentage from 1% to 100%")
    try:
        return countOrNone(text)
    except ValueError:
        raise ValueError("expected a positive count, a percentage such as "
                         "50%, or 'none'")


def words(text: str) -> tuple[str, ...]:
    """
    Names separated by spaces or commas.
    """
    return tuple(text.replace(",", " ").split())


def secretFile(path: str) -> str:
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


def endpoint(text: str) -> str:
    """
    A Twisted server endpoint description; a bare port number means that
    port on 127.0.0.1, the one place an endpoint is safe without more
    settings.
    """
    if text.strip().isdecimal():
        return LOOPBACK_ENDPOINT.format(int(text))
    return text


def toolsetOptions(text: str) -> dict[str, JsonObject]:
    """
    Per-toolset options: a JSON object of objects.
    """
    try:
        options = json.loads(text)
    except ValueError as e:
        raise ValueError(f"is not JSON: {e}")
    if not isinstance(options, dict) or not all(
            isinstance(each, dict) for each in options.values()):
        raise ValueError("must be an object of objects, e.g. "
                         + TOOLSET_OPTIONS_EXAMPLE)
    return options
