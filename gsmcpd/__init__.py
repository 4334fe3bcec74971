"""
gsmcpd: a Model Context Protocol server daemon for GemStone/S 64.

Each MCP session owns one GemStone session through libgcits; every call on
it runs on that session's own thread, so the reactor never waits on a stone.
"""

__version__ = "0.1.0.dev0"
