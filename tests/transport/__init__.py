"""
Tests of gsmcpd.transport: Streamable HTTP, in memory and over real
sockets, with real clients.
"""
