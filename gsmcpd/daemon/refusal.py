"""
Refusing to start: one line naming the setting or the cause, and a
non-zero exit status, so systemd's C{Restart=on-failure} retries a daemon
that came up before its stone.

A refusal that follows option parsing (a failed login, a port in use)
happens with the reactor running; the service logs its one line and stops
the reactor, and twistd then returns as after any stop.  So the status is
set on the way out of the process.
"""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.python.failure import Failure
from twisted.python.usage import Options

from gsmcpd.daemon import Reactor
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.observe.logformat import JSON_LOGGER, jsonLogObserver
from gsmcpd.transport.connections import LISTEN_BACKLOG
from gsmcpd.transport.tls import splitDescription

EXIT_REFUSED = 1
if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config
    from gsmcpd.daemon.service import GsmcpService

QUEUED = frozenset({"tcp", "tcp6", "ssl", "unix"})
"""The endpoint kinds that listen with a backlog (a C{systemd:} socket has
its unit's C{Backlog=})."""


def exitNonZeroIfRefused(service: GsmcpService,
                         exit: Callable[[int], object] = os._exit
                         ) -> Callable[[], None]:
    """
    Make the process exit with L{EXIT_REFUSED} if C{service} (whose
    C{whenServing()} fails when it refuses to start) refuses.

    Only for a process that runs one daemon and then ends (twistd, gsmcpd
    serve): the status is set after every other exit handler registered
    since, by C{os._exit}, once the streams are flushed.
    """
    refused: list[Failure] = []
    service.whenServing().addErrback(refused.append)

    def exitIfRefused() -> None:
        if refused:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            exit(EXIT_REFUSED)

    atexit.register(exitIfRefused)
    return exitIfRefused


def parseEndpoint(reactor: Reactor, description: str) -> IStreamServerEndpoint:
    """
    The server endpoint C{description} names; one that queues connections
    queues L{LISTEN_BACKLOG} unless it says how many.

    @raise ValueError: saying why it names none, in one line (Twisted's
        parsers also raise L{OSError} for an unreadable certificate and
        L{IndexError} for a C{systemd:} index systemd passed no socket for).
    """
    kind, _, keywords = splitDescription(description)
    if kind in QUEUED and "backlog" not in keywords:
        description += f":backlog={LISTEN_BACKLOG}"
    try:
        return serverFromString(reactor, description)
    except ValueError:
        raise
    except OSError as e:
        raise ValueError(f"cannot read {e.filename or 'a file it names'}: "
                         f"{e.strerror or e}")
    except IndexError:
        if description.startswith("systemd:"):
            raise ValueError("systemd passed no socket at that index (start "
                             "the daemon through its .socket unit)")
        raise ValueError("incomplete endpoint description")
    except Exception as e:
        # pyOpenSSL's errors for a certificate or key that is not one.
        raise ValueError(f"{type(e).__name__}: {e}")


def underTwistd(service: GsmcpService, config: Config,
                options: Options) -> GsmcpService:
    """
    What running under twistd (or C{gsmcpd serve}) adds to C{service}: a
    non-zero exit after a refusal, and JSON logs only through twistd's
    C{--logger}, which twistd set up before the settings were read.

    @raise ConfigError: C{--log-format json} without that logger.
    """
    parent = getattr(options, "parent", None)
    if parent is None:
        return service
    # twistd has turned the option's name into the callable by now.
    if config.logFormat == "json" and \
            parent.get("logger") not in (jsonLogObserver, JSON_LOGGER):
        raise ConfigError(f"--log-format json: under twistd, pass twistd "
                          f"--logger {JSON_LOGGER} (gsmcpd serve does)")
    exitNonZeroIfRefused(service)
    return service
