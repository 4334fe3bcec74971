"""
Tests of the simulated stone, gsmcpd.testing.simulator (a test double, not
GemStone).
"""
