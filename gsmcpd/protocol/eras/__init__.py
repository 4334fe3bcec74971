"""
The two protocol eras, each a thin adapter over the era-neutral handlers
of L{gsmcpd.protocol}: L{legacy} (the 2025 revisions: a handshake, an MCP
session named by a header, server-to-client requests on event streams) and
L{modern} (2026-07-28: no handshake, every request self-describing,
GemStone sessions behind handles).  Whatever only one era has lives in its
own package.
"""
