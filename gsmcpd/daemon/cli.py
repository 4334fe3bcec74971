"""
The C{gsmcpd} command: C{serve}, C{check}, C{client-config}, C{audit
verify}, C{--version}.

C{gsmcpd serve} is C{twistd --nodaemon --pidfile= gsmcp} run in this
process, so it takes exactly C{twistd gsmcp}'s options (its C{--help} is
gsmcpd's own, L{gsmcpd.daemon.manual}); the other commands read the same
settings (options, then C{GSMCP_*} variables, then the C{--config} file) to
know which stone and which URL they are about.  C{gsmcpd --config FILE
COMMAND} is C{gsmcpd COMMAND --config FILE}.
"""

from __future__ import annotations

import getopt
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, cast

from twisted.internet.defer import Deferred
from twisted.internet.task import react
from twisted.python import usage

from gsmcpd.daemon import Reactor
from gsmcpd.daemon.clientconfig import (
    CLIENTS,
    Target,
    UnknownClient,
    endpointUrl,
    snippet,
)
from gsmcpd.daemon.manual import helpText
from gsmcpd.daemon.options import Config, Options, printVersion
from gsmcpd.daemon.parsers import secretFile
from gsmcpd.daemon.settings import ConfigError, declaredSettings, fileKeys
from gsmcpd.daemon.sources import (
    CONFIG_OPTION,
    CONFIG_VARIABLE,
    SettingsFile,
    SettingsFileError,
)
from gsmcpd.observe.auditchain import verify
from gsmcpd.observe.logformat import JSON_LOGGER

if TYPE_CHECKING:
    # Imported where they are used: only their commands need them.
    from gsmcpd.daemon.check import Finding
    from gsmcpd.daemon.templatereport import Report

DECLARED = dict(declaredSettings(Config))
"""These commands read the settings the daemon reads, as declared."""
AUDIENCE_VARIABLE = DECLARED["authAudience"].environ
PORT_VARIABLE = DECLARED["port"].environ
ISSUER_VARIABLE = DECLARED["authIssuer"].environ
HELP_OPTIONS = ("--help", "-h")


class ClientConfigOptions(usage.Options):
    synopsis = "[options] CLIENT"
    longdesc = ("Print a ready configuration snippet for CLIENT, one of: "
                + ", ".join(CLIENTS) + ".  The URL comes from --url, else "
                f"{AUDIENCE_VARIABLE}, else the daemon's --port "
                f"({PORT_VARIABLE}); a bearer token is sent with --bearer or "
                f"when {ISSUER_VARIABLE} is set.")
    optFlags = [["bearer", None, "the daemon requires a bearer token"]]
    opt_version = printVersion
    optParameters = [
        ["url", None, None, "the daemon's MCP URL as clients reach it"],
        ["name", None, "gemstone", "the name the client lists it under"],
        ["port", None, None,
         f"the daemon's endpoint, or a bare port on 127.0.0.1 (default: "
         f"{PORT_VARIABLE}, else the --config file's port)"],
        [CONFIG_OPTION, None, None,
         f"the daemon's TOML settings file [{CONFIG_VARIABLE}]"],
    ]

    def parseOptions(self, options: Sequence[str] | None = None) -> None:
        """
        Options may follow the client's name (C{client-config cursor --port
        8001}): they are all taken before it, as getopt's GNU order does.
        """
        if options is None:
            options = sys.argv[1:]
        try:
            found, names = getopt.gnu_getopt(options, self.shortOpt, self.longOpt)
        except getopt.error as e:
            raise usage.UsageError(str(e))
        spelled = []
        for option, value in found:
            if option.startswith("--"):
                spelled.append(option if option[2:] in self.longOpt
                               else f"{option}={value}")
            else:
                spelled += [option, value] if f"{option[1]}:" in self.shortOpt \
                    else [option]
        super().parseOptions([*spelled, "--", *names])

    def parseArgs(self, client: str | None = None) -> None:
        if client is None:
            raise usage.UsageError("name a client: " + ", ".join(CLIENTS))
        self["client"] = client


