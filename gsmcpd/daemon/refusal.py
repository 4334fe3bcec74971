"""
Refusing to start: one line naming the setting or the cause, and a
non-zero exit status, so systemd's C{Restart=on-failure} retries a daemon
that came up before its stone.

A refusal that follows option parsing (a failed login, a port in use)
happens with the reactor running; the service logs its one line and stops
the reactor, and twistd then returns as after any stop.  So the status is
set on the way out of the process.
"""

import atexit
import os
import sys

from twisted.internet.endpoints import serverFromString

EXIT_REFUSED = 1


def exitNonZeroIfRefused(service, exit=os._exit):
    """
    Make the process exit with L{EXIT_REFUSED} if C{service} (whose
    C{whenServing()} fails when it refuses to start) refuses.

    Only for a process that runs one daemon and then ends (twistd, gsmcpd
    serve): the status is set after every other exit handler registered
    since, by C{os._exit}, once the streams are flushed.
    """
    refused = []
    service.whenServing().addErrback(refused.append)

    def exitIfRefused():
        if refused:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            exit(EXIT_REFUSED)

    atexit.register(exitIfRefused)
    return exitIfRefused


def parseEndpoint(reactor, description):
    """
    The server endpoint C{description} names.

    @raise ValueError: saying why it names none, in one line (Twisted's
        parsers also raise L{OSError} for an unreadable certificate and
        L{IndexError} for a C{systemd:} index systemd passed no socket for).
    """
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
