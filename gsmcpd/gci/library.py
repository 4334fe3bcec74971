"""
A ctypes binding to libgcits: only the functions gsmcpd calls.

Prototypes and the C{GciErrSType} layout are those of the GemStone/S 64 3.7
C{gcits.hf}/C{gci.ht} headers.  The library is bound with C{ctypes.CDLL}, so
a call releases the GIL while it blocks in C (C{PyDLL} would freeze the
reactor for the whole call).  Every function blocks on the stone (even
GciTsBreak, on a wedged gem) and is refused on the reactor thread; all but
L{GciLibrary.breakSession} must be called on a session's own thread, a
break on its breaker's.  A C{GciSession} handle is freed by
L{GciLibrary.logout}:
whoever holds one must make sure no break is in flight on it by then
(L{gsmcpd.gci.session.GemSession} does).
"""

from __future__ import annotations

import ctypes
import glob
import mmap
import os
import threading
from typing import TYPE_CHECKING, Protocol, cast

from twisted.python.threadable import isInIOThread

from gsmcpd.gci.errors import OOP_ILLEGAL, OOP_NIL, GciError

if TYPE_CHECKING:
    from ctypes import _CArgObject

OopType = ctypes.c_uint64
BoolType = ctypes.c_int
GciSession = ctypes.c_void_p

Handle = int
"""A logged-in C{GciSession}, as ctypes answers a C{void *}."""

GCI_ERR_STR_SIZE = 1024
GCI_MAX_ERR_ARGS = 10

SUPPORTED_VERSIONS = ("3.7",)
"""GemStone releases whose libgcits this binding's prototypes match."""


class GciErrSType(ctypes.Structure):
    """
    GemStone's error report, filled in by every GciTs function that fails.
    """

    _fields_ = [
        ("category", OopType),
        ("context", OopType),
        ("exceptionObj", OopType),
        ("args", OopType * GCI_MAX_ERR_ARGS),
        ("number", ctypes.c_int),
        ("argCount", ctypes.c_int),
        ("fatal", ctypes.c_ubyte),
        ("message", ctypes.c_char * (GCI_ERR_STR_SIZE + 1)),
        ("reason", ctypes.c_char * (GCI_ERR_STR_SIZE + 1)),
    ]

    def asError(self) -> GciError:
        """
        The L{GciError} this report describes.
        """
        return GciError(
            number=self.number,
            message=self.message.decode("utf-8", "replace"),
            fatal=bool(self.fatal),
            reason=self.reason.decode("utf-8", "replace"),
            context=self.context,
        )


assert ctypes.sizeof(GciErrSType) == 2168, "GciErrSType layout drifted"

_PROTOTYPES = {
    "GciTsVersion": (ctypes.c_uint, [ctypes.c_char_p, ctypes.c_size_t]),
    "GciTsLogin": (GciSession, [
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, BoolType,
        ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint,
        ctypes.c_int, ctypes.POINTER(BoolType), ctypes.POINTER(GciErrSType)]),
    "GciTsLogout": (BoolType, [GciSession, ctypes.POINTER(GciErrSType)]),
    "GciTsExecuteFetchBytes": (ctypes.c_ssize_t, [
        GciSession, ctypes.c_char_p, ctypes.c_ssize_t, OopType, OopType,
        OopType, ctypes.c_char_p, ctypes.c_ssize_t,
        ctypes.POINTER(GciErrSType)]),
    "GciTsBreak": (BoolType, [GciSession, BoolType,
                              ctypes.POINTER(GciErrSType)]),
    "GciTsClearStack": (BoolType, [GciSession, OopType,
                                   ctypes.POINTER(GciErrSType)]),
    "GciTsResolveSymbol": (OopType, [GciSession, ctypes.c_char_p, OopType,
                                     ctypes.POINTER(GciErrSType)]),
    "GciTsExecute_": (OopType, [GciSession, ctypes.c_char_p, ctypes.c_ssize_t, OopType, OopType,
                                OopType, ctypes.c_int, ctypes.c_ushort, ctypes.POINTER(GciErrSType)]),
    "GciTsContinueWith": (OopType, [GciSession, OopType, OopType, ctypes.POINTER(GciErrSType),
                                    ctypes.c_int, ctypes.POINTER(GciErrSType)]),
}


