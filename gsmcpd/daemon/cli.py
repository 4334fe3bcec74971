"""
The C{gsmcpd} command: C{serve}, C{check}, C{client-config}, C{--version}.

C{gsmcpd serve} is C{twistd --nodaemon --pidfile= gsmcp} run in this
process, so it takes exactly C{twistd gsmcp}'s options; the other commands
read the same settings (options, then C{GSMCP_*} variables) to know which
stone and which URL they are about.
"""

import os
import sys

from twisted.internet.task import react
from twisted.python import usage

from gsmcpd import __version__
from gsmcpd.daemon.clientconfig import (
    CLIENTS, Target, UnknownClient, endpointUrl, snippet)
from gsmcpd.daemon.options import DEFAULT_PORT, Config, Options
from gsmcpd.daemon.settings import ConfigError, declaredSettings
from gsmcpd.observe.logformat import JSON_LOGGER


def _variable(name):
    """
    The environment variable setting C{name} is read from, as declared:
    these commands read the settings the daemon reads.
    """
    return dict(declaredSettings(Config))[name].environ


LOG_FORMAT_VARIABLE = _variable("logFormat")
AUDIENCE_VARIABLE = _variable("authAudience")
PORT_VARIABLE = _variable("port")
ISSUER_VARIABLE = _variable("authIssuer")


class ClientConfigOptions(usage.Options):
    synopsis = "[options] CLIENT"
    longdesc = ("Print a ready configuration snippet for CLIENT, one of: "
                + ", ".join(CLIENTS) + ".  The URL comes from --url, else "
                f"{AUDIENCE_VARIABLE}, else the daemon's --port "
                f"({PORT_VARIABLE}); a bearer token is sent with --bearer or "
                f"when {ISSUER_VARIABLE} is set.")
    optFlags = [["bearer", None, "the daemon requires a bearer token"]]
    optParameters = [
        ["url", None, None, "the daemon's MCP URL as clients reach it"],
        ["name", None, "gemstone", "the name the client lists it under"],
        ["port", None, None,
         f"the daemon's endpoint (default: {PORT_VARIABLE})"],
    ]

    def parseArgs(self, client):
        self["client"] = client


class CheckOptions(Options):
    synopsis = "[options: those of gsmcpd serve]"
    longdesc = ("Check the GemStone setup these settings describe, one line "
                "per check; exit 1 if any check fails.")
    optFlags = [["templates", None, "run every template on the stone "
                 "instead (never commits) and report each"],
                ["json", None, "with --templates: the report as JSON"]]


class GsmcpdOptions(usage.Options):
    synopsis = "Usage: gsmcpd"
    longdesc = "Run, check and connect to gsmcpd: gsmcpd COMMAND --help."
    subCommands = [
        ["serve", None, usage.Options,
         "run the daemon in the foreground (twistd gsmcp's options; "
         "gsmcpd serve --help lists them)"],
        ["check", None, CheckOptions, "check the GemStone setup"],
        ["client-config", None, ClientConfigOptions,
         "print an MCP client's configuration for this daemon"],
    ]

    def opt_version(self):
        """
        Print gsmcpd's version and exit.
        """
        print(f"gsmcpd {__version__}")
        sys.exit(0)

    def postOptions(self):
        if self.subCommand is None:
            raise usage.UsageError("name a command: serve, check or "
                                   "client-config")


def serve(arguments, environ=None):
    """
    Run C{twistd -n gsmcp ARGUMENTS} here; answer the exit status.
    """
    from twisted.scripts.twistd import run
    environ = os.environ if environ is None else environ
    twistd = ["twistd", "--nodaemon", "--pidfile="]
    if _logFormat(arguments, environ) == "json":
        twistd += ["--logger", JSON_LOGGER]
    sys.argv = twistd + ["gsmcp", *arguments]
    try:
        run()
    except SystemExit as e:
        return _status(e)
    # A refusal after the reactor started sets the status on the way out
    # (gsmcpd.daemon.refusal).
    return 0


def _logFormat(arguments, environ):
    """
    The log format C{arguments} (else the environment) ask for; gsmcp's
    own option parsing checks it.
    """
    chosen = environ.get(LOG_FORMAT_VARIABLE) or "text"
    for index, argument in enumerate(arguments):
        if argument == "--log-format" and index + 1 < len(arguments):
            chosen = arguments[index + 1]
        elif argument.startswith("--log-format="):
            chosen = argument.partition("=")[2]
    return chosen


def _status(exit):
    if exit.code is None or isinstance(exit.code, int):
        return exit.code or 0
    print(exit.code, file=sys.stderr)
    return 1


def check(options):
    """
    Run the preflight, printing each line as it is known; answer 1 if any
    check failed.
    """
    from gsmcpd.daemon.check import Preflight
    try:
        config = options.config()
    except ConfigError as e:
        print(f"FAIL  settings: {e}")
        return 1
    if options["templates"]:
        from gsmcpd.daemon.templatecheck import checkTemplates
        return checkTemplates(config, options["json"])

    def printLine(finding):
        print(finding.line(), flush=True)

    def main(reactor):
        preflight = Preflight(config, reactor, printLine)
        return preflight.run().addCallback(
            lambda _: 1 if preflight.failed else 0)

    status = []
    try:
        react(lambda reactor: main(reactor).addCallback(status.append))
    except SystemExit as e:
        if e.code:
            return e.code
    return status[0] if status else 1


def clientConfig(options, environ=None):
    environ = os.environ if environ is None else environ
    # With authentication on, the audience is the URL clients use.
    url = options["url"] or environ.get(AUDIENCE_VARIABLE) or \
        endpointUrl(options["port"] or environ.get(PORT_VARIABLE)
                    or DEFAULT_PORT)
    bearer = options["bearer"] or bool(environ.get(ISSUER_VARIABLE))
    if url is None:
        print("gsmcpd client-config: the endpoint does not say which URL "
              "clients reach (socket activation?); pass --url",
              file=sys.stderr)
        return 2
    try:
        sys.stdout.write(snippet(options["client"], Target(
            url, options["name"], bearer)))
    except UnknownClient as e:
        print(f"gsmcpd client-config: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    """
    The console script.
    """
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        return serve(argv[1:])
    options = GsmcpdOptions()
    try:
        options.parseOptions(argv)
    except usage.UsageError as e:
        print(f"{options}\ngsmcpd: {e}", file=sys.stderr)
        return 2
    if options.subCommand == "check":
        return check(options.subOptions)
    return clientConfig(options.subOptions)


def run():
    sys.exit(main())
