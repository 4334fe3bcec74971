"""
Short GemStone working guides, served as skills to agents that load them
before they start (by the protocol layer's skills catalog).

Each says in a few lines what the toolsets' instructions say in one
paragraph, with the order of work spelled out.  A guide is served only when
every toolset it names a tool of is served.
"""

from collections.abc import Iterable

import attr


@attr.s(frozen=True, auto_attribs=True)
class Guide:
    """
    @ivar name: lowercase words joined by hyphens.
    @ivar description: one sentence: what it is for and when to load it.
    @ivar body: Markdown.
    @ivar toolsets: the toolsets whose tools it names.
    """

    name: str
    description: str
    body: str
    toolsets: tuple[str, ...]


GUIDES = (
    Guide(
        "gemstone-what-a-view-is",
        "What your GemStone session sees, and when that changes: read first "
        "when you start working in a repository.",
        """
# What a view is

Your MCP session has its own GemStone session: its own transaction and
its own consistent view of the repository, as of one commit.

- A change you make is visible to you at once, and to nobody else until you
  `commit`.
- Other sessions' commits are not visible to you until your view moves:
  `commit`, `abort` and `refresh` move it; no other tool does, except
  code you run that commits, aborts or continues (its result then ends
  with a `[session]` note saying so, and a commit is recorded as one).
- `refresh` moves the view to the newest commit and keeps your changes;
  re-read anything you are about to change afterwards.
- `status` tells whether you hold uncommitted changes; while you do, the
  result of every tool that can change something ends with a one-line
  `[session]` note.
""", ("session",)),
    Guide(
        "gemstone-browse-before-you-edit",
        "How to change GemStone code safely: read it in your present view, "
        "then write; a blind write is refused.",
        """
# Browse before you edit

A write over code this session has not read in its present view is
refused (the blind-write guardrail). So, every time:

1. Find it: `find_implementors`, `find_senders`, `list_methods`,
   `describe_class`.
2. Read it: `get_method_source` before `compile_method` over an existing
   method or `delete_method`; `get_class_definition` before
   `compile_class_definition` over an existing class or `delete_class`.
3. Write it: the write succeeds only if the text is still what you read.
4. After `commit`, `abort` or `refresh` (or code that sends them) your
   reads no longer count: read again before the next write.

A write over something another session changed since you read it is
refused too: re-read, redo the change.
""", ("browsing", "mutation", "search", "session")),
    Guide(
        "gemstone-running-sunit",
        "How to run SUnit tests in your session and read their results "
        "before you commit.",
        """
# Running and reading SUnit results

Tests run in your own session, so they see your uncommitted changes:
compile, run the tests, then commit.

- `run_test_class` runs one class and reports each failing or erroring
  test with its exception.
- `describe_test_failure` re-runs one test alone for the detail.
- `list_failing_tests` with no class names runs every test class in the
  symbol list and can take long: name the classes when you can.

A failure is an assertion that did not hold; an error is an exception the
test did not expect. Fix the code, not the test, unless the test is wrong.

`run_test_method` and `describe_test_failure` answer the stack where the
exception was signalled, innermost frame first: each method with its line, that source line and its arguments and
temporaries. Read it before guessing: the innermost frame of your own code
is usually where to look, and its variables often say why.
""", ("testing",)),
    Guide(
        "gemstone-commit-or-abort",
        "When to commit and when to abort a GemStone transaction, and what "
        "to do when a commit conflicts.",
        """
# Commit versus abort

Nothing commits on your behalf.

- `commit` makes your changes permanent and visible to every session; do it
  when the tests pass.
- `abort` throws every uncommitted change away and moves your view to the
  newest commit.
- A commit that conflicts with another session's is reported as a failure:
  `abort`, redo the change (re-reading first), and commit again.
- GemStone's conflicts are per class, not per method: if another session
  commits any change to a class you changed (another of its methods, its
  definition, its comment), your commit fails. When two of you edit one
  class, take turns: commit small changes soon, and refresh before you start.
- Uncommitted changes are lost when the session ends (closed, idle, or a
  server restart): commit what you mean to keep.
""", ("session",)),
    Guide(
        "gemstone-inspect-a-failure",
        "How to find out why a GemStone test or call fails: look at the "
        "objects involved before you change code.",
        """
# Inspect before you fix

1. Run the failing test alone: `run_test_method`.
2. Look at the state it fails on: `inspect` an expression that builds or
   reaches the receiver of the failing method (for a test, what its
   setUp makes), then follow the ids and path steps (instance variable
   names, keys, indices) to the value that is wrong.
3. Read the method before changing it: `get_method_source`, then
   `compile_method`.
4. Run the test again; ids you were shown stop working once the view
   moves (`commit`, `abort`, `refresh`, or code that sends them): inspect
   afresh.
""", ("debugging", "testing", "browsing", "mutation", "session")),
    Guide(
        "gemstone-debug-a-run",
        "How to stop GemStone code halfway, look at its temporaries, step, "
        "fix a method and rerun its frame.",
        """
# Debug a run

1. `breakpoint_set` in the method (a line; a condition if it runs often).
2. `debug_run` the code or the test: it pauses there, at a halt or at an
   error, with its frames (1 the innermost) and a debug id.
3. `debug_eval` in a frame reads a temporary (x) or sets one (x := 3);
   `debug_step` over, into or out.
4. Fix the method (`get_method_source`, `compile_method`), `debug_restart`
   its frame, then `debug_continue` to the end.
5. A paused run holds a slot of your session: `debug_stop` what you no
   longer need; `breakpoint_clear` when done.
""", ("debugger", "browsing", "mutation", "session")),
    Guide(
        "gemstone-find-where-the-time-goes",
        "How to find out why GemStone code is slow: profile it before you "
        "optimise.",
        """
# Profile before you optimise

1. Make the slow case a doit that repeats it (a second or more of work).
2. `profile_code` it: the methods that took the samples, ranked by self
   samples (the method itself running: where to optimise) and by total
   samples (the method and what it called: which call is expensive).
3. Read the top method before changing it: `get_method_source`, then
   `compile_method`.
4. Profile again and compare the samples and the milliseconds. Code done
   within one interval (1 ms unless you pass intervalNs) has no samples:
   profile more work, or a smaller interval.
5. The code runs for real: what it changes stays in your session until
   you `commit` or `abort`.
""", ("debugging", "browsing", "mutation", "session")),
    Guide(
        "gemstone-who-holds-the-stone",
        "How to find out who else is using the stone when a commit "
        "conflicts, the commit-record backlog grows or the stone is slow.",
        """
# Who holds the stone

`stone_status` lists every session logged in to the stone: its user, host,
gem name, seconds idle and how many commits its view is behind, the
commit-record backlog, which sessions hold its oldest commit record, and
how full the shared page cache is.

- A session idle for long while holding the oldest commit record keeps the
  backlog growing: name it (user, gem name) to whoever runs it; do not stop
  it yourself.
- A commit that conflicts names a class: the other sessions listed are who
  you are taking turns with.
- A field listed as withheld is one your GemStone user may not read
  (another session's description needs SessionAccess): say so, do not
  guess it.
""", ("admin",)),
)


def servedGuides(toolsetNames: Iterable[str]) -> list[Guide]:
    """
    The guides whose toolsets are all served.
    """
    served = set(toolsetNames)
    return [guide for guide in GUIDES if served.issuperset(guide.toolsets)]
