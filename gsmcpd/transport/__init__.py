"""
The Streamable HTTP transport: the C{/mcp} resource, its gates (Host,
Origin, protocol version, session id), the connection defences (body size
among them) and Server-Sent Events.  It gates and parses a request, hands a 2025
request's session id to its era (which finds the client session), the
message to its era and writes the answer, as JSON or as an event stream; it also holds a
2025 client's GET stream and ends its session on DELETE.
"""