class CheckOptions(Options):
    synopsis = "[options: those of gsmcpd serve]"
    optFlags = [["templates", None, "run every template on the stone "
                 "instead (never commits) and report each"],
                ["commit-probe", None, "with --templates: run commit's "
                 "success and conflict paths too, in two sessions of its "
                 "own (commits, then removes, UserGlobals at: "
                 "#GsmcpdCommitProbe)"],
                ["json", None, "with --templates: the report as JSON"]]

    def postOptions(self) -> None:
        super().postOptions()
        if self["commit-probe"] and not self["templates"]:
            raise usage.UsageError("--commit-probe is part of --templates")

    def opt_help(self) -> NoReturn:
        """
        Display this help and exit.
        """
        sys.stdout.write(helpText(Config, "check"))
        sys.exit(0)


class VerifyOptions(usage.Options):
    synopsis = "[--audit-key-file FILE] [--continues DIGEST] FILE..."
    longdesc = ("Check the hash chain of an --audit-log trail: each line "
                "names the digest of the line before it, and each file "
                "starts with its head, the first file's a genesis.  Give "
                "rotated files oldest first to check them as one trail.  "
                "Exits 0 when it holds, naming the last line's digest, 1 "
                "naming the first line that breaks it.")
    optParameters = [
        ["audit-key-file", None, None, "file holding the key the daemon "
         "chained the trail with (its --audit-key-file)", secretFile],
        ["continues", None, None, "the last line's digest of the files "
         "before the first one given (no longer kept): the first file's "
         "head must name it"]]

    def parseArgs(self, *paths: str) -> None:
        if not paths:
            raise usage.UsageError("name the audit file(s) to verify")
        self["paths"] = paths

class AuditOptions(usage.Options):
    subCommands = [["verify", None, VerifyOptions,
                    "check an audit trail's hash chain"]]

    def postOptions(self) -> None:
        if self.subCommand is None:
            raise usage.UsageError("name an audit command: verify")


class GsmcpdOptions(usage.Options):
    longdesc = "Run, check and connect to gsmcpd: gsmcpd COMMAND --help."
    optParameters = [[CONFIG_OPTION, None, None, "TOML file of settings, "
                      f"for any command [{CONFIG_VARIABLE}]"]]
    subCommands = [
        ["serve", None, usage.Options,
         "run the daemon in the foreground (gsmcpd serve --help lists its "
         "options)"],
        ["check", None, CheckOptions, "check the GemStone setup"],
        ["client-config", None, ClientConfigOptions,
         "print an MCP client's configuration for this daemon"],
        ["audit", None, AuditOptions, "audit verify FILE: check an audit "
         "trail's hash chain"],
    ]

    opt_version = printVersion

    def getSynopsis(self) -> str:
        # A command's usage begins with this.
        if getattr(self, "subCommand", None):
            return "Usage: gsmcpd"
        return "Usage: gsmcpd [--config FILE] COMMAND [options]"

    def postOptions(self) -> None:
        if self.subCommand is None:
            raise usage.UsageError("name a command: serve, check, "
                                   "client-config or audit")


def serve(arguments: Sequence[str],
          environ: Mapping[str, str] | None = None) -> int:
    """
    Run C{twistd -n gsmcp ARGUMENTS} here; answer the exit status.
    """
    from twisted.scripts.twistd import run
    if any(each in HELP_OPTIONS for each in arguments):
        sys.stdout.write(helpText(Config))
        return 0
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


def _logFormat(arguments: Sequence[str], environ: Mapping[str, str]) -> str:
    """
    The log format C{arguments}, else the environment, else their C{--config}
    file ask for: twistd's logger is chosen before gsmcp reads its settings.
    Settings that do not parse answer C{"text"}: gsmcp refuses them itself,
    in one line.
    """
    options = Options()
    try:
        options.parseOptions(arguments)
        return DECLARED["logFormat"].read(options, environ,
                                          options.settingsFile(environ))
    except (usage.UsageError, ConfigError):
        return "text"


def _status(exit: SystemExit) -> int:
    if exit.code is None or isinstance(exit.code, int):
        return exit.code or 0
    print(exit.code, file=sys.stderr)
    return 1


