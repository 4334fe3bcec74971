"""
Confirming destructive work with the user before doing it.

With C{--confirm-destructive}, C{delete_class}, C{remove_dictionary},
C{delete_method}, C{commit} and applying a refactoring that removes
methods or a class binding first ask the user (elicitation, in either
era) whether to go ahead, naming exactly what would go: the class and how
many methods, the dictionary and how many entries, the changes being
committed, what the refactoring removes.  A client that cannot ask its user (no elicitation capability)
is not asked: the operator's switch protects people, it does not lock out
clients without a user interface.
"""

from collections.abc import Sequence

from twisted.internet.defer import Deferred, inlineCallbacks, succeed

from gsmcpd.tools.base import Steps, ToolCall, ToolError, Toolset, counted
from gsmcpd.tools.questions import BoundQuestion, accepted, elicitation

QUESTION_KEY = "confirm"
CONFIRM_OPTION = "confirmDestructive"
"""The toolset option (C{mutation}, C{session}, C{refactoring}) that turns
asking on."""


def confirming(toolset: Toolset) -> bool:
    """
    Whether C{toolset} asks before destructive work.
    """
    return toolset.optionNamed(CONFIRM_OPTION, False) is True


def confirmedIf(toolset: Toolset, call: ToolCall, message: str,
                what: str) -> Deferred[None]:
    """
    L{confirmed}, when C{toolset} asks at all.
    """
    if not confirming(toolset):
        return succeed(None)
    return confirmed(call, message, what)


@inlineCallbacks
def confirmClassDeletion(toolset: Toolset, call: ToolCall,
                         className: str) -> Steps[None]:
    """
    Before C{delete_class}: the class, and how many methods go with it.
    """
    if not confirming(toolset):
        return
    found = yield call.runTemplate("describe_class", {"className": className})
    methods = len(found["instanceSelectors"]) + len(found["classSelectors"])
    yield confirmed(call, f"Delete the class {className} and its "
                    f"{counted(methods, 'method')}?",
                    f"delete class {className}")


def question(message: str) -> BoundQuestion:
    """
    The elicitation that asks to go ahead with C{message}: answered only
    where it was asked (L{BoundQuestion}).
    """
    return BoundQuestion(elicitation(message, {"confirm": {
        "type": "boolean", "title": "Go ahead",
        "description": "Check to go ahead; leave unchecked to change "
                       "nothing."}}, required=["confirm"]))


@inlineCallbacks
def confirmed(call: ToolCall, message: str, what: str) -> Steps[None]:
    """
    Ask the user to confirm, when the client can ask.

    @param message: the question, naming everything that would change.
    @param what: what is refused if the user says no (C{"delete class
        Foo"}).
    @raise ToolError: C{refused} when the user declined, cancelled or left
        the box unchecked; nothing was changed.
    """
    if not call.canAsk("elicitation"):
        return
    answers = yield call.ask({QUESTION_KEY: question(message)})
    answer = answers[QUESTION_KEY]
    if (accepted(answer) or {}).get("confirm") is not True:
        action = (answer or {}).get("action", "no answer")
        raise ToolError("refused", f"Not confirmed: the user did not agree "
                        f"to {what} ({action}); nothing was changed.")


def commitQuestion(summary: Sequence[str]) -> str:
    """
    The question before a commit: each change it would publish.
    """
    if not summary:
        return ("Commit? This session has no changes recorded by the "
                "mutation tools (execute_code changes are not listed).")
    return ("Commit these changes, making them visible to every session?\n"
            + "\n".join(f"- {line}" for line in summary))