class Libgcits(Protocol):
    """
    The functions of L{_PROTOTYPES} as Python calls them once bound: a
    C{char *} takes L{bytes} or L{None}, an C{int} or an OOP an L{int}, a
    C{GciSession} a L{Handle} (and L{None} for a C{NULL} one), a pointer
    what C{ctypes.byref} answers.  Names are the 3.7 C{gcits.hf}'s.
    """

    def GciTsVersion(self, buf: ctypes.Array[ctypes.c_char],
                     bufSize: int, /) -> int: ...

    def GciTsLogin(self, StoneNameNrs: bytes | None,
                   HostUserId: bytes | None, HostPassword: bytes | None,
                   hostPwIsEncrypted: int, GemServiceNrs: bytes | None,
                   gemstoneUsername: bytes | None,
                   gemstonePassword: bytes | None, loginFlags: int,
                   haltOnErrNum: int, executedSessionInit: _CArgObject,
                   err: _CArgObject, /) -> Handle | None: ...

    def GciTsLogout(self, sess: Handle, err: _CArgObject, /) -> int: ...

    def GciTsExecuteFetchBytes(
            self, sess: Handle, sourceStr: bytes, sourceSize: int,
            sourceOop: int, contextObject: int, symbolList: int,
            result: ctypes.Array[ctypes.c_char], maxResultSize: int,
            err: _CArgObject, /) -> int: ...

    def GciTsBreak(self, sess: Handle, hard: int,
                   err: _CArgObject, /) -> int: ...

    def GciTsClearStack(self, sess: Handle, gsProcess: int,
                        err: _CArgObject, /) -> int: ...

    def GciTsResolveSymbol(self, sess: Handle, str: bytes | None,
                           symbolList: int, err: _CArgObject, /) -> int: ...

    def GciTsExecute_(self, sess: Handle, sourceStr: bytes, sourceSize: int, sourceOop: int,
                      contextObject: int, symbolList: int, flags: int,
                      environmentId: int, err: _CArgObject, /) -> int: ...

    def GciTsContinueWith(self, sess: Handle, gsProcess: int, replaceTopOfStack: int,
                          continueWithError: None, flags: int, err: _CArgObject, /) -> int: ...


class GciLibraryError(Exception):
    """
    The library cannot be found, loaded, or is not a release we support.
    """


class BlockingCallOnReactorThread(AssertionError):
    """
    A blocking GemStone call was attempted on the reactor thread.
    """


class ResultOverrun(GciError):
    """
    A result was larger than the caller's limit: only its first bytes were
    fetched, so it is not answered at all.  (The envelope caps every result
    itself; this is the binding's guard should one escape it.)
    """


def findLibrary(gemstoneDir: str) -> tuple[str | None, str]:
    """
    Find libnetldi and libgcits under C{$GEMSTONE/lib}.

    @return: C{(netldiPath or None, gcitsPath)}
    @raise GciLibraryError: when no libgcits is there.
    """
    lib = os.path.join(gemstoneDir, "lib")
    found = sorted(glob.glob(os.path.join(lib, "libgcits-*-64.so")) +
                   glob.glob(os.path.join(lib, "libgcits-*-64.dylib")))
    if not found:
        raise GciLibraryError(
            f"no libgcits-<version>-64.so under {lib}: set --gci-library "
            "or GEMSTONE to a GemStone/S 64 3.7 product directory")
    gcits = found[-1]
    netldi = gcits.replace("libgcits-", "libnetldi-")
    return (netldi if os.path.exists(netldi) else None), gcits


