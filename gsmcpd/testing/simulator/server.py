"""
The simulated stone's socket side: accept connections from the fake
libgcits, turn each logged-in connection into a session's gem, and serve
the tests' CONTROL requests.  The wire format is in L{gsmcpd.testing.simulator.wire}.
"""

import json
import os
import socket
import sys
import threading
import traceback

import attr

from gsmcpd.testing.simulator import debugging, errors, events, wire
from gsmcpd.testing.simulator.gem import resultBytes
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.objects import Array, String
from gsmcpd.testing.simulator.repository import ABSENT
from gsmcpd.testing.simulator.stone import FULL_PRIVILEGES, GemKilled
from gsmcpd.testing.simulator.system import USER_GLOBALS, globalKey, globalValue

OOP_NIL = 0x14

SOURCE_ENCODINGS = {"String": "latin-1", "Utf8": "utf-8"}
"""The classes GciTsExecute takes for C{sourceOop} with a C{sourceStr}
("typically OOP_CLASS_STRING or OOP_CLASS_Utf8", gcits.hf), and how each
reads the bytes: a String's are 8-bit characters."""


def _errorReply(error):
    return wire.encodeFields(wire.ERROR, [
        error.number, int(error.fatal), error.message, error.reason, error.context])


def _argumentError(message):
    return errors.GciError(errors.ARGUMENT_TYPE_ERROR, errors.describe(
        "ArgumentTypeError", errors.ARGUMENT_TYPE_ERROR, message), reason="argumentType")


@attr.s(eq=False)
class ObjectTable:
    """
    The OOPs the simulated stone has handed out (by GciTsResolveSymbol),
    stone-wide as GemStone's are.  They are deliberately not GemStone's
    numbers (OOP_CLASS_Utf8 is 154113 there): a client must ask, as public
    GemStone clients do, rather than trust a constant.
    """

    FIRST = 0x7E000001
    STEP = 0x100

    _byOop = attr.ib(factory=dict)
    _byId = attr.ib(factory=dict)
    _lock = attr.ib(factory=threading.Lock)

    def oopOf(self, value):
        with self._lock:
            oop = self._byId.get(id(value))
            if oop is None:
                oop = self.FIRST + self.STEP * len(self._byOop)
                self._byId[id(value)] = oop
                self._byOop[oop] = value
            return oop

    def resolve(self, session, name):
        """
        GciTsResolveSymbol: the OOP of what C{name} is bound to in
        C{session}'s symbol list.
        """
        value = globalValue(session, name)
        if value is ABSENT:
            raise errors.GciError(errors.UNDEFINED_SYMBOL, errors.describe(
                "CompileError", errors.UNDEFINED_SYMBOL,
                f"GciTsResolveSymbol: {name!r} is not in the symbol list (simulated "
                "stone; GemStone's number and wording are inferred)"), reason="undefinedSymbol")
        return self.oopOf(value)

    def sourceText(self, source, sourceOop):
        """
        The text of an EXECUTE's source bytes, read as C{sourceOop} (a class
        this table handed out) says.

        @raise errors.GciError: C{sourceOop} is not the String or Utf8 class.
        """
        value = self._byOop.get(int(sourceOop or 0))
        for name, encoding in SOURCE_ENCODINGS.items():
            if value is CLASSES[name]:
                return source.decode(encoding, "replace")
        raise _argumentError(
            f"GciTsExecute: sourceOop {int(sourceOop or 0)} is not the String or Utf8 class "
            "(simulated stone: its OOPs are its own; resolve the class with "
            "GciTsResolveSymbol)")


