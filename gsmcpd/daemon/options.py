"""
The daemon's settings, each declared once (L{gsmcpd.daemon.settings}), and
the checks that need several of them together.

The command line wins over the environment, which wins over the
configuration file (C{--config}), which wins over the default.
Everything is checked before the daemon starts; a contradictory or
incomplete configuration is refused with one line naming the setting.
"""

import sys
from typing import TYPE_CHECKING, NoReturn

import attr

from gsmcpd import __version__
from gsmcpd.auth.scopes import ScopeToolsets
from gsmcpd.daemon.parsers import TOOLSET_OPTIONS_EXAMPLE, toolsetOptions
from gsmcpd.daemon.security import (
    checkSecurity,
    fairShares,
    httpsUrl,
    jsonText,
    jwksFile,
    resourceUrl,
    scopeToolsets,
    userMap,
)
from gsmcpd.daemon.served import servedToolsets, serverIdentity
from gsmcpd.daemon.settings import (
    AUTH,
    CONNECTION,
    SESSIONS,
    ConfigError,
    SettingsOptions,
    count,
    countOrNone,
    countOrPercentage,
    endpoint,
    flag,
    optionOf,
    optionsFor,
    positiveSeconds,
    positiveSecondsOrNone,
    repeatable,
    seconds,
    secondsOrNone,
    secretFile,
    setting,
    words,
)
from gsmcpd.observe.logformat import JSON_LOGGER, parseLogFormat
from gsmcpd.protocol.handlers import ServerIdentity
from gsmcpd.sessions.lifetime import LifetimePolicy, PolicyError
from gsmcpd.sessions.shares import FairShares
from gsmcpd.tools.base import Toolset
from gsmcpd.tools.catalog import CORE_TOOLSETS, DEFAULT_TOOLSETS, OTHER_TOOLSETS
from gsmcpd.tools.catalogtools import SURFACES
from gsmcpd.transport.connections import ConnectionLimits

__all__ = ["Config", "ConfigError", "Options"]

DEFAULT_PORT = "tcp:8000:interface=127.0.0.1"
SIMULATED_STONE = "gs64stone"
"""The simulated stone's name, and --stone's default."""
REAL_STONE_ONLY = ("gciLibrary", "password", "host", "netldi", "gemNrs",
                   "hostUser", "hostPassword")
"""Settings that mean nothing to the simulated stone."""

SIMULATED_REPOSITORIES = ("demo", "kernel")
"""What C{--simulated-repository} takes (L{gsmcpd.testing.simulator.launch})."""


def oneOf(text: str, names: tuple[str, ...]) -> str:
    if text not in names:
        raise ValueError(f"expected one of {', '.join(names)}")
    return text


