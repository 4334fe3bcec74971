"""
The daemon's settings: twistd options, each with an environment variable of
the same meaning for systemd's C{EnvironmentFile=}.

The command line wins over the environment, which wins over the default.
Everything is checked before the daemon starts; a contradictory or
incomplete configuration is refused with one line naming the setting.
"""

import json
import os

import attr
from twisted.python import usage

from gsmcpd import __version__
from gsmcpd.protocol.dispatch import ServerIdentity
from gsmcpd.protocol.instructions import readInstructions, stockInstructions
from gsmcpd.sessions.lifetime import LifetimePolicy, PolicyError
from gsmcpd.tools.catalog import CORE_TOOLSETS, ToolsetError, buildToolsets

DEFAULT_PORT = "tcp:8000:interface=127.0.0.1"
DEFAULT_MAX_SESSIONS = 3
SIMULATED_TITLE = "gsmcpd on a simulated stone (a test double, not GemStone)"
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})


class ConfigError(Exception):
    """
    The configuration cannot work; the message names the setting.
    """


@attr.s(frozen=True, auto_attribs=True)
class Setting:
    """
    One option and the environment variable that means the same.
    """

    option: str
    environ: str
    help: str
    default: object = None
    flag: bool = False
    repeatable: bool = False

    @property
    def key(self):
        return self.option.replace("-", "_")


SETTINGS = (
    Setting("port", "GSMCP_PORT",
            "Twisted endpoint to listen on", DEFAULT_PORT),
    Setting("stone", "GSMCP_STONE",
            "stone name or full stone NRS (e.g. !tcp@host#server!gs64stone)",
            "gs64stone"),
    Setting("host", "GSMCP_HOST",
            "host the stone and NetLDI run on, for NRS built from names"),
    Setting("netldi", "GSMCP_NETLDI",
            "NetLDI name or port that starts each session's gem"),
    Setting("gem-nrs", "GSMCP_GEM_NRS",
            "full gem service NRS; instead of --host/--netldi"),
    Setting("user", "GSMCP_USER", "GemStone user to log in as",
            "DataCurator"),
    Setting("password-file", "GSMCP_PASSWORD_FILE",
            "file holding the GemStone password (never on the command line)"),
    Setting("host-user", "GSMCP_HOST_USER",
            "OS user the NetLDI runs gems as (when it requires one)"),
    Setting("host-password-file", "GSMCP_HOST_PASSWORD_FILE",
            "file holding that OS user's password"),
    Setting("gci-library", "GSMCP_GCI_LIBRARY",
            "path of libgcits; default: found under $GEMSTONE/lib"),
    Setting("simulated", "GSMCP_SIMULATED",
            "start and use the simulated stone (a test double, not GemStone)",
            flag=True),
    Setting("max-sessions", "GSMCP_MAX_SESSIONS",
            "most GemStone sessions open at once, or 'none'",
            str(DEFAULT_MAX_SESSIONS)),
    Setting("toolsets", "GSMCP_TOOLSETS",
            "toolsets to serve, space-separated: core names (browsing "
            "execution listing mutation search session testing) or "
            "package.module:Class (default: all seven core toolsets)"),
    Setting("toolset-options", "GSMCP_TOOLSET_OPTIONS",
            'per-toolset options as JSON, e.g. {"search": {"limit": 100}}'),
    Setting("server-name", "GSMCP_SERVER_NAME",
            "serverInfo.name: which software this is", "gsmcpd"),
    Setting("server-version", "GSMCP_SERVER_VERSION",
            "serverInfo.version: which release"),
    Setting("server-title", "GSMCP_SERVER_TITLE",
            "serverInfo.title: which instance, for a human (no default)"),
    Setting("instructions-file", "GSMCP_INSTRUCTIONS_FILE",
            "UTF-8 file replacing the stock instructions; empty sends none"),
    Setting("idle-timeout", "GSMCP_IDLE_TIMEOUT",
            "seconds after its last request a session with an event stream "
            "is released, or 'none'", "1800"),
    Setting("probe-after", "GSMCP_PROBE_AFTER",
            "seconds idle before a session with a stream is pinged; no "
            "answer releases it early; or 'none'", "1500"),
    Setting("streamless-idle-timeout", "GSMCP_STREAMLESS_IDLE_TIMEOUT",
            "seconds after its last request a session with no event stream "
            "is released", "60"),
    Setting("stream-loss-grace", "GSMCP_STREAM_LOSS_GRACE",
            "seconds a session whose client hung up its stream waits for it "
            "to come back (0: release at once)", "10"),
    Setting("max-lifetime", "GSMCP_MAX_LIFETIME",
            "absolute cap on a session's life in seconds, or 'none'", "none"),
    Setting("request-timeout", "GSMCP_REQUEST_TIMEOUT",
            "per-request deadline in seconds (soft break, hard break, then "
            "a new GemStone session), or 'none'", "none"),
    Setting("max-commits-behind", "GSMCP_MAX_COMMITS_BEHIND",
            "refresh an idle session's view (keeping its changes) once it "
            "is this many commits behind, or 'none'", "20"),
    Setting("stuck-view-grace", "GSMCP_STUCK_VIEW_GRACE",
            "seconds a session whose view cannot be moved may stay too far "
            "behind before it is released", "600"),
    Setting("pinned-view-grace", "GSMCP_PINNED_VIEW_GRACE",
            "seconds a call may hold the oldest commit record under real "
            "backlog before it is ended", "600"),
    Setting("worker-user", "GSMCP_WORKER_USER",
            "GemStone user every session logs in as, with a one-time "
            "password minted by the daemon's own session"),
    Setting("access-log", "GSMCP_ACCESS_LOG",
            "log a line per HTTP request (costs about a quarter of the "
            "throughput)", flag=True),
    Setting("allowed-origin", "GSMCP_ALLOWED_ORIGINS",
            "a browser Origin host allowed besides loopback (repeatable; "
            "the variable takes a space-separated list)", repeatable=True),
)


