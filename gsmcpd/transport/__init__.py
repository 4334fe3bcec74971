"""
The Streamable HTTP transport: the C{/mcp} resource, its gates (Origin,
protocol version, session id, body size), the connection defences and
Server-Sent Events framing.  It gates, parses, hands a message to an era
(the 2025 era's session found by that era's resolution) and renders the
answer.
"""
