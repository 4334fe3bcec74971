"""
The conformance fixtures: a toolset of the tools, resources and prompts the
official MCP conformance suite calls by name.  A test fixture, not
GemStone, and not one of the toolsets gsmcpd ships: it is served only as a
toolset of one's own, by its import path (L{TOOLSET}), which
C{bin/run-conformance} names in C{--toolsets}.  Its tools declare that they
need no GemStone session.
"""

TOOLSET = "gsmcpd.testing.conformance.toolset:ConformanceToolset"
"""What C{--toolsets} names to serve the fixtures."""
