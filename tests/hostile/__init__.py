"""
The hostile-input suite: what careless and hostile clients send, and what
the daemon must answer (issue 11).
"""
