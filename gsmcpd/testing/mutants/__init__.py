"""
Mutation testing of gsmcpd's Smalltalk templates: each mutant is a small
edit a real stone would run (a guard dropped, a side swapped, a page one
row long), and the test modules that name its template must fail on it.

A development tool, not part of the package: run it with
C{bin/mutate-templates} (or C{python -m gsmcpd.testing.mutants});
C{docs/contributing.rst} says when and how.
"""
