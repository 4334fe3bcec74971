"""
The conformance fixtures: a toolset of the tools, resources and prompts the
official MCP conformance suite calls by name (C{--toolsets "...
conformance"}, served only when named).  A test fixture, not GemStone: its
tools declare that they need no GemStone session.
"""
