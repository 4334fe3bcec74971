"""
The OAuth 2.1 resource server: bearer tokens checked against the
authorization server's keys, the challenge a refused request gets, the
Protected Resource Metadata that tells a client where to get a token, and
which toolsets a token's scopes open.

A bottom layer: nothing here imports the rest of gsmcpd.
"""
