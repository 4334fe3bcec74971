"""
The Streamable HTTP transport: the Klein app, its gates (Origin, protocol
version, session id, body size) and Server-Sent Events framing.  It gates,
parses, hands a message to the protocol layer and renders the answer.
"""
