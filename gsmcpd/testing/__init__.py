"""
Test doubles shipped with gsmcpd.

Nothing here is GemStone: ``gsmcpd.testing.simulator`` is the simulated
stone, a fake of libgcits plus a simulator process, for the test suite and
for ``--simulated`` demos. It is kept in the package so a plain install can
run ``--simulated``; the runtime never imports it otherwise.
"""
