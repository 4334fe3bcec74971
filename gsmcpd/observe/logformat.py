"""
Log formats an operator can feed to a log shipper: C{--log-format json}
writes one JSON object per event, one per line, through C{twisted.logger}.

C{twisted.logger.jsonFileLogObserver} exists, but it prefixes each record
with an ASCII record separator and writes every internal field; this keeps
the fields a person or a query needs: time, level, namespace, the rendered
message, the event's own structured fields, and a failure's traceback.
"""

import json
import sys
from datetime import UTC, datetime
from typing import IO, Any

from twisted.logger import FileLogObserver, LogEvent, formatEvent

LOG_FORMATS = ("text", "json")
JSON_LOGGER = "gsmcpd.observe.logformat.jsonLogObserver"
"""What twistd's C{--logger} takes for C{--log-format json}."""


def parseLogFormat(text: str) -> str:
    """
    A log format's name, as the C{--log-format} setting takes it.
    """
    if text not in LOG_FORMATS:
        raise ValueError(f"expected one of {', '.join(LOG_FORMATS)}")
    return text


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(each) for each in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


def eventAsJson(event: LogEvent) -> str:
    """
    One log event as a line of JSON (with its newline).
    """
    record: dict[str, Any] = {
        "time": datetime.fromtimestamp(
            event.get("log_time", 0), UTC).isoformat(
                timespec="milliseconds"),
        "level": getattr(event.get("log_level"), "name", None),
        "namespace": event.get("log_namespace"),
        "message": formatEvent(event),
    }
    for key, value in event.items():
        if not key.startswith("log_") and key not in record \
                and not key.startswith("_"):
            record[key] = _jsonable(value)
    failure = event.get("log_failure")
    if failure is not None:
        record["traceback"] = failure.getTraceback()
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def jsonLogObserver(outFile: IO[Any] | None = None) -> FileLogObserver:
    """
    An observer writing L{eventAsJson} lines to C{outFile} (standard
    output by default, which is the journal under systemd).  Also usable as
    C{twistd --logger gsmcpd.observe.logformat.jsonLogObserver}.
    """
    return FileLogObserver(sys.stdout if outFile is None else outFile,
                           eventAsJson)


def describeClient(clientInfo: object) -> str:
    """
    What a client said it is, for a log line: C{"claude-code 1.0.3"}.
    """
    if not isinstance(clientInfo, dict):
        return "an unnamed client"
    name = clientInfo.get("name") or "an unnamed client"
    version = clientInfo.get("version")
    return f"{name} {version}" if version else str(name)
