"""
The answer corpus: a scripted conversation of both eras, driven in memory
through the daemon's web resource, whose answers must stay the same byte
for byte as those recorded in C{tests/structure/corpus/answers.jsonl}.

It is the safety net of a restructuring that must change no behaviour.
C{GSMCPD_RECORD_CORPUS=1 bin/run-tests tests.structure.test_answercorpus} records it
again: only when a behaviour change is intended, and the file's diff is
reviewed in the commit.
"""

import base64
import difflib
import json
import os
import re
import secrets
from collections.abc import Generator
from typing import Any

from treq.testing import StubTreq
from twisted.internet.defer import Deferred, inlineCallbacks
from twisted.internet.task import Clock
from twisted.python.filepath import FilePath
from twisted.trial.unittest import TestCase
from twisted.web.resource import IResource

from gsmcpd.daemon.service import eras
from gsmcpd.protocol.calls import CallRunner
from gsmcpd.protocol.eras.modern.tasks import TaskStore
from gsmcpd.protocol.handlers import Handlers, ServerIdentity
from gsmcpd.sessions.listeners import ChangeNotices, SessionListeners
from gsmcpd.sessions.outbound import PendingRequests
from gsmcpd.sessions.registry import SessionRegistry
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.transport.hosts import HostPolicy, OriginPolicy
from gsmcpd.transport.http import McpApp
from gsmcpd.transport.modern import ModernPost
from tests.corpusscript import EXCHANGES, configureGem
from tests.fakes import FakePool

CORPUS = FilePath(__file__).sibling("corpus").child("answers.jsonl")
RECORD = "GSMCPD_RECORD_CORPUS"
STATE = re.compile(r'("requestState":)"([\w-]+\.[\w-]+\.[\w-]+)"')
UNRECORDED_HEADERS = {b"date", b"server"}
"""Headers Twisted writes from the wall clock and its own version."""


def buildResource(clock: Clock) -> IResource:
    """
    The daemon's web resource as L{gsmcpd.daemon.service.assemble} builds
    it, over a L{tests.fakes.FakePool} and C{clock}: the one place a
    restructuring adapts this test to new constructors.
    """
    pool = FakePool(6)
    pool.configure = lambda gem: configureGem(gem, clock)
    pending = PendingRequests(clock)
    notices = ChangeNotices()
    listeners = SessionListeners(notices)
    sessions = SessionRegistry(
        pool, clock, onClose=[pending.forget, listeners.remove],
        onCommit=[notices.resourcesUpdated])
    legacy, modern = eras(
        Handlers(ToolCatalog.named(
            ("execution", "session", "browsing"),
            {"session": {"confirmDestructive": True}}), ServerIdentity()),
        CallRunner(sessions, clock), sessions, pending, listeners, clock,
        TaskStore(clock))
    app = McpApp(sessions, legacy, ModernPost(modern, notices, clock),
                 pending, clock, OriginPolicy.fromOptions(["app.example"]),
                 HostPolicy.fromOptions(()))
    return app


