"""
C{twistd gsmcp}: options in, the daemon's service tree out.
"""

from collections.abc import Mapping

from twisted.internet.interfaces import IReactorCore
from twisted.logger import Logger

from gsmcpd.daemon.options import Options
from gsmcpd.daemon.refusal import underTwistd
from gsmcpd.daemon.service import GsmcpService, assemble
from gsmcpd.daemon.settings import ConfigError
from gsmcpd.daemon.stone import loadLibrary

__all__ = ["Options", "makeService"]

log = Logger()


def makeService(options: Options, environ: Mapping[str, str] | None = None,
                reactor: IReactorCore | None = None) -> GsmcpService:
    """
    Validate the configuration and build the service tree.

    A configuration that cannot work stops here, before anything starts,
    with one line naming the setting; a setting given under a name that is
    going away is logged as a warning naming the new one.

    @param environ: the environment to read settings from (default: the
        process's); C{reactor}: the reactor to run on (default: the global
        one, as twistd installed it).
    """
    if reactor is None:
        from twisted.internet import reactor
    try:
        config = options.config(environ)
        for warning in options.warnings:
            log.warn("{renamed}", renamed=warning)
        return underTwistd(assemble(config, loadLibrary(config), reactor),
                           config, options)
    except ConfigError as e:
        raise SystemExit(f"gsmcpd: refusing to start: {e}")
