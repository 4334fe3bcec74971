"""
The simulated stone: a test double for GemStone/S 64, not GemStone.

Two parts, so that gsmcpd runs its real GCI binding against it unchanged:

  - C{fakegcits.c}, a shared library exporting the libgcits functions the
    daemon calls, with GemStone 3.7's prototypes (built by L{build});
  - C{python -m gsmcpd.testing.simulator}, a separate process modelling a stone:
    users, a login cap, sessions with transactional views, and answers to
    the daemon's templates (L{handlers}), including a small Smalltalk
    evaluator for C{execute_code}.

The library reaches the process over a Unix socket whose path is the stone
NRS.  The daemon itself imports only L{build} and L{launch} from here.
"""
