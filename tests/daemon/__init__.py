"""
Tests of gsmcpd.daemon: options, assembly, the commands and what runs the
whole daemon over real sockets.
"""
