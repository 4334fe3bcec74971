"""
The simulated stone: a test double for GemStone/S 64, not GemStone.

Two parts, so that gsmcpd runs its real GCI binding against it unchanged:

  - C{fakegcits.c}, a shared library exporting the libgcits functions the
    daemon calls, with GemStone 3.7's prototypes (built by L{build});
  - C{python -m gsmcpd.testing.simulator}, a separate process modelling a stone:
    users, a login cap, sessions with transactional views, and a gem
    (L{gem}) that compiles and runs the Smalltalk it is sent, templates and
    envelope included, against a kernel model of GemStone 3.7's classes
    (exactly the selectors of C{tests/selectors/*.tsv}).

The library reaches the process over a Unix socket whose path is the stone
NRS.  The daemon itself imports only L{build} and L{launch} from here.
"""
