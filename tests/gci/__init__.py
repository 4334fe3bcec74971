"""
Tests of gsmcpd.gci: the binding, its pool and breaker, against the
simulated stone.
"""