def checkTemplates(config: Config, asJson: bool, probe: bool,
                   out: TextIO | None = None) -> int:
    """
    C{gsmcpd check --templates}: run the check, write the report; 0 if
    every template passed.
    """
    from gsmcpd.daemon.commitprobe import commitProbe, notProbed
    from gsmcpd.daemon.templatecheck import TemplateCheck
    out = out or sys.stdout
    if probe and config.readOnly:
        out.write("FAIL  commit probe: refused under --read-only, which "
                  "promises that nothing is committed; --commit-probe "
                  "commits (then removes) a probe\n")
        return 1

    def main(reactor: Reactor) -> Deferred[None]:
        def written(report: Report) -> int:
            out.write(json.dumps(report.document(), indent=2) + "\n"
                      if asJson else report.table())
            return 0 if report.ok else 1
        return TemplateCheck(
            config, reactor, probe=commitProbe if probe else notProbed
        ).run().addCallback(written).addCallback(status.append)

    status: list[int] = []
    try:
        react(main)
    except SystemExit as e:
        if e.code:
            return e.code if isinstance(e.code, int) else 1
    return status[0] if status else 1


def check(options: CheckOptions) -> int:
    """
    Run the preflight, printing each line as it is known; answer 1 if any
    check failed.
    """
    from gsmcpd.daemon.check import Preflight, settingsFindings
    try:
        config = options.config()
    except ConfigError as e:
        print(f"FAIL  settings: {e}")
        return 1
    if options["templates"]:
        return checkTemplates(config, options["json"],
                              options["commit-probe"])
    for finding in settingsFindings(options):
        print(finding.line())

    def printLine(finding: Finding) -> None:
        print(finding.line(), flush=True)

    def main(reactor: Reactor) -> Deferred[int]:
        preflight = Preflight(config, reactor, printLine)
        return preflight.run().addCallback(
            lambda _: 1 if preflight.failed else 0)

    status: list[int] = []
    try:
        react(lambda reactor: main(reactor).addCallback(status.append))
    except SystemExit as e:
        if e.code:
            return _status(e)
    return status[0] if status else 1


def clientConfig(options: ClientConfigOptions,
                 environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    try:
        url, bearer = _clientTarget(options, environ)
    except ConfigError as e:
        print(f"gsmcpd client-config: {e}", file=sys.stderr)
        return 2
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


def _clientTarget(options: ClientConfigOptions,
                  environ: Mapping[str, str]) -> tuple[str | None, bool]:
    """
    The URL and whether a token is needed, from the options, else the
    daemon's own settings: with authentication on, the audience is the URL
    clients use; else the URL follows from the port.
    """
    try:
        settingsFile = SettingsFile.load(
            options[CONFIG_OPTION] or environ.get(CONFIG_VARIABLE),
            fileKeys(Config))
    except SettingsFileError as e:
        raise ConfigError(str(e))
    given = {"port": options["port"]}

    def read(name: str) -> Any:
        return DECLARED[name].read(given, environ, settingsFile)

    url = options["url"] or read("authAudience") or endpointUrl(read("port"))
    bearer = options["bearer"] or bool(read("authIssuer"))
    return url, bearer


def main(argv: list[str] | None = None) -> int:
    """
    The console script.
    """
    argv = _configAfterCommand(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return serve(argv[1:])
    options = GsmcpdOptions()
    try:
        options.parseOptions(argv)
    except usage.UsageError as e:
        # The usage of the command at fault, else gsmcpd's.
        shown = cast(usage.Options, getattr(options, "subOptions", options))
        print(f"{shown.getSynopsis()}\n{shown.getUsage()}\ngsmcpd: {e}",
              file=sys.stderr)
        return 2
    if options.subCommand == "check":
        return check(options.subOptions)
    if options.subCommand == "audit":
        return auditVerify(options.subOptions.subOptions)
    return clientConfig(options.subOptions)


def auditVerify(options: VerifyOptions) -> int:
    """
    C{gsmcpd audit verify FILE...}: 0 when the chain holds, else 1.
    """
    key = options["audit-key-file"]
    paths = options["paths"]
    try:
        broken, last = verify(paths, key and key.encode("utf-8"),
                              options["continues"])
    except OSError as e:
        print(f"gsmcpd: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    if broken is not None:
        print(broken)
        return 1
    print(f"the chain holds through {', '.join(paths)}; its last line "
          f"hashes to {last}")
    return 0


def _configAfterCommand(argv: list[str]) -> list[str]:
    """
    C{argv} with a C{--config FILE} given before the command moved after
    it, where every command's options take it.
    """
    option = f"--{CONFIG_OPTION}"
    if argv[:1] == [option] and len(argv) > 2:
        return [argv[2], option, argv[1], *argv[3:]]
    if argv[:1] and argv[0].startswith(option + "=") and len(argv) > 1:
        return [argv[1], argv[0], *argv[2:]]
    return argv


def run() -> NoReturn:
    sys.exit(main())