@attr.s(eq=False)
class Gem:
    """
    One session's connection: reads its requests, runs each EXECUTE on a
    worker thread so a BREAK can arrive meanwhile, writes the replies.
    """

    server = attr.ib()
    sock = attr.ib()
    session = attr.ib()
    _writeLock = attr.ib(factory=threading.Lock)
    _suspended = attr.ib(factory=set)
    """The GsProcesses failed calls left, until GciTsClearStack clears them."""

    def send(self, frame):
        with self._writeLock:
            try:
                self.sock.sendall(frame)
            except OSError:
                pass

    def serve(self):
        try:
            while True:
                opcode, fields = wire.readFrame(self.sock)
                if opcode == wire.EXECUTE:
                    self._startExecute(*fields[:3])
                elif opcode == wire.CONTINUE:
                    self._startCall(True, debugging.continueWith, self.session, int(fields[0]))
                elif opcode == wire.BREAK:
                    self.session.interrupt.breakCall(fields[:1] == [b"1"])
                elif opcode == wire.CLEARSTACK:
                    self.send(self._clearStack(int(fields[0])))
                elif opcode == wire.RESOLVE:
                    self.send(self._resolve(fields[0].decode("utf-8", "replace")))
                elif opcode == wire.LOGOUT:
                    # Logged out before the answer, as a stone's logout is
                    # over when GciTsLogout returns: its processes too.
                    self._endRuns()
                    self.server.forget(self)
                    self.send(wire.encodeFields(wire.OK, []))
                    return
                else:
                    return
        except wire.ConnectionClosed:
            pass
        finally:
            self.close()

    def _startExecute(self, source, sourceOop=None, flags=b"0"):
        try:
            text = self.server.objects.sourceText(source, sourceOop)
        except errors.GciError as e:
            self.send(_errorReply(e))
            return
        self._startCall(flags != b"0", debugging.execute, self.session, text, int(flags))

    def _startCall(self, withOop, function, *args):
        """
        Run a call on its own thread; its reply carries the result's OOP
        when the call was GciTsExecute's or GciTsContinueWith's.
        """
        self.session.interrupt.begin()
        threading.Thread(target=self._execute, args=(withOop, function, *args),
                         daemon=True).start()

    def _clearStack(self, process):
        if process in self.session.debugRuns:
            try:
                debugging.clearStack(self.session, process)
            except errors.GciError as e:
                return _errorReply(e)
            return wire.encodeFields(wire.OK, [])
        if process not in self._suspended:
            return _errorReply(_argumentError(
                f"GciTsClearStack: {process} is not a GsProcess this session has suspended "
                "(simulated stone; GemStone's wording is inferred)"))
        self._suspended.discard(process)
        return wire.encodeFields(wire.OK, [])

    def _resolve(self, name):
        try:
            return wire.encodeFields(wire.OK, [self.server.objects.resolve(self.session, name)])
        except errors.GciError as e:
            return _errorReply(e)

    def _execute(self, withOop, function, *args):
        try:
            value = function(*args)
            reply = wire.encodeFields(wire.OK, [resultBytes(value)] + (
                [self.server.objects.oopOf(value)] if withOop else []))
        except errors.GciError as e:
            if e.context != OOP_NIL and e.context not in self.session.debugRuns:
                self._suspended.add(e.context)
            reply = _errorReply(e)
        except GemKilled:
            return
        except RecursionError:
            reply = _errorReply(errors.simulatorLimit(
                "the evaluation recursed deeper than the simulator allows"))
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            reply = _errorReply(errors.GciError(
                0, f"simulated stone internal error: {e!r}", reason="simulatorBug"))
        finally:
            self.session.interrupt.end()
        self.send(reply)

    def _endRuns(self):
        for run in list(self.session.debugRuns.values()):
            run.end()

    def close(self):
        """
        End the gem: its session is logged out, its call, if any, stops,
        and so do its stopped processes.
        """
        self.session.interrupt.kill()
        self._endRuns()
        self.server.forget(self)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def jsonToSmalltalk(value):
    """
    A CONTROL request's JSON value as a Smalltalk value.
    """
    if isinstance(value, str):
        return String(value)
    if isinstance(value, list):
        return Array([jsonToSmalltalk(each) for each in value])
    return value


