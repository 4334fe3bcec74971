"""
The 2025 revisions' own protocol modules: the adapter that answers a
request on its client's MCP session, the server's requests to a client on
its event stream, and the sessions' subscriptions.
"""
