"""
The C{twistd gsmcp} plugin.
"""

from twisted.application.service import ServiceMaker

from gsmcpd.daemon.early import holdHangups


class GsmcpMaker(ServiceMaker):
    """
    twistd asks for the options of the plugin it runs, before importing the
    daemon: from then on a C{SIGHUP} never ends the process
    (L{gsmcpd.daemon.early}).
    """

    @property
    def options(self):
        holdHangups()
        return super().options


gsmcp = GsmcpMaker(
    "gsmcpd",
    "gsmcpd.daemon.tap",
    "An MCP server for GemStone/S 64 (Streamable HTTP, one GemStone session "
    "per MCP session)",
    "gsmcp",
)
