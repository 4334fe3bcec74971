"""
C{twistd gsmcp}: options in, the daemon's service out.
"""

from twisted.internet import reactor

from gsmcpd.daemon.options import Config, ConfigError, Options
from gsmcpd.daemon.service import GsmcpService, loadLibrary

__all__ = ["Options", "makeService"]


def makeService(options):
    """
    Validate the configuration and build the service.

    A configuration that cannot work stops here, before anything starts,
    with one line naming the setting.
    """
    try:
        config = Config.fromSettings(options.settings())
        library = loadLibrary(config)
    except ConfigError as e:
        raise SystemExit(f"gsmcpd: refusing to start: {e}")
    return GsmcpService(config, library, reactor)
