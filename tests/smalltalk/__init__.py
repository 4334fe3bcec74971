"""
Tests of gsmcpd.smalltalk: the parser and the selector check.
"""
