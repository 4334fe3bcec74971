"""
Tests of gsmcpd.sessions: the registry and the policies that own a
session's state.
"""
