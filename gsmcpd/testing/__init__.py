"""
Test doubles and test tools shipped with gsmcpd.

Nothing here is GemStone: ``gsmcpd.testing.simulator`` is the simulated
stone, a fake of libgcits plus a simulator process, for the test suite and
for ``--simulated`` demos. It is kept in the package so a plain install can
run ``--simulated``; the runtime never imports it otherwise. Beside it are
what the tests and ``bin/`` scripts import: the conformance fixtures, the
benchmark suite (``bench``, run by ``bin/bench``) and the template mutation
tool (``mutants``, run by ``bin/mutate-templates``).
"""