class Tokens:
    """
    Deterministic stand-ins for C{secrets} and C{os.urandom}: each token
    issued is remembered, so L{normalised} can name it by the order in
    which the answers first show it (a restructuring may draw tokens in
    another order and still answer the same).
    """

    def __init__(self) -> None:
        self.issued: list[str] = []

    def _issue(self, text: str) -> str:
        self.issued.append(text)
        return text

    def hex(self, nbytes: int = 32) -> str:
        return self._issue(
            f"feed{len(self.issued) + 1:0{nbytes * 2 - 4}x}")

    def urlsafe(self, nbytes: int = 32) -> str:
        length = -(-nbytes * 4 // 3)
        return self._issue(
            f"Tok_{len(self.issued) + 1}".ljust(length, "z"))

    def urandom(self, n: int) -> bytes:
        return b"\x5a" * n


def normalised(exchanges: list[dict[str, Any]], issued: list[str]
               ) -> list[str]:
    """
    C{exchanges} as lines of JSON, normalised: the only place the corpus
    is.  A request state is shown opened, without its MAC (a digest over
    its random nonce); an C{Allow} header's methods are sorted (Klein lists
    them from a set, whose order changes with the string hash seed); every
    token of
    C{issued} is replaced by C{<token-N>}, N counting tokens in their order
    of first appearance in the answers.
    """
    for exchange in exchanges:
        exchange["body"] = STATE.sub(_opened, exchange["body"])
        if "allow" in exchange["headers"]:
            exchange["headers"]["allow"] = [
                ", ".join(sorted(value.split(", ")))
                for value in exchange["headers"]["allow"]]
    text = "\n".join(json.dumps(exchange, sort_keys=True)
                     for exchange in exchanges)
    found = sorted((text.find(token), token) for token in set(issued)
                   if token in text)
    for number, (_, token) in enumerate(found, 1):
        text = text.replace(token, f"<token-{number}>")
    return text.split("\n")


def _opened(match: re.Match[str]) -> str:
    """
    A sealed request state (C{version.payload.mac}) as its version and
    payload, in the body's JSON.
    """
    version, payload, _ = match.group(2).split(".")
    opened = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    shown = json.dumps(f"<{version} {opened.decode()}>")
    return f"{match.group(1)}{shown}"


class AnswerCorpusTests(TestCase):

    @inlineCallbacks
    def converse(self) -> Generator[Any, Any, list[str]]:
        """
        Run the script; each exchange as one line of JSON.
        """
        tokens = Tokens()
        self.patch(secrets, "token_hex", tokens.hex)
        self.patch(secrets, "token_urlsafe", tokens.urlsafe)
        self.patch(os, "urandom", tokens.urandom)
        clock = Clock()
        treq = StubTreq(buildResource(clock))
        minted: dict[str, str] = {}
        exchanges: list[dict[str, Any]] = []
        for exchange in EXCHANGES:
            clock.pump([1] * exchange.wait)
            treq.flush()
            method, headers, body = exchange.request(minted)
            # StubTreq forwards HTTPClient's methods dynamically.
            d = treq.request(  # type: ignore[attr-defined]
                method, "http://127.0.0.1" + exchange.path, data=body,
                headers=headers)
            for _ in range(exchange.ticks):
                clock.advance(1)
                treq.flush()
            response = yield self.finished(d, exchange.name)
            content = yield self.finished(response.content(), exchange.name)
            answered = {
                name.decode().lower(): [v.decode() for v in values]
                for name, values in response.headers.getAllRawHeaders()
                if name.lower() not in UNRECORDED_HEADERS}
            exchange.learn(minted, answered, content)
            exchanges.append({
                "exchange": exchange.name,
                "request": exchange.recorded(),
                "status": response.code,
                "headers": answered,
                "body": content.decode("utf-8")})
        return normalised(exchanges, tokens.issued)

    def finished(self, d: Deferred[Any], name: str) -> Deferred[Any]:
        """
        C{d}, which must have fired: in memory, an answer that is not
        complete once the clock has moved never will be.
        """
        if not d.called:
            self.fail(f"exchange {name!r} is not answered (a stream?)")
        return d

    @inlineCallbacks
    def test_answersUnchanged(self) -> Generator[Any, Any, None]:
        """
        Every answer of the script is the recorded one, byte for byte.
        """
        lines = yield self.converse()
        if os.environ.get(RECORD):
            CORPUS.parent().makedirs(ignoreExistingDirectory=True)
            with CORPUS.open("w") as corpus:
                corpus.write("".join(f"{line}\n" for line in lines).encode())
            return
        recorded = CORPUS.getContent().decode().splitlines()
        for number, (live, kept) in enumerate(
                zip(lines, recorded, strict=False), 1):
            if live != kept:
                self.fail(f"exchange {number} "
                          f"({json.loads(kept)['exchange']}) answers "
                          f"otherwise:\n" + _diff(kept, live))
        self.assertEqual(len(lines), len(recorded),
                         "the script and the corpus differ in length")

    @inlineCallbacks
    def test_deterministic(self) -> Generator[Any, Any, None]:
        """
        Two runs of the script answer the same.
        """
        first = yield self.converse()
        second = yield self.converse()
        self.assertEqual(first, second)


def _diff(kept: str, live: str) -> str:
    """
    A unified diff of two exchanges, their JSON bodies one member a line
    (in their own order); the raw lines when only the bytes differ (the
    spacing of a body, say).
    """
    def pretty(line: str) -> list[str]:
        document = json.loads(line)
        body = document.pop("body")
        try:
            body = json.dumps(json.loads(body), indent=1)
        except ValueError:
            pass
        return (json.dumps(document, indent=1, sort_keys=True) + "\n" +
                body).splitlines()
    shown = list(difflib.unified_diff(
        pretty(kept), pretty(live), "recorded", "live", lineterm=""))
    return "\n".join(shown or difflib.unified_diff(
        [kept], [live], "recorded", "live", lineterm=""))
