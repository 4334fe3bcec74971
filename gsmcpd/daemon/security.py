"""
The daemon's security settings taken together: who may reach it, TLS, the
bearer gate, scopes choosing tools, read-only mode, the audit trail and
the fair shares no one client may exceed.

The settings themselves are declared with the others (L{gsmcpd.daemon.
options}); this module parses their values, checks them against each other
when the configuration is built, and makes what they describe when the
service tree is assembled.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from twisted.application.internet import TimerService
from twisted.application.service import IService, Service
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.interfaces import IReactorTime, IStreamServerEndpoint

from gsmcpd.auth.documents import verifiedClient
from gsmcpd.auth.keys import KeyFile, KeySetError, RemoteKeys
from gsmcpd.auth.resource import ProtectedResource
from gsmcpd.auth.scopes import ScopeMapError, ScopeToolsets
from gsmcpd.auth.tokens import TokenValidator
from gsmcpd.auth.users import UserMap, UserMapError
from gsmcpd.daemon import Inline, Reactor
from gsmcpd.daemon.hangup import Hangup
from gsmcpd.daemon.parsers import Percentage
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.observe.audit import AuditLog
from gsmcpd.observe.auditchain import OtherChain
from gsmcpd.observe.trace import MessageTrace, RotatingFile
from gsmcpd.sessions.shares import FairShares
from gsmcpd.sessions.warm import lockCommits
from gsmcpd.tools.base import Toolset
from gsmcpd.tools.catalog import SCOPED_TOOLSETS
from gsmcpd.transport.bearer import BearerGate
from gsmcpd.transport.exposure import ExposureError, Listening
from gsmcpd.transport.tls import ReloadingContexts, TLSConfigError, TLSEndpoint

if TYPE_CHECKING:
    from gsmcpd.daemon.options import Config
    from gsmcpd.sessions.work import WorkSession

Namer = Callable[[str], str]
"""How an operator names a L{Config} attribute: its option."""

MUTATION = "mutation"
READ_ONLY_REASON = "gsmcpd serves this repository read-only (--read-only)"
READ_ONLY_INSTRUCTIONS = (
    "This server is read-only: nothing can be committed. Code you run or "
    "compile changes only your own session's view, and is lost when the "
    "session ends.")


# Parsers of the settings' text (see gsmcpd.daemon.settings).

def httpsUrl(text: str) -> str:
    if urlsplit(text).scheme != "https" or not urlsplit(text).hostname:
        raise ValueError("expected an https URL")
    return text


def resourceUrl(text: str) -> str:
    """
    A resource identifier: the absolute URL clients use for C{/mcp}.
    """
    parts = urlsplit(text)
    if parts.scheme not in ("https", "http") or not parts.hostname or \
            parts.fragment:
        raise ValueError("expected the absolute URL clients use for /mcp, "
                         "e.g. https://gemstone.example.com:8443/mcp")
    return text


def jwksFile(path: str) -> KeyFile:
    try:
        return KeyFile.read(path)
    except KeySetError as e:
        raise ValueError(str(e))


def userMap(path: str) -> UserMap:
    try:
        return UserMap.read(path)
    except UserMapError as e:
        raise ValueError(str(e))


def jsonText(text: str) -> str:
    try:
        json.loads(text)
    except ValueError as e:
        raise ValueError(f"is not JSON: {e}")
    return text


# Checks, when the configuration is built.

AUTH_DETAILS = ("authJwksUrl", "authJwksFile", "authRequiredScopes",
                "authUserMap", "authScopeToolsets")


def checkSecurity(config: Config, optionOf: Namer) -> None:
    """
    Refuse a configuration that is unsafe or contradictory.

    @param optionOf: names an attribute's option, for the message.
    @raise ConfigError: naming the fix.
    """
    if (config.authIssuer is None) != (config.authAudience is None):
        raise ConfigError("--auth-issuer and --auth-audience go together: "
                          "both turn authentication on")
    if not authenticated(config):
        given = [optionOf(name) for name in AUTH_DETAILS
                 if getattr(config, name)]
        if given:
            raise ConfigError(f"{given[0]} needs --auth-issuer and "
                              "--auth-audience")
    elif config.workerUser:
        raise ConfigError("--worker-user cannot apply with authentication: "
                          "each session logs in as the user its token names")
    elif config.authJwksUrl and config.authJwksFile:
        raise ConfigError("--auth-jwks-url and --auth-jwks-file are two "
                          "sources of the same keys: give one")
    if config.auditKey and not config.auditLog:
        raise ConfigError("--audit-key-file needs --audit-log: the key "
                          "chains the lines of that file")
    try:
        TLSEndpoint.parse(config.port)
        Listening.parse(config.port).check(
            authenticated(config), config.allowUnauthenticatedRemote)
    except (TLSConfigError, ExposureError) as e:
        raise ConfigError(str(e))


def authenticated(config: Config) -> bool:
    return config.authIssuer is not None


def servedToolsetNames(given: tuple[str, ...] | None,
                       default: tuple[str, ...],
                       readOnly: bool) -> tuple[str, ...]:
    """
    The toolsets to build: those C{given} (else the C{default} ones),
    without the mutation toolset in read-only mode.

    @raise ConfigError: when it is asked for by name in read-only mode.
    """
    names = default if given is None else given
    if readOnly and MUTATION in names:
        if given is not None:
            raise ConfigError("--read-only serves no mutation toolset: "
                              "leave it out of --toolsets")
        names = tuple(name for name in names if name != MUTATION)
    return names


def scopeToolsets(config: Config,
                  toolsets: Iterable[Toolset]) -> ScopeToolsets | None:
    """
    The parsed C{--auth-scope-toolsets}, or L{None}.  In read-only mode a
    mapping may name the mutation toolset; it is simply not served.

    @raise ConfigError: the mapping is malformed, or with authentication
        on it opens a toolset of L{SCOPED_TOOLSETS} to no scope.
    """
    names = _names(toolsets)
    mapping = None
    if config.authScopeToolsets is not None:
        try:
            mapping = ScopeToolsets.parse(config.authScopeToolsets, names + (
                [MUTATION] if config.readOnly else []))
        except ScopeMapError as e:
            raise ConfigError(f"--auth-scope-toolsets {e}")
    if authenticated(config):
        opened = (mapping.toolsetsFor(mapping.scopes) or ()) if mapping else ()
        unopened = [name for name in names
                    if name in SCOPED_TOOLSETS and name not in opened]
        if unopened:
            raise ConfigError(
                f"--toolsets names {', '.join(unopened)}, which with "
                "authentication is served only to a scope: map a scope to "
                "it in --auth-scope-toolsets")
    return mapping


def _names(toolsets: Iterable[Toolset]) -> list[str]:
    # A served toolset is named: Toolset's own None is a placeholder.
    return cast("list[str]", [toolset.name for toolset in toolsets])


# What the settings describe, when the service tree is assembled.

def fairShares(config: Config, optionOf: Namer) -> FairShares:
    """
    The caps of L{gsmcpd.sessions.shares} C{config} sets, a percentage of
    C{--max-sessions} made a count (no cap when the sessions are not
    capped).

    @raise ConfigError: for caps that contradict each other.
    """
    perSession, perIdentity, sessions, most = (
        config.callsPerSession, config.callsPerIdentity,
        config.sessionsPerIdentity, config.maxSessions)
    if perSession is not None and perIdentity is not None and \
            perIdentity < perSession:
        raise ConfigError(
            f"{optionOf('callsPerIdentity')} {perIdentity} is less than "
            f"{optionOf('callsPerSession')} {perSession}: one session could "
            "never have its share")
    if isinstance(sessions, Percentage):
        sessions = None if most is None else sessions.of(most)
    elif sessions is not None and most is not None and sessions >= most \
            and (sessions > most or most > 1):
        raise ConfigError(
            f"{optionOf('sessionsPerIdentity')} {sessions} leaves no room "
            f"under --max-sessions {most} for anyone else: name fewer, a "
            "percentage, or 'none'")
    return FairShares(perSession, perIdentity, sessions)


def listeningEndpoint(
        config: Config, reactor: Reactor
) -> tuple[IStreamServerEndpoint, ReloadingContexts] | tuple[None, None]:
    """
    The endpoint to listen on, and the TLS contexts to reload on C{SIGHUP}
    (L{None} without TLS).

    @raise ConfigError: the TLS files cannot be served.
    """
    tls = TLSEndpoint.parse(config.port)
    if tls is None:
        return None, None
    try:
        contexts = ReloadingContexts(tls)
    except TLSConfigError as e:
        raise ConfigError(f"--port: {e}")
    return tls.endpoint(reactor, contexts), contexts


class Closing(Service):
    """
    Close the audit trail's file when the daemon stops.
    """

    name = "audit"

    def __init__(self, audit: AuditLog) -> None:
        self._audit = audit

    def stopService(self) -> None:
        super().stopService()
        self._audit.close()


KEYLESS_RETRY = 10.0
"""Seconds between fetches of the signing keys while none is loaded: until
then every token is refused, and C{/healthz} says so."""


class FetchKeysAtStart(TimerService):
    """
    Fetch the authorization server's keys as the daemon starts, so a
    problem reaching it is in the log before the first client meets it, and
    again every L{KEYLESS_RETRY} seconds while none is loaded, so the daemon
    serves again soon after the authorization server is back.
    """

    name = "signing-keys"

    def __init__(self, keys: RemoteKeys, clock: IReactorTime) -> None:
        super().__init__(KEYLESS_RETRY, self._fetchWhileMissing)
        self.clock = clock
        self._keys = keys

    def _fetchWhileMissing(self) -> Deferred[None] | None:
        return None if self._keys.keys else self._keys.refresh()


def securityServices(reactor: Reactor, contexts: ReloadingContexts | None,
                     audit: AuditLog | None, gate: BearerGate | None,
                     trace: MessageTrace | None = None) -> list[IService]:
    """
    The services the security settings add to the daemon's tree.
    """
    services: list[IService] = [Hangup(reactor, contexts, audit, trace=trace)]
    if audit is not None:
        services.append(Closing(audit))
    if trace is not None:
        services.append(trace)
    if gate is not None and isinstance(gate.validator.keys, RemoteKeys):
        services.append(FetchKeysAtStart(gate.validator.keys, reactor))
    return services


def remoteKeys(config: Config, reactor: Reactor) -> RemoteKeys:
    """
    The signing keys fetched over HTTPS from the JWKS URL, or from what
    the issuer's metadata names when no URL is given; the daemon and its
    preflight check read them the same way.
    """
    return RemoteKeys(
        verifiedClient(reactor), reactor, jwksUrl=config.authJwksUrl,
        issuer=None if config.authJwksUrl else config.authIssuer)


def bearerGate(config: Config, reactor: Reactor) -> BearerGate | None:
    """
    The gate every request passes with authentication on, or L{None}.
    """
    issuer, audience = config.authIssuer, config.authAudience
    if issuer is None or audience is None:
        # Without authentication (the two go together: checkSecurity).
        return None
    keys = config.authJwksFile or remoteKeys(config, reactor)
    required = frozenset(config.authRequiredScopes)
    mapping = config.scopeToolsets
    validator = TokenValidator(
        keys, issuer, audience, reactor, required,
        config.authUserMap, config.authUserClaim)
    resource = ProtectedResource(
        audience, issuer, required,
        mapping.scopes if mapping else frozenset(), config.serverTitle)
    return BearerGate(validator, resource, mapping)


def auditLog(config: Config, defaultUser: str | None,
             toolsets: Iterable[Toolset]) -> AuditLog | None:
    """
    The audit trail: with authentication or C{--audit-log}; else L{None}.
    """
    mutating = [tool.name for toolset in toolsets for tool in toolset.tools()
                if not tool.annotations.get("readOnlyHint")
                and toolset.name != "session"]
    if config.auditLog:
        try:
            return AuditLog.toFile(
                config.auditLog, defaultUser, mutating,
                config.auditKey.encode("utf-8") if config.auditKey else None)
        except (OSError, OtherChain) as e:
            raise ConfigError(f"--audit-log {config.auditLog!r}: "
                              f"{getattr(e, 'strerror', None) or e}")
    if authenticated(config):
        return AuditLog(defaultUser=defaultUser, mutatingTools=mutating)
    return None


def messageTrace(config: Config, reactor: Reactor) -> MessageTrace | None:
    """
    The message trace with C{--trace-log}; else L{None}.
    """
    if not config.traceLog:
        return None
    try:
        file = RotatingFile(config.traceLog, config.traceRotateBytes,
                            config.traceKeep)
    except OSError as e:
        raise ConfigError(f"--trace-log {config.traceLog!r}: {e.strerror}")
    return MessageTrace(file, reactor, config.traceMaxBody)


class SessionPolicies:
    """
    What each new (or replacement) GemStone session gets before it serves:
    its gem prepared, and in read-only mode the stone's commit lock.  (The
    tools a token's scopes open go with its principal: the dispatcher
    narrows the catalog by them, in either era.)
    """

    def __init__(self, prepare: Callable[[WorkSession], Deferred[Any]],
                 readOnly: bool = False) -> None:
        self._prepare = prepare
        self._readOnly = readOnly

    @inlineCallbacks
    def __call__(self, session: WorkSession) -> Inline[None]:
        yield self._prepare(session)
        if self._readOnly:
            yield lockCommits(session, READ_ONLY_REASON)
