"""
The steps of C{gsmcpd check --templates} (L{templatecheck}): each a tool
call or a template the daemon runs on its own, with what its answer must
be, in the order the check takes them; the scratch names it works on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attr

from gsmcpd.protocol.jsonrpc import JsonObject
from gsmcpd.tools.templates.capabilities import OPTIONAL

SCRATCH_DICTIONARY = "GsmcpdCheckScratch"
PROBE_CLASS = "GsmcpdCheckProbe"
RENAMED = "GsmcpdCheckProbeRenamed"
PROBE_METHOD = "testProbe\n\tself assert: (self isKindOf: TestCase)"
DEBUGGED_CODE = (f"| a |\na := 3.\nnil halt.\na := a + 4.\n"
                 f"{PROBE_CLASS} new testProbe.\n^ a printString")
"""A run the debugger's steps pause at its halt and step through."""
ZERO_DIVIDE = 2026
NO_SUCH_SESSION = 2_000_000
COMMITS_DISABLED = 2249
NO_PRIVILEGE = 2151
REASON = "gsmcpd check --templates never commits in this session"

Arguments = JsonObject | Callable[[JsonObject], JsonObject]
"""A step's arguments, or what makes them from the stone's facts."""

@attr.s(frozen=True, auto_attribs=True)
class Step:
    """
    One call of the check: a tool (its Python and its templates), or a
    template the daemon runs on its own (C{tool} false).

    @ivar expect: the tool error kind, or GemStone error number, the step
        must meet instead of a result.
    @ivar tolerated: GemStone error numbers that depend on the user's
        privileges, not on the template: reported, but a pass.
    @ivar shape: what the daemon reads from a template's answer
        (L{shapes}).
    @ivar needsCommit: whether the session must hold uncommitted changes
        after a template step, when that is part of the path it checks.
    @ivar holds: values a template step's answer must hold on the path it
        checks (C{committed} for a commit).
    @ivar refusals: GemStone error numbers that mean the step cannot be
        checked here, and why: reported as such, and a failure.
    @ivar path: which path the step checks, when its name does not say.
    @ivar gate: whether the check stops when this step fails (what comes
        after would not be safe, or would tell nothing).
    """

    name: str
    arguments: Arguments = attr.Factory(dict)
    tool: bool = True
    expect: str | int | None = None
    tolerated: tuple[int, ...] = ()
    shape: Any = attr.Factory(dict)
    needsCommit: bool | None = None
    holds: dict[str, object] = attr.Factory(dict)
    refusals: dict[int, str] = attr.Factory(dict)
    path: str = ""
    gate: bool = False

    def argumentsFor(self, facts: JsonObject) -> JsonObject:
        return self.arguments(facts) if callable(self.arguments) \
            else self.arguments


def _template(name: str, arguments: Arguments | None = None,
              **kwargs: Any) -> Step:
    return Step(name, arguments or {}, tool=False, **kwargs)


PROBE: JsonObject = {"className": PROBE_CLASS}
METHOD = dict(PROBE, selector="testProbe")

CONTINUED = {"continued": bool}

