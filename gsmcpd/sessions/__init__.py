"""
MCP sessions: the registry keyed by an opaque handle, and the policies that
govern a session's life: lifetime, deadlines and breaks, view hygiene and
worker identity.
"""
