"""
gsmcpd's benchmark suite: every number measured against a reference served
on the same machine in the same run, and reported as a ratio, because on a
small shared machine absolute numbers drift and ratios hold.

Run it with C{bin/bench} (or C{python -m gsmcpd.testing.bench});
C{docs/benchmarks.rst} says what it measures and how.
"""
