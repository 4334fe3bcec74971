"""
MCP over JSON-RPC, independent of HTTP: the methods, capabilities, the
surface (resources, prompts, completion), requests to the client,
instructions, and the one path every GemStone-backed call takes.
"""
