"""
Tests of the test tools in gsmcpd.testing: conformance fixtures, the bench,
the mutation tool.
"""
