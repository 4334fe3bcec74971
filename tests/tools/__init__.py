"""
Tests of gsmcpd.tools: the toolsets and their templates.
"""
