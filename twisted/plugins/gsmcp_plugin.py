"""
The C{twistd gsmcp} plugin.
"""

from twisted.application.service import ServiceMaker

gsmcp = ServiceMaker(
    "gsmcpd",
    "gsmcpd.daemon.tap",
    "An MCP server for GemStone/S 64 (Streamable HTTP, one GemStone session "
    "per MCP session)",
    "gsmcp",
)
