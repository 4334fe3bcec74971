"""
Tests of gsmcpd.observe: audit, metrics, logs and traces.
"""
