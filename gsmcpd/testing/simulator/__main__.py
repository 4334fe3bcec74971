"""
Run the simulated stone: C{python -m gsmcpd.testing.simulator --socket PATH}.

A test double, not GemStone: it says so on its one line of output, which
also tells a launcher it is ready.
"""

import argparse
import os
import signal
import sys
import threading

from gsmcpd.testing.simulator import kernelrepo
from gsmcpd.testing.simulator.server import StoneServer
from gsmcpd.testing.simulator.stone import (
    DEFAULT_PASSWORD,
    DEFAULT_USER,
    Stone,
    seededRepository,
)

REPOSITORIES = {"demo": seededRepository, "kernel": kernelrepo.repository}
"""What C{--repository} names: a function answering a new Repository."""

LABELS = {"demo": "demo repository", "kernel": "GENERATED kernel-sized repository"}
"""How the ready line names each."""


def parseArguments(argv):
    parser = argparse.ArgumentParser(
        prog="python -m gsmcpd.testing.simulator",
        description="A simulated GemStone stone for gsmcpd's tests and demo "
                    "(a test double, not GemStone).")
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on "
                        "(give its path to GciTsLogin as the stone NRS)")
    parser.add_argument("--max-logins", type=int, default=10,
                        help="refuse logins past this many sessions (default 10)")
    parser.add_argument("--user", default=DEFAULT_USER,
                        help=f"the GemStone user name (default {DEFAULT_USER})")
    parser.add_argument("--password-file",
                        help=f"a file holding the user's password (default {DEFAULT_PASSWORD})")
    parser.add_argument("--worker-user", action="append", default=[], metavar="NAME",
                        help="seed a restricted user NAME (commit-locked, no privileges "
                             "but compiling, a password nobody is told) that the main "
                             "user may mint one-time passwords for; McpReadOnly is "
                             "always seeded (repeatable)")
    parser.add_argument("--repository", choices=sorted(REPOSITORIES), default="demo",
                        help="the code the stone starts with: demo (a few classes, the "
                             "default) or kernel (a GENERATED kernel-sized repository: "
                             "1,500 classes, 60,000 methods, built in a few seconds)")
    parser.add_argument("--exit-on-stdin-eof", action="store_true",
                        help="stop when standard input closes (so a launcher that dies "
                             "takes its stone with it)")
    return parser.parse_args(argv)


def _stop(signum, frame):
    raise SystemExit(0)


def _stopAtEndOfInput():
    """
    Stop (as SIGTERM would) once standard input reaches end of file.
    """
    def watch():
        # The raw descriptor, not sys.stdin: a daemon thread blocked in a
        # buffered read would hold its lock through interpreter shutdown.
        while os.read(sys.stdin.fileno(), 4096):
            pass
        os.kill(os.getpid(), signal.SIGTERM)
    threading.Thread(target=watch, daemon=True).start()


def _allowDeepRecursion():
    """
    Let recursive Smalltalk blocks go a few thousand sends deep before the
    evaluator gives up, as a gem's stack would.
    """
    threading.stack_size(64 * 1024 * 1024)
    sys.setrecursionlimit(20000)


def main(argv=None):
    options = parseArguments(sys.argv[1:] if argv is None else argv)
    password = DEFAULT_PASSWORD
    if options.password_file:
        with open(options.password_file, encoding="utf-8") as f:
            password = f.read().strip()
    _allowDeepRecursion()
    stone = Stone(users={options.user: password}, maxLogins=options.max_logins,
                  restrictedUsers=tuple(options.worker_user),
                  repository=REPOSITORIES[options.repository]())
    server = StoneServer(stone, options.socket)
    try:
        server.listen()
    except OSError as e:
        print(f"gsmcpd simulated stone: cannot listen on {options.socket}: {e}",
              file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    if options.exit_on_stdin_eof:
        _stopAtEndOfInput()
    try:
        # Inside the try: a launcher that stops us the moment it reads this
        # line can land its SIGTERM while the line is still being written.
        print(f"gsmcpd simulated stone {stone.name} (a test double, not GemStone "
              f"{stone.version}, {LABELS[options.repository]}) listening on "
              f"{options.socket}", flush=True)
        server.serveForever()
    except SystemExit:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
