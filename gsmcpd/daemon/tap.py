"""
C{twistd gsmcp}: options in, the daemon's service tree out.
"""

from gsmcpd.daemon.options import Options
from gsmcpd.daemon.refusal import underTwistd
from gsmcpd.daemon.service import assemble
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import loadLibrary

__all__ = ["Options", "makeService"]


def makeService(options, environ=None, reactor=None):
    """
    Validate the configuration and build the service tree.

    A configuration that cannot work stops here, before anything starts,
    with one line naming the setting.

    @param environ: the environment to read settings from (default: the
        process's); C{reactor}: the reactor to run on (default: the global
        one, as twistd installed it).
    """
    if reactor is None:
        from twisted.internet import reactor
    try:
        config = options.config(environ)
        return underTwistd(assemble(config, loadLibrary(config), reactor),
                           config, options)
    except ConfigError as e:
        raise SystemExit(f"gsmcpd: refusing to start: {e}")