class GciLibrary:
    """
    A loaded libgcits.

    @ivar version: the release string the library reports.
    """

    def __init__(self, cdll: ctypes.CDLL, path: str) -> None:
        # The prototypes set below make it so.
        self._lib = cast(Libgcits, cdll)
        self.path = path
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                function = getattr(cdll, name)
            except AttributeError:
                raise GciLibraryError(f"{path} does not export {name}")
            function.restype = restype
            function.argtypes = argtypes
        self.version = self._readVersion()

    @classmethod
    def load(cls, path: str, netldi: str | None = None) -> GciLibrary:
        """
        Load libgcits from C{path}.

        On Linux libgcits leaves C{HostCreateThread} to libnetldi, which must
        be loaded first with C{RTLD_GLOBAL}.

        @raise GciLibraryError: on failure, or for an unsupported release.
        """
        try:
            if netldi is not None:
                ctypes.CDLL(netldi, mode=ctypes.RTLD_GLOBAL)
            cdll = ctypes.CDLL(path)
        except OSError as e:
            raise GciLibraryError(f"cannot load {path}: {e}")
        return cls(cdll, path)

    def _readVersion(self) -> str:
        buffer = ctypes.create_string_buffer(256)
        product = self._lib.GciTsVersion(buffer, len(buffer))
        version = buffer.value.decode("utf-8", "replace")
        if product != 3 or not version.startswith(
                tuple(v + "." for v in SUPPORTED_VERSIONS)):
            raise GciLibraryError(
                f"{self.path} is GemStone {version!r} (product {product}); "
                f"gsmcpd supports GemStone/S 64 "
                f"{', '.join(SUPPORTED_VERSIONS)}.x")
        return version

    def _blocking(self) -> GciErrSType:
        if isInIOThread():
            raise BlockingCallOnReactorThread(
                "a blocking GemStone call must run on its session's thread")
        return GciErrSType()

    def login(self, stoneNrs: str, gemNrs: str | None, hostUser: str | None,
              hostPassword: str | None, user: str, password: str,
              flags: int = 0) -> tuple[Handle, GciError | None]:
        """
        Log in: the C{GciSession} handle, and the warning GemStone gave
        with it or L{None} ("If result is non-NULL, login succeeded but
        there may still be a warning in *err", gcits.hf).

        @raise GciError: when the login fails.
        """
        err = self._blocking()
        executedInit = BoolType(0)
        session = self._lib.GciTsLogin(
            _bytes(stoneNrs), _bytes(hostUser), _bytes(hostPassword), 0,
            _bytes(gemNrs), _bytes(user), _bytes(password), flags, 0,
            ctypes.byref(executedInit), ctypes.byref(err))
        if not session:
            raise err.asError()
        return session, (err.asError() if err.number else None)

    def logout(self, session: Handle) -> None:
        """
        Log out, releasing the gem and freeing C{session}: nothing may use
        the handle afterwards, a break from another thread included.
        """
        err = self._blocking()
        if not self._lib.GciTsLogout(session, ctypes.byref(err)):
            raise err.asError()

    def resolveSymbol(self, session: Handle, name: str) -> int:
        """
        The OOP of what C{name} is bound to in the session's symbol list,
        as public GemStone clients find the Utf8 class rather than trust a
        constant.

        @raise GciError: it is bound to nothing there.
        """
        err = self._blocking()
        return self._oop(self._lib.GciTsResolveSymbol(
            session, _bytes(name), OOP_NIL, ctypes.byref(err)), err)

    def executeFetchBytes(self, session: Handle, source: bytes,
                          sourceClass: int, maxBytes: int) -> bytes:
        """
        Execute Smalltalk source and fetch its byte-format result.

        @param source: the source as L{bytes}; its exact length is passed,
            since C{-1} does not work over RPC.
        @param sourceClass: the OOP of the class the source bytes are an
            instance of (Utf8, for UTF-8), from L{resolveSymbol}.
        @param maxBytes: the largest result answered.
        @return: the result bytes.
        @raise ResultOverrun: the result is larger than C{maxBytes}.  The
            header leaves unsaid what a larger result does; its siblings
            (GciTsFetchBytes, GciTsPerformFetchOops) answer the first
            bytes, so one byte more is asked for to tell.
        """
        err = self._blocking()
        buffer = _threadBuffers.get(maxBytes + 1)
        size = self._lib.GciTsExecuteFetchBytes(
            session, source, len(source), sourceClass, OOP_ILLEGAL,
            OOP_NIL, buffer.target, maxBytes + 1, ctypes.byref(err))
        if size < 0:
            raise err.asError()
        if size > maxBytes:
            buffer.release(size)
            raise ResultOverrun(
                number=0, message=f"the result is over the {maxBytes} "
                "bytes asked for", reason="resultOverrun")
        return buffer.take(size)

    def executeDebug(self, session: Handle, source: bytes, sourceClass: int,
                     flags: int) -> int:
        """GciTsExecute_: the result's OOP; stopped, a GciError naming the GsProcess."""
        err = self._blocking()
        return self._oop(self._lib.GciTsExecute_(
            session, source, len(source), sourceClass, OOP_ILLEGAL, OOP_NIL,
            flags, 0, ctypes.byref(err)), err)

    def continueWith(self, session: Handle, process: int, flags: int) -> int:
        """Resume C{process} as it is: a trimmed frame's stack holds nothing to replace."""
        err = self._blocking()
        return self._oop(self._lib.GciTsContinueWith(
            session, process, OOP_ILLEGAL, None, flags, ctypes.byref(err)), err)

    def _oop(self, oop: int, err: GciErrSType) -> int:
        if oop == OOP_ILLEGAL:
            raise err.asError()
        return int(oop)

    def clearStack(self, session: Handle, process: int) -> None:
        """
        Discard the GsProcess a failed execution left suspended.
        """
        err = self._blocking()
        if not self._lib.GciTsClearStack(session, process, ctypes.byref(err)):
            raise err.asError()

    def breakSession(self, session: Handle, hard: bool) -> None:
        """
        Interrupt the call in progress on C{session}, from any thread but
        the reactor's.

        GemStone documents GciTsBreak as callable while another thread is
        inside a call on the same session; with none running it does
        nothing.  It writes to the gem's socket, so a wedged gem or network
        can block it.  It is not safe once a logout of C{session} has begun.
        """
        err = self._blocking()
        if not self._lib.GciTsBreak(session, int(bool(hard)),
                                    ctypes.byref(err)):
            raise err.asError()