class Options(usage.Options):
    """
    C{twistd gsmcp} options.
    """

    optFlags = [[s.option, None, f"{s.help} [{s.environ}]"]
                for s in SETTINGS if s.flag]
    optParameters = [[s.option, None, None,
                      f"{s.help} [{s.environ}]"
                      + (f" (default: {s.default})" if s.default else "")]
                     for s in SETTINGS if not s.flag and not s.repeatable]

    def __init__(self):
        super().__init__()
        for setting in SETTINGS:
            if setting.repeatable:
                self[setting.option] = []

    def opt_allowed_origin(self, host):
        """
        A browser Origin host allowed besides loopback (repeatable)
        [GSMCP_ALLOWED_ORIGINS].
        """
        self["allowed-origin"].append(host)

    def settings(self, environ=None):
        """
        Every setting, from the command line, else the environment, else
        its default.
        """
        environ = os.environ if environ is None else environ
        values = {}
        for setting in SETTINGS:
            given = self.get(setting.option)
            fromEnviron = environ.get(setting.environ)
            if setting.flag:
                values[setting.key] = bool(given) or _flag(
                    setting.environ, fromEnviron)
            elif setting.repeatable:
                values[setting.key] = tuple(given) or tuple(
                    (fromEnviron or "").split())
            else:
                values[setting.key] = given if given is not None else (
                    fromEnviron if fromEnviron is not None
                    else setting.default)
        return values


def _flag(name, text):
    if text is None or text.strip().lower() in FALSE_WORDS:
        return False
    if text.strip().lower() in TRUE_WORDS:
        return True
    raise ConfigError(f"{name}={text!r}: expected one of 1/0, true/false, "
                      "yes/no, on/off")


def parseCount(option, values):
    """
    A count option: a positive integer, or C{none}.
    """
    text = str(values[option.replace("-", "_")])
    if text.strip().lower() == "none":
        return None
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ConfigError(f"--{option} {text!r}: expected a positive "
                          "count or 'none'")
    return count


def parseSeconds(option, values, allowNone=True):
    """
    A duration option: seconds, or C{none} where that turns it off.
    """
    text = str(values[option.replace("-", "_")]).strip()
    if allowNone and text.lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if seconds < 0:
        raise ConfigError(f"--{option} {text!r}: expected seconds"
                          + (" or 'none'" if allowNone else ""))
    return seconds


def readSecret(option, path):
    """
    The first line of a password file, so the password never appears on a
    command line or in the process table.
    """
    try:
        with open(path, encoding="utf-8") as f:
            secret = f.readline().rstrip("\r\n")
    except OSError as e:
        raise ConfigError(f"--{option} {path!r}: {e.strerror}")
    if not secret:
        raise ConfigError(f"--{option} {path!r}: the file is empty")
    return secret


