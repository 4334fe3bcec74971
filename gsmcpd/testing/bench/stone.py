"""
The simulated stone's own cost: the daemon's C{execute_code} source
executed straight through the ctypes binding, with no HTTP, no MCP and no
reactor, on a simulated stone of its own.

Without it a slow simulator would pass for a slow daemon, or hide one.
"""

import os
import shutil
import tempfile
import threading
import time

from gsmcpd.daemon.stone import SIMULATED_PASSWORD, SIMULATED_USER
from gsmcpd.gci.library import GciLibrary
from gsmcpd.testing.simulator.build import libraryPath
from gsmcpd.testing.simulator.launch import launch
from gsmcpd.tools.execution import MAX_VALUE_CHARACTERS
from gsmcpd.tools.templates.render import Template
from gsmcpd.tools.templates.run import MAX_RESULT_BYTES


def executeCodeSource(code):
    """
    The Smalltalk gsmcpd sends for C{execute_code} of C{code}.
    """
    return Template.named("execute_code").render(
        {"code": code, "limit": MAX_VALUE_CHARACTERS},
        MAX_RESULT_BYTES).encode("utf-8")


def measure(code, duration, sessions):
    """
    Execute C{code}'s source back to back for C{duration} seconds: on one
    session, then on C{sessions} sessions at once, each from its own thread
    (as the daemon's gem threads do).

    @return: the one session's latencies (seconds), and the calls per
        second all C{sessions} completed together.
    """
    directory = tempfile.mkdtemp(prefix="gsmcpd-bench-stone-")
    stone = launch(os.path.join(directory, "stone"), maxLogins=sessions)
    try:
        library = GciLibrary.load(libraryPath())
        source = executeCodeSource(code)
        single = _run(library, stone.socketPath, source, duration, 1)
        together = _run(library, stone.socketPath, source, duration,
                        sessions)
        return single[0], sum(map(len, together)) / duration
    finally:
        stone.stop()
        shutil.rmtree(directory, ignore_errors=True)


def _run(library, nrs, source, duration, sessions):
    """
    Each of C{sessions} threads' latencies; raises what failed on any of
    them (a bench that measured nothing must not pass for a fast one).
    """
    results = [[] for _ in range(sessions)]
    failures = []
    ready = threading.Barrier(sessions)

    def work(latencies):
        handle, _warning = library.login(nrs, None, None, None,
                                         SIMULATED_USER, SIMULATED_PASSWORD)
        try:
            utf8 = library.resolveSymbol(handle, "Utf8")
            ready.wait()
            deadline = time.perf_counter() + duration
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                library.executeFetchBytes(handle, source, utf8,
                                          MAX_RESULT_BYTES)
                latencies.append(time.perf_counter() - started)
        finally:
            library.logout(handle)

    def guarded(latencies):
        try:
            work(latencies)
        except BaseException as e:
            # The first failure, then the others it broke the barrier of.
            failures.append(e)
            ready.abort()

    threads = [threading.Thread(target=guarded, args=(r,)) for r in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return results