class _ResultBuffer:
    """
    One thread's buffer for results: an anonymous mapping, kept from call
    to call.  Its pages cost memory only as results fill them, and a
    result over L{KEPT_BYTES} gives its pages back to the system (a 1 MiB
    malloc per call stayed in each gem thread's arena; a mapping per call
    cost two system calls and a TLB flush on every core the daemon's
    threads run on).
    """

    KEPT_BYTES = 16 << 10

    def __init__(self, size: int) -> None:
        self._mapped = mmap.mmap(-1, size)
        self.target = (ctypes.c_char * size).from_buffer(self._mapped)

    def take(self, size: int) -> bytes:
        """
        The first C{size} bytes of the latest result.
        """
        result = self._mapped[:size]
        self.release(size)
        return result

    def release(self, size: int) -> None:
        """
        Give the pages of a result of C{size} bytes back, if it was large.
        """
        if size > self.KEPT_BYTES:
            self._mapped.madvise(mmap.MADV_DONTNEED)


class _ThreadBuffers(threading.local):
    """
    A L{_ResultBuffer} for each thread and size: a session's calls run on
    its own thread, one at a time.
    """

    def __init__(self) -> None:
        self.bySize: dict[int, _ResultBuffer] = {}

    def get(self, size: int) -> _ResultBuffer:
        buffer = self.bySize.get(size)
        if buffer is None:
            buffer = self.bySize[size] = _ResultBuffer(size)
        return buffer


_threadBuffers = _ThreadBuffers()


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode("utf-8")
