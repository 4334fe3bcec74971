"""
The C{twistd gsmcp} plugin.
"""

from twisted.application.service import ServiceMaker
from twisted.python.usage import Options

from gsmcpd.daemon.early import begin


class GsmcpMaker(ServiceMaker):
    """
    twistd asks for the options of the plugin it runs before importing the
    daemon or starting a thread: the process's first instant
    (L{gsmcpd.daemon.early}).
    """

    @property
    def options(self) -> type[Options]:
        begin()
        return super().options


gsmcp = GsmcpMaker(
    "gsmcpd",
    "gsmcpd.daemon.tap",
    "An MCP server for GemStone/S 64 (Streamable HTTP, one GemStone session "
    "per MCP session)",
    "gsmcp",
)