STEPS = (
    _template("preflight", shape={
        "user": str, "stone": str, "version": str, "privileges": [str],
        "maxSessionId": int}, gate=True),
    # Without the lock nothing may try to change the repository.
    _template("disable_commits", {"reason": REASON}, shape={"armed": bool},
              gate=True),
    _template("session_state",
              shape={"session": int, "commitsBehind": (int, None)}),
    _template("backlog_state",
              shape={"backlog": int, "oldestPinnedBy": [int]}),
    _template("lacking_capabilities",
              {"selectors": [each.selector for each in OPTIONAL]},
              shape=[str]),
    _template("open_session", {"name": "gsmcpd-check"}, shape={
        "name": str, "session": int, "signalAbortBacklog": (int, None)}),
    _template("mint_onetime_password",
              lambda facts: {"userId": facts["user"], "seconds": 60},
              tolerated=(NO_PRIVILEGE,), shape={"password": str}),
    _template("stop_session", {"session": NO_SUCH_SESSION},
              tolerated=(NO_PRIVILEGE,), shape={"stopped": bool}),
    # Both of continueTransaction's paths: holding no change, and (below,
    # after the scratch work) holding some.
    _template("continue_transaction", shape=CONTINUED, needsCommit=False),
    Step("status"),
    Step("stone_status"),
    Step("execute_code", {"code": "3 + 4"}),
    Step("inspect", {"expression": "Array with: 3 with: 'four'", "path": [2]}),
    # The paging paths: a page that is not the first.
    Step("inspect", {"expression": "Array new: 30", "offset": 10,
                     "limit": 5}),
    Step("profile_code", {"code": "3 + 4"}),
    Step("list_dictionaries"),
    Step("list_all_classes", {"limit": 20}),
    Step("list_all_classes", {"limit": 20, "offset": 20}),
    Step("list_classes", {"dictionaryName": "Globals", "limit": 20}),
    Step("list_dictionary_entries", {"dictionaryName": "UserGlobals",
                                     "limit": 20}),
    Step("list_test_classes", {"limit": 20}),
    Step("describe_class", {"className": "OrderedCollection"}),
    Step("get_class_definition", {"className": "OrderedCollection"}),
    Step("get_class_hierarchy", {"className": "OrderedCollection"}),
    Step("list_methods", {"className": "OrderedCollection"}),
    Step("export_class_source", {"className": "OrderedCollection"}),
    Step("export_tonel", {"className": "OrderedCollection"}),
    # The scratch names must be free: nothing of anyone's is touched.
    Step("describe_class", PROBE, expect="notFound", gate=True),
    Step("add_dictionary", {"dictionaryName": SCRATCH_DICTIONARY}, gate=True),
    Step("compile_class_definition", dict(
        PROBE, superclassName="TestCase", dictionary=SCRATCH_DICTIONARY),
        gate=True),
    Step("set_class_comment", dict(PROBE, comment="gsmcpd's check")),
    Step("compile_method", dict(PROBE, source=PROBE_METHOD)),
    Step("get_method_source", METHOD),
    Step("compile_method", dict(PROBE, source=PROBE_METHOD,
                                category="checking")),
    # Searches that find the probe on any stone, kernel-sized or not.
    Step("find_implementors", {"selector": "testProbe", "limit": 5}),
    Step("find_senders", {"selector": "assert:", "limit": 5}),
    Step("find_senders", {"selector": "assert:", "limit": 1, "offset": 1}),
    Step("find_references_to", {"name": "TestCase", "limit": 5}),
    Step("search_method_source", {"pattern": "isKindOf: TestCase",
                                  "dictionaryName": SCRATCH_DICTIONARY}),
    Step("run_test_class", PROBE),
    Step("run_test_method", METHOD),
    Step("describe_test_failure", METHOD),
    Step("list_failing_tests", {"classNames": [PROBE_CLASS]}),
    # The debugger: a breakpoint in the probe's test, run, read, restarted,
    # stepped and continued; a halt stopped (the stricter readings of
    # docs/gemstone-fidelity.rst's debugger, which a real stone settles).
    Step("breakpoint_set", dict(METHOD, line=2)),
    Step("breakpoint_list"),
    Step("debug_run", METHOD),
    Step("debug_eval", {"debug": 1, "code": "self class name"}),
    Step("debug_restart", {"debug": 1}),
    Step("debug_step", dict(debug=1, kind="over")),  # not an error's kind
    Step("breakpoint_clear", {}),
    Step("debug_continue", {"debug": 1}),
    Step("debug_run", {"code": "nil halt. 7"}),
    Step("debug_list"),
    Step("debug_stop", {"debug": 2}),
    # A halt's frames, a temporary written back through debug_eval, steps
    # out of the halt, over a line, into the probe's test (through new)
    # and out of it; an Error stopped, named and continued (which the
    # model ends with it: a real stone may resume it).
    Step("debug_run", {"code": DEBUGGED_CODE}),
    Step("debug_eval", {"debug": 3, "frame": 2, "code": "a := 10"}),
    Step("debug_step", dict(debug=3, kind="out")),
    Step("debug_step", dict(debug=3, kind="over")),
    Step("debug_step", dict(debug=3, kind="into")),  # at the send of new
    Step("debug_step", dict(debug=3, kind="into")),
    Step("debug_step", dict(debug=3, kind="out")),
    Step("debug_continue", {"debug": 3}),
    Step("debug_run", {"code": "| a |\na := 3.\n^ a / 0"}),
    Step("debug_continue", {"debug": 4}, expect=ZERO_DIVIDE),
    # The refactorings: a preview reads and changes nothing; the probe's
    # class is renamed and renamed back, as rename_class applies it.
    Step("rename_selector", {"selector": "testProbe",
                             "newSelector": "testProbeRenamed",
                             "scope": f"class:{PROBE_CLASS}"}),
    _template("refactoring_sources", {
        "selector": "assert:", "newSelector": "gsmcpdAssert:", "global": None,
        "scopeKind": "dictionary", "scopeName": SCRATCH_DICTIONARY,
        "mentions": True, "sendersOffset": 0, "sendersLimit": 5},
        shape={"implementors": [[(str, bool, int, None)]],
               "taken": [[(str, bool, int, None)]]}),
    *(_template("rename_class", {
        "className": old, "newName": new, "kernelClasses": False,
        "methods": [[False, "testProbe", "checking", PROBE_METHOD,
                     PROBE_METHOD]]},
        shape={"className": str, "dictionary": str, "failures": [{}]})
      for old, new in ((PROBE_CLASS, RENAMED), (RENAMED, PROBE_CLASS))),
    # Its checks only (no methods): the probe has no such variable.
    _template("rename_instance_variable", {
        "className": PROBE_CLASS, "name": "gsmcpdNoSuchVariable",
        "newName": "gsmcpdRenamed", "kernelClasses": False, "methods": None},
        expect="refused"),
    Step("delete_method", METHOD),
    Step("get_class_definition", PROBE),
    Step("delete_class", PROBE),
    Step("list_classes", {"dictionaryName": SCRATCH_DICTIONARY}),
    Step("remove_dictionary", {"dictionaryName": SCRATCH_DICTIONARY}),
    Step("commit", expect=COMMITS_DISABLED),
    _template("continue_transaction", shape=CONTINUED, needsCommit=True),
    Step("refresh"),
    Step("abort"),
)