@attr.s(frozen=True, auto_attribs=True, repr=False)
class Config:
    """
    A validated configuration.
    """

    port: str
    simulated: bool
    stoneNrs: str | None
    gemNrs: str | None
    user: str
    password: str | None
    hostUser: str | None
    hostPassword: str | None
    gciLibrary: str | None
    maxSessions: int | None
    allowedOrigins: tuple
    toolsets: tuple = ()
    identity: object = None
    lifetime: object = None
    requestTimeout: float | None = None
    maxCommitsBehind: int | None = 20
    stuckViewGrace: float = 600.0
    pinnedViewGrace: float = 600.0
    workerUser: str | None = None
    accessLog: bool = False

    def __repr__(self):
        return (f"Config(port={self.port!r}, simulated={self.simulated}, "
                f"stoneNrs={self.stoneNrs!r}, user={self.user!r})")

    @classmethod
    def fromSettings(cls, values):
        """
        Check C{values} (as L{Options.settings} answers them) together.

        @raise ConfigError: naming the setting at fault.
        """
        simulated = values["simulated"]
        if simulated:
            for real in ("gci_library", "password_file", "host", "netldi",
                         "gem_nrs", "host_user", "host_password_file"):
                if values[real]:
                    raise ConfigError(
                        f"--simulated starts its own stone, so "
                        f"--{real.replace('_', '-')} cannot apply")
        elif not values["password_file"]:
            raise ConfigError(
                "--password-file (GSMCP_PASSWORD_FILE) is required to log in "
                "to GemStone (or pass --simulated for the simulated stone)")
        if values["gem_nrs"] and (values["host"] or values["netldi"]):
            raise ConfigError("--gem-nrs is a full NRS, so --host/--netldi "
                              "cannot also apply")
        if values["host_password_file"] and not values["host_user"]:
            raise ConfigError("--host-password-file needs --host-user")
        toolsets = parseToolsets(values)
        try:
            lifetime = LifetimePolicy(
                idleTimeout=parseSeconds("idle-timeout", values),
                probeAfter=parseSeconds("probe-after", values),
                streamlessIdleTimeout=parseSeconds(
                    "streamless-idle-timeout", values, allowNone=False),
                streamLossGrace=parseSeconds("stream-loss-grace", values,
                                             allowNone=False),
                maxLifetime=parseSeconds("max-lifetime", values),
            ).validate()
        except PolicyError as e:
            raise ConfigError(str(e))
        requestTimeout = parseSeconds("request-timeout", values)
        if requestTimeout is not None and requestTimeout <= 0:
            raise ConfigError("--request-timeout must be positive or none")
        return cls(
            maxCommitsBehind=parseCount("max-commits-behind", values),
            stuckViewGrace=parseSeconds("stuck-view-grace", values,
                                        allowNone=False),
            pinnedViewGrace=parseSeconds("pinned-view-grace", values,
                                         allowNone=False),
            workerUser=values["worker_user"],
            accessLog=values["access_log"],
            lifetime=lifetime,
            requestTimeout=requestTimeout,
            toolsets=toolsets,
            identity=parseIdentity(values, toolsets),
            port=values["port"],
            simulated=simulated,
            stoneNrs=None if simulated else stoneNrs(values),
            gemNrs=None if simulated else gemNrs(values),
            user=values["user"],
            password=None if simulated else readSecret(
                "password-file", values["password_file"]),
            hostUser=values["host_user"],
            hostPassword=values["host_password_file"] and readSecret(
                "host-password-file", values["host_password_file"]),
            gciLibrary=values["gci_library"],
            maxSessions=parseCount("max-sessions", values),
            allowedOrigins=values["allowed_origin"],
        )


def parseToolsets(values):
    """
    The served toolsets, built with their options: every name resolves,
    every option is declared by a toolset that is served.
    """
    text = values["toolsets"]
    names = tuple(CORE_TOOLSETS) if text is None \
        else tuple(text.replace(",", " ").split())
    if not names:
        raise ConfigError("--toolsets names no toolset")
    try:
        options = json.loads(values["toolset_options"] or "{}")
    except ValueError as e:
        raise ConfigError(f"--toolset-options is not JSON: {e}")
    if not isinstance(options, dict) or not all(
            isinstance(each, dict) for each in options.values()):
        raise ConfigError('--toolset-options must be an object of objects, '
                          'e.g. {"search": {"limit": 100}}')
    try:
        return tuple(buildToolsets(names, options))
    except ToolsetError as e:
        raise ConfigError(f"--toolsets: {e}")


def parseIdentity(values, toolsets):
    """
    What C{initialize} says this server is, and its instructions.
    """
    instructions = stockInstructions(toolsets)
    if values["instructions_file"]:
        try:
            instructions = readInstructions(values["instructions_file"])
        except ValueError as e:
            raise ConfigError(f"--instructions-file {e}")
    title = values["server_title"]
    if values["simulated"]:
        title = f"{title} (simulated stone)" if title else SIMULATED_TITLE
    return ServerIdentity(
        name=values["server_name"],
        version=values["server_version"] or __version__,
        title=title, instructions=instructions)


def stoneNrs(values):
    """
    The stone NRS: given whole, or built from the stone name and host.
    """
    stone = values["stone"]
    if stone.startswith("!") or not values["host"]:
        return stone
    return f"!tcp@{values['host']}#server!{stone}"


def gemNrs(values):
    """
    The gem service NRS, or L{None} for GemStone's default (a gem started by
    the local NetLDI).
    """
    if values["gem_nrs"]:
        return values["gem_nrs"]
    if not (values["host"] or values["netldi"]):
        return None
    host = values["host"] or "localhost"
    netldi = f"#netldi:{values['netldi']}" if values["netldi"] else ""
    return f"!tcp@{host}{netldi}#task!gemnetobject"