@attr.s(frozen=True, kw_only=True)
class Config:
    """
    A validated configuration: one attribute per setting, and what follows
    from several together (L{lifetime}, L{toolsets}, L{identity},
    L{shares}).

    A new setting is one more declaration here (see
    L{gsmcpd.daemon.settings}); its option, variable and help follow.
    """

    port = setting("port", "Twisted endpoint to listen on; a bare port "
                   "number means that port on 127.0.0.1", parse=endpoint,
                   default=DEFAULT_PORT, group=CONNECTION)
    stone = setting("stone", "stone name or full stone NRS (e.g. "
                    "!tcp@host#server!gs64stone)", default=SIMULATED_STONE,
                    group=CONNECTION)
    host = setting("host", "host the stone and NetLDI run on, for NRS built "
                   "from names", group=CONNECTION)
    netldi = setting("netldi", "NetLDI name or port that starts each "
                     "session's gem", group=CONNECTION)
    gemNrs = setting("gem-nrs", "full gem service NRS; instead of "
                     "--host/--netldi", group=CONNECTION)
    user = setting("user", "GemStone user to log in as",
                   default="DataCurator", group=CONNECTION)
    password = setting("password-file", "file holding the GemStone password "
                       "(never on the command line)", parse=secretFile,
                       secret=True, group=CONNECTION)
    hostUser = setting("host-user", "OS user the NetLDI runs gems as (when "
                       "it requires one)", group=CONNECTION)
    hostPassword = setting("host-password-file", "file holding that OS "
                           "user's password", parse=secretFile, secret=True,
                           group=CONNECTION)
    gciLibrary = setting("gci-library", "path of libgcits; default: found "
                         "under $GEMSTONE/lib", group=CONNECTION)
    simulated = flag("simulated", "start and use the simulated stone (a "
                     "test double, not GemStone)", group=CONNECTION)
    simulatedRepository = setting(
        "simulated-repository", "with --simulated, the code the simulated "
        "stone starts with: demo (a few classes), or kernel (a generated "
        "kernel-sized repository: 1,500 classes, 60,000 methods)",
        parse=lambda text: oneOf(text, SIMULATED_REPOSITORIES), default="demo",
        group=CONNECTION)
    maxSessions = setting("max-sessions", "most GemStone sessions open at "
                          "once, or 'none'", parse=countOrNone, default="10",
                          group=SESSIONS)
    warmReads = setting(
        "warm-reads", "spare sessions, never used for a call, logged in "
        "ahead per GemStone user for the next call without a session handle "
        "(2026-07-28; each such call's own session is logged out after it), "
        "idle for 30s each; they give their slots up to new sessions; 0: "
        "log in per call",
        parse=count, default="2", group=SESSIONS)
    toolsetNames = setting(
        "toolsets", "toolsets to serve, space-separated: shipped names "
        f"({' '.join([*CORE_TOOLSETS, *OTHER_TOOLSETS])}) or "
        f"package.module:Class (default: {' '.join(DEFAULT_TOOLSETS)})",
        parse=words, group=SESSIONS)
    toolsetOptions = setting(
        "toolset-options", "per-toolset options as JSON, for toolsets that "
        f"declare some (docs/toolsets.rst), e.g. {TOOLSET_OPTIONS_EXAMPLE}",
        parse=toolsetOptions, default="{}", group=SESSIONS)
    debugProcesses = setting(
        "debug-processes", "paused debugged runs one session may hold at "
        "once (the debugger toolset): another debug_run is refused until one "
        "ends", parse=count, default="3", group=SESSIONS)
    surface = setting(
        "surface", "full, or catalog: tools/list lists an everyday set and "
        "tool_search, tool_get, tool_call (every tool stays callable)",
        parse=lambda text: oneOf(text, SURFACES), default="full",
        group=SESSIONS)
    serverName = setting("server-name", "serverInfo.name: which software "
                         "this is", default="gsmcpd")
    serverVersion = setting("server-version", "serverInfo.version: which "
                            "release")
    serverTitle = setting("server-title", "serverInfo.title: which "
                          "instance, for a human (no default)")
    instructionsFile = setting("instructions-file", "UTF-8 file replacing "
                               "the stock instructions; empty sends none")
    idleTimeout = setting(
        "idle-timeout", "seconds after its last request a session with an "
        "event stream is released, or 'none'", parse=secondsOrNone,
        default="1800", group=SESSIONS)
    probeAfter = setting(
        "probe-after", "seconds idle before a session with a stream is "
        "pinged; no answer releases it early; or 'none'",
        parse=secondsOrNone, default="1500", group=SESSIONS)
    streamlessIdleTimeout = setting(
        "streamless-idle-timeout", "seconds after its last request a "
        "session with no event stream is released", parse=seconds,
        default="60", group=SESSIONS)
    streamLossGrace = setting(
        "stream-loss-grace", "seconds a session whose client hung up its "
        "stream waits for it to come back (0: release at once)",
        parse=seconds, default="10", group=SESSIONS)
    handleIdleTimeout = setting(
        "handle-idle-timeout", "seconds after its last request a 2026-07-28 "
        "session behind a handle is released, or 'none'",
        parse=secondsOrNone, default="300", group=SESSIONS)
    maxLifetime = setting("max-lifetime", "absolute cap on a session's life "
                          "in seconds, or 'none'", parse=secondsOrNone,
                          default="none", group=SESSIONS)
    # Fair shares (gsmcpd.sessions.shares).
    callsPerSession = setting(
        "calls-per-session", "calls in flight per session, or 'none'; "
        "queued and running calls and tasks on one GemStone session count, "
        "and one more is refused", parse=countOrNone, default="16",
        group=SESSIONS)
    callsPerIdentity = setting(
        "calls-per-identity", "calls in flight per identity, or 'none'; with "
        "authentication, on all of one identity's sessions",
        parse=countOrNone, default="64", group=SESSIONS)
    sessionsPerIdentity = setting(
        "sessions-per-identity", "GemStone sessions per identity: with "
        "authentication, how many one identity may hold (its sessions, "
        "handles and throwaway sessions in use), as a count, a percentage of "
        "--max-sessions (at least 1), or 'none'", parse=countOrPercentage,
        default="50%", group=SESSIONS)
    taskRetention = setting(
        "task-retention", "seconds an ended task stays readable; its result "
        "is dropped with it", parse=positiveSeconds, default="600",
        group=SESSIONS)
    tasksKept = setting(
        "tasks-kept", "ended tasks kept per identity, or 'none'; the oldest "
        "are dropped first", parse=countOrNone, default="100",
        group=SESSIONS)
    callTimeout = setting(
        "call-timeout", "seconds a GemStone call may run before it is "
        "stopped (soft break, hard break, then a new GemStone session), or "
        "'none'", parse=positiveSecondsOrNone, default="none",
        group=SESSIONS, formerly="request-timeout")
    stoneDeadline = setting(
        "stone-deadline", "seconds the stone has to answer the daemon's own "
        "session's periodic pass (else /healthz says it is not answering) "
        "and a client's login (else stoneNotAnswering), or 'none'", parse=positiveSecondsOrNone, default="10",
        group=SESSIONS)
    maxCommitsBehind = setting(
        "max-commits-behind", "refresh an idle session's view (keeping its "
        "changes) once it is this many commits behind, or 'none'",
        parse=countOrNone, default="20", group=SESSIONS)
    stuckViewGrace = setting(
        "stuck-view-grace", "seconds a session whose view cannot be moved "
        "may stay too far behind before it is released", parse=seconds,
        default="600", group=SESSIONS)
    pinnedViewGrace = setting(
        "pinned-view-grace", "seconds a call may hold the oldest commit "
        "record under real backlog before it is ended", parse=seconds,
        default="600", group=SESSIONS)
    workerUser = setting("worker-user", "GemStone user every session logs "
                         "in as, with a one-time password minted by the "
                         "daemon's own session", group=SESSIONS)
    accessLog = flag("access-log", "log a line per HTTP request (costs about "
                     "a quarter of the throughput)")
    adminPort = setting("admin-port", "Twisted endpoint serving /healthz and "
                        "/metrics apart from /mcp (default: both on --port); "
                        "a bare port number means 127.0.0.1",
                        parse=endpoint, group=CONNECTION)
    agentPort = setting(
        "agent-port", "Twisted endpoint answering HAProxy's agent check with "
        "the room for new sessions (etc/haproxy/gsmcpd.cfg); a bare port "
        "number means 127.0.0.1", parse=endpoint)
    drainGrace = setting(
        "drain-grace", "seconds a stopping daemon keeps serving the sessions "
        "it holds, opening no new one (/healthz answers 404, which HAProxy "
        "reads as: new sessions elsewhere, held ones still here), before "
        "its port closes", parse=seconds, default="0")
    logFormat = setting("log-format", "text, or json: one JSON object per "
                        "event (gsmcpd serve applies it; under twistd pass "
                        "--logger " + JSON_LOGGER + ")",
                        parse=parseLogFormat, default="text")
    allowedOrigins = repeatable("allowed-origin", "a browser origin "
                                "allowed besides loopback: a host (any "
                                "port) or a full origin such as "
                                "http://localhost:3000 (that port only; a "
                                "loopback one pins loopback to it); the "
                                "variable takes a space-separated list",
                                environ="GSMCP_ALLOWED_ORIGINS",
                                group=CONNECTION)
    # Security (docs/authentication.rst, gsmcpd.daemon.security).
    authIssuer = setting("auth-issuer", "OAuth authorization server's issuer "
                         "URL; with --auth-audience every request needs a "
                         "bearer token", parse=httpsUrl, group=AUTH)
    authAudience = setting("auth-audience", "this server's resource "
                           "identifier: the URL clients use for /mcp",
                           parse=resourceUrl, group=AUTH)
    authJwksUrl = setting("auth-jwks-url", "https URL of the issuer's "
                          "signing keys (default: from its metadata)",
                          parse=httpsUrl, group=AUTH)
    authJwksFile = setting("auth-jwks-file", "local JWKS file of the "
                           "issuer's signing keys, instead of fetching them",
                           parse=jwksFile, group=AUTH)
    authRequiredScopes = setting("auth-required-scopes", "scopes every "
                                 "token must carry, space-separated",
                                 parse=words, default="", group=AUTH)
    authUserClaim = setting("auth-user-claim", "token claim naming the "
                            "GemStone user", default="sub", group=AUTH)
    authUserMap = setting("auth-user-map", "JSON file mapping user-claim "
                          "values to GemStone user names", parse=userMap,
                          group=AUTH)
    authScopeToolsets = setting(
        "auth-scope-toolsets", "JSON mapping scopes to the toolsets a token "
        'with them may use, e.g. {"gemstone:read": ["browsing"]}',
        parse=jsonText, group=AUTH)
    readOnly = flag("read-only", "nothing can be committed: no mutation "
                    "toolset, every session commit-locked in the stone",
                    group=AUTH)
    allowUnauthenticatedRemote = flag(
        "allow-unauthenticated-remote", "serve a non-loopback --port without "
        "authentication: anyone who reaches it runs Smalltalk", group=AUTH)
    traceLog = setting("trace-log", "file for the message trace: a JSON "
                       "line per message, secrets redacted (default: off)")
    traceMaxBody = setting("trace-max-body", "characters of a traced body "
                           "kept, or 'none'", parse=countOrNone, default="4096")
    traceRotateBytes = setting("trace-rotate-bytes", "trace file size that "
                               "rotates it", parse=count, default="50000000")
    traceKeep = setting("trace-keep", "rotated trace files kept", parse=count,
                        default="5")
    auditLog = setting("audit-log", "file for the audit trail, a JSON object "
                       "a line (default: the daemon's log, with "
                       "authentication)", group=AUTH)
    auditKey = setting("audit-key-file", "file holding the key that makes "
                       "the --audit-log chain an HMAC, so an edited trail "
                       "cannot be hashed again without it (default: "
                       "SHA-256)", parse=secretFile, secret=True, group=AUTH)
    allowedHosts = repeatable("allowed-host", "a name requests may use in "
                              "their Host header besides loopback and the "
                              "address they reached (the variable takes a "
                              "space-separated list)",
                              environ="GSMCP_ALLOWED_HOSTS", group=CONNECTION)
    httpReadTimeout = setting(
        "http-read-timeout", "seconds an HTTP request's headers and body may "
        "take to arrive, however slowly they trickle, or 'none'",
        parse=positiveSecondsOrNone, default="10", group=CONNECTION,
        formerly="request-deadline")
    maxConnections = setting("max-connections", "most HTTP connections "
                             "open at once, or 'none'", parse=countOrNone,
                             default="512", group=CONNECTION)
    maxConnectionsPerPeer = setting(
        "max-connections-per-peer", "most HTTP connections open at once from "
        "one address, or 'none'", parse=countOrNone, default="128",
        group=CONNECTION)

    lifetime: LifetimePolicy = attr.ib(init=False, repr=False)
    toolsets: tuple[Toolset, ...] = attr.ib(init=False, repr=False)
    scopeToolsets: ScopeToolsets | None = attr.ib(init=False, repr=False)
    identity: ServerIdentity = attr.ib(init=False, repr=False)
    connectionLimits: ConnectionLimits = attr.ib(init=False, repr=False)
    shares: FairShares = attr.ib(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self._checkStone()
        checkSecurity(self, lambda name: optionOf(Config, name))
        self._checkConnections()
        object.__setattr__(self, "connectionLimits", ConnectionLimits(
            requestDeadline=self.httpReadTimeout,
            maxConnections=self.maxConnections,
            maxConnectionsPerPeer=self.maxConnectionsPerPeer))
        # A frozen class sets what follows from its settings this way.
        object.__setattr__(self, "shares", fairShares(
            self, lambda name: optionOf(Config, name)))
        object.__setattr__(self, "lifetime", self._lifetime())
        object.__setattr__(self, "toolsets", servedToolsets(self))
        object.__setattr__(self, "scopeToolsets",
                           scopeToolsets(self, self.toolsets))
        object.__setattr__(self, "identity", serverIdentity(self))

    def _checkStone(self) -> None:
        if self.simulated:
            if self.stone != SIMULATED_STONE:
                raise ConfigError(
                    f"--simulated starts its own stone, {SIMULATED_STONE}, "
                    f"so --stone {self.stone} cannot apply")
            for name in REAL_STONE_ONLY:
                if getattr(self, name):
                    raise ConfigError(
                        f"--simulated starts its own stone, so "
                        f"{optionOf(Config, name)} cannot apply")
        elif self.simulatedRepository != "demo":
            raise ConfigError(
                f"{optionOf(Config, 'simulatedRepository')} applies only with --simulated")
        elif self.password is None:
            raise ConfigError(
                "--password-file (GSMCP_PASSWORD_FILE) is required to log in "
                "to GemStone (or pass --simulated for the simulated stone)")
        if self.gemNrs and (self.host or self.netldi):
            raise ConfigError("--gem-nrs is a full NRS, so --host/--netldi "
                              "cannot also apply")
        if self.hostPassword and not self.hostUser:
            raise ConfigError("--host-password-file needs --host-user")

    def _checkConnections(self) -> None:
        # Each session's client holds an event stream and a call at once.
        for name in ("maxConnections", "maxConnectionsPerPeer"):
            cap, most = getattr(self, name), self.maxSessions
            if cap is not None and most is not None and cap < 2 * most:
                raise ConfigError(
                    f"{optionOf(Config, name)} {cap} leaves no room for "
                    f"--max-sessions {most} clients, each with an event "
                    f"stream and a call open (at least {2 * most})")

    def _lifetime(self) -> LifetimePolicy:
        # The lifetime settings are named as the policy's fields.
        policy = LifetimePolicy(**{
            field.name: getattr(self, field.name)
            for field in attr.fields(LifetimePolicy)})
        try:
            return policy.validate(lambda name: optionOf(Config, name))
        except PolicyError as e:
            raise ConfigError(str(e))

    @property
    def stoneNrs(self) -> str:
        """
        The stone NRS: given whole, or built from the stone name and host.
        """
        if self.stone.startswith("!") or not self.host:
            return self.stone
        return f"!tcp@{self.host}#server!{self.stone}"

    @property
    def gemServiceNrs(self) -> str | None:
        """
        The gem service NRS, or L{None} for GemStone's default (a gem
        started by the local NetLDI).
        """
        if self.gemNrs:
            return self.gemNrs
        if not (self.host or self.netldi):
            return None
        netldi = f"#netldi:{self.netldi}" if self.netldi else ""
        return f"!tcp@{self.host or 'localhost'}{netldi}#task!gemnetobject"


# Every command's --version, in place of usage.Options' own, which prints
# Twisted's; its docstring is its --help line.
def printVersion(options: object) -> NoReturn:
    """
    Print gsmcpd's version and exit.
    """
    print(f"gsmcpd {__version__}")
    sys.exit(0)


if TYPE_CHECKING:
    # What optionsFor makes, as mypy cannot follow a class built by type().
    _Declared = SettingsOptions[Config]
else:
    _Declared = optionsFor(Config, "C{twistd gsmcp} options.")


class Options(_Declared):
    opt_version = printVersion
