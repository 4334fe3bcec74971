"""
The preflight template of C{gsmcpd check}: the daemon's user's privileges
and the stone's session limit (the simulator's login cap).
"""

from gsmcpd.testing.simulator.handlers import handler


@handler("preflight")
def preflight(ev, args):
    session = ev.session
    stone = session.stone
    return {"user": session.user,
            "privileges": sorted(stone.privileges.get(session.user, ())),
            "maxSessionId": stone.maxLogins, "stone": stone.name,
            "version": stone.version}
