"""
MCP sessions: the work sessions keyed by an opaque handle and the 2025
clients' sessions working in them (the registry, by role), and the policies
that govern a session's life: lifetime, deadlines and breaks, view hygiene
and worker identity.
"""
