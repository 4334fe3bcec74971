"""
Tests of gsmcpd.auth: users, scopes, tokens and keys.
"""
