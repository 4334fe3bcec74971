"""
Tests of gsmcpd.protocol: the MCP methods, both eras, the call runner.
"""