@attr.s(eq=False)
class StoneServer:
    """
    Listens on a Unix socket for the fake libgcits and for CONTROL clients.
    """

    stone = attr.ib()
    path = attr.ib()
    objects = attr.ib(factory=ObjectTable)
    _gems = attr.ib(factory=dict)          # session number -> Gem
    _lock = attr.ib(factory=threading.Lock)
    _listener = attr.ib(default=None)
    loginWarning = attr.ib(default=())
    """C{(number, message)} of the warning every login answers with, as a
    stone warns of a password about to expire (2347), or empty for none."""

    def __attrs_post_init__(self):
        self.stone.stopGem = self.stopGem

    def stopGem(self, number):
        """
        Stop session C{number}'s gem: its connection closes, its session
        logs out, and a call it has in flight fails fatally.
        """
        with self._lock:
            gem = self._gems.get(number)
        if gem is not None:
            gem.close()
        return gem is not None

    def listen(self):
        """
        Bind the socket, replacing a stale one but never a live stone's.
        """
        if os.path.exists(self.path):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                if probe.connect_ex(self.path) == 0:
                    raise OSError(f"a simulated stone is already listening on {self.path}")
            os.unlink(self.path)
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        self._listener.listen(64)

    def serveForever(self):
        """
        Accept connections until interrupted; then close everything and
        remove the socket.
        """
        try:
            while True:
                sock, _ = self._listener.accept()
                threading.Thread(target=self._greet, args=(sock,), daemon=True).start()
        finally:
            self.close()

    def close(self):
        """
        Stop listening, end every gem and remove the socket (more than once
        is harmless).
        """
        if self._listener is not None:
            self._listener.close()
        with self._lock:
            gems = list(self._gems.values())
        for gem in gems:
            gem.close()
        if os.path.exists(self.path):
            os.unlink(self.path)

    def forget(self, gem):
        with self._lock:
            if self._gems.get(gem.session.number) is gem:
                del self._gems[gem.session.number]
        self.stone.logout(gem.session)

    def _greet(self, sock):
        try:
            opcode, fields = wire.readFrame(sock)
        except wire.ConnectionClosed:
            sock.close()
            return
        if opcode == wire.LOGIN:
            self._login(sock, fields)
        elif opcode == wire.CONTROL:
            self._control(sock, fields)
        else:
            sock.close()

    def _login(self, sock, fields):
        texts = [field.decode("utf-8", "replace") for field in fields]
        user, password, flags = (texts[3:6] + ["", "", "0"])[:3]
        try:
            flags = int(flags or "0")
        except ValueError:
            flags = 0
        try:
            session = self.stone.login(user, password, flags)
        except errors.GciError as e:
            sock.sendall(_errorReply(e))
            sock.close()
            return
        gem = Gem(self, sock, session)
        with self._lock:
            self._gems[session.number] = gem
        gem.send(wire.encodeFields(wire.OK, [session.number, *self.loginWarning]))
        gem.serve()

    def _control(self, sock, fields):
        try:
            while True:
                try:
                    outcome = self.control(json.loads(fields[0]))
                    reply = wire.encodeFields(wire.OK, [json.dumps(outcome)])
                except (KeyError, TypeError, ValueError) as e:
                    reply = wire.encodeFields(wire.ERROR, [0, 0, f"bad CONTROL request: {e!r}", ""])
                sock.sendall(reply)
                opcode, fields = wire.readFrame(sock)
                if opcode != wire.CONTROL:
                    break
        except (wire.ConnectionClosed, OSError):
            pass
        finally:
            sock.close()

    def control(self, request):
        """
        Carry out one CONTROL request (test-only): see L{CONTROL_OPS}.
        """
        op = request["op"]
        if op == "sessions":
            return {"sessions": self.stone.describeSessions()}
        if op == "debugRuns":
            return {"debugRuns": debugging.living()}
        if op == "kill":
            return {"killed": self.stopGem(request["session"])}
        if op == "maxLogins":
            self.stone.maxLogins = int(request["value"])
            return {"maxLogins": self.stone.maxLogins}
        if op == "commitFromOutside":
            key = globalKey(USER_GLOBALS, request["key"])
            commit = self.stone.commitFromOutside(key, jsonToSmalltalk(request["value"]))
            return {"commit": commit}
        if op == "signalAbortBacklog":
            value = request["value"]
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError("value must be an integer or null")
            self.stone.signalAbortBacklog = value
            return {"signalAbortBacklog": value}
        if op == "grantOnetime":
            self.stone.grantOnetime(request["minter"], request["userId"])
            return {"granted": True}
        if op == "addUser":
            privileges = request.get("privileges")
            self.stone.addUser(
                request["user"], request["password"],
                FULL_PRIVILEGES if privileges is None else frozenset(privileges),
                commitsDisabled=bool(request.get("commitsDisabled", False)))
            return {"user": request["user"]}
        if op == "ignoreBreaks":
            session = self.stone.sessions.get(request["session"])
            if session is None:
                return {"ignoring": None}
            session.interrupt.ignoreBreaks(request["which"])
            return {"ignoring": request["which"]}
        if op == "backlog":
            backlog, pinned = self.stone.backlogState()
            return {"backlog": backlog, "oldestPinnedBy": pinned}
        if op == "event":
            name = request["event"]
            if name not in events.EVENTS:
                raise ValueError(f"event must be one of {', '.join(events.EVENTS)}")
            session = self.stone.sessions.get(request["session"])
            if session is None:
                return {"delivered": None}
            session.interrupt.deliver(name, str(request.get("detail", "")))
            return {"delivered": name}
        if op == "loginWarning":
            warning = request["warning"]
            self.loginWarning = () if warning is None else (
                int(warning["number"]), str(warning["message"]))
            return {"loginWarning": warning}
        if op == "advanceClock":
            self.stone.advanceClock(request["seconds"])
            return {"advanced": request["seconds"]}
        raise ValueError(f"unknown op {op!r}; known: {', '.join(CONTROL_OPS)}")


CONTROL_OPS = {
    "sessions": "the logged-in sessions: number, user, commits behind, view, cache name",
    "debugRuns": "how many debuggable processes of any session have not ended",
    "kill": "stop session N's gem (its connection closes; calls fail fatally)",
    "maxLogins": "set the login cap",
    "commitFromOutside": "commit UserGlobals at: key put: value as another session",
    "signalAbortBacklog": "set the stone's STN_SIGNAL_ABORT_CR_BACKLOG (value; null or <= 0 "
                          "reads back as nil)",
    "grantOnetime": "let user minter mint one-time passwords for user userId",
    "addUser": "add a user: user, password, privileges (list; default full), "
               "commitsDisabled (bool)",
    "ignoreBreaks": "make session N's running (or next) call ignore breaks: which = "
                    "'soft' or 'both' (then only stopping its gem ends it)",
    "backlog": "the commit-record backlog and the sessions on the oldest view",
    "event": "deliver asynchronous event `event` (signalAbort, lostOtRoot, sessionSignal, "
             "finishTransaction; `detail` for its text) to session N's running or next "
             "call, as if it had enabled it or were outside a transaction",
    "loginWarning": "answer every login from now on with warning {number, message} "
                    "(null: none)",
    "advanceClock": "move the stone's clock on by seconds (one-time passwords expire by it)",
}
