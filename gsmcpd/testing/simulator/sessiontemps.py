"""
The simulated stone's session temporaries: C{SessionTemps current}, the
session's own SessionTemps (a SymbolKeyValueDictionary in GemStone), held
in the gem's transient session state.

Nothing in it is in any view: neither commit nor abort touches it, no other
session sees it, and it is gone when the session logs out (a new login
starts with an empty one), as the GemStone 3.4 Programming Guide's
"SessionTemps and access to Session State" says.  That is what makes a
session that served a call unfit to serve another's: the daemon logs it
out (L{gsmcpd.sessions.warm}).
"""

import weakref

from gsmcpd.testing.simulator.kernel import classMethod
from gsmcpd.testing.simulator.objects import SessionTempsDictionary

_sessionTemps = weakref.WeakKeyDictionary()


@classMethod("SessionTemps", "current")
def _current(ev, receiver):
    """
    This session's SessionTemps, the same one for as long as it is logged
    in.
    """
    temps = _sessionTemps.get(ev.session)
    if temps is None:
        temps = _sessionTemps[ev.session] = SessionTempsDictionary()
    return temps


@classMethod("SymbolKeyValueDictionary", "new")
def _new(ev, receiver):
    """
    A gap in the model, which must fail loudly: its Dictionary compares
    keys by equality, a SymbolKeyValueDictionary by the identity of its
    Symbols.
    """
    raise NotImplementedError(f"the model makes no new {receiver.name}")
