"""
Confirming destructive work through elicitation.
"""

from twisted.internet.defer import succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import ToolError
from gsmcpd.tools.confirm import (
    commitQuestion,
    confirmClassDeletion,
    confirmed,
    confirmedIf,
    confirming,
)


class AskingCall:

    def __init__(self, answer, canAsk=True):
        self._answer = answer
        self._canAsk = canAsk
        self.asked = []

    def canAsk(self, capability):
        return self._canAsk

    def ask(self, requests):
        self.asked.append(requests)
        return succeed({key: self._answer for key in requests})


class ConfirmedTests(SynchronousTestCase):

    def test_confirmed(self):
        call = AskingCall({"action": "accept", "content": {"confirm": True}})
        self.successResultOf(confirmed(call, "Delete class Foo and its 3 "
                                       "methods?", "delete class Foo"))
        [asked] = call.asked
        params = asked["confirm"]["params"]
        self.assertEqual(params["message"],
                         "Delete class Foo and its 3 methods?")
        self.assertEqual(params["requestedSchema"]["required"], ["confirm"])

    def test_refused(self):
        """
        Declined, cancelled, or accepted with the box unchecked: refused,
        saying nothing changed.
        """
        for answer in ({"action": "decline"}, {"action": "cancel"},
                       {"action": "accept", "content": {"confirm": False}},
                       {"action": "accept"}):
            failure = self.failureResultOf(confirmed(
                AskingCall(answer), "Delete?", "delete class Foo"), ToolError)
            self.assertEqual(failure.value.kind, "refused")
            self.assertIn("nothing was changed", failure.value.message)
            self.assertIn("delete class Foo", failure.value.message)

    def test_clientCannotAsk(self):
        """
        A client without elicitation is not asked, and the work goes ahead.
        """
        call = AskingCall(None, canAsk=False)
        self.successResultOf(confirmed(call, "Delete?", "delete"))
        self.assertEqual(call.asked, [])


class CommitQuestionTests(SynchronousTestCase):

    def test_listsChanges(self):
        self.assertEqual(
            commitQuestion(["compiled Account>>withdraw:",
                            "deleted class Foo"]),
            "Commit these changes, making them visible to every session?\n"
            "- compiled Account>>withdraw:\n- deleted class Foo")

    def test_nothingRecorded(self):
        self.assertIn("no changes recorded", commitQuestion([]))


class Toolset:

    def __init__(self, **options):
        self._options = options

    def optionNamed(self, name, default):
        return self._options.get(name, default)


class DescribingCall(AskingCall):

    def runTemplate(self, name, arguments):
        self.described = (name, arguments)
        return succeed({"instanceSelectors": ["a", "b"],
                        "classSelectors": ["new"]})


class OptionTests(SynchronousTestCase):

    def test_offByDefault(self):
        """
        Without the option nothing is asked, and the work goes ahead.
        """
        call = DescribingCall({"action": "decline"})
        self.assertFalse(confirming(Toolset()))
        self.successResultOf(confirmedIf(Toolset(), call, "Delete?", "x"))
        self.successResultOf(confirmClassDeletion(Toolset(), call, "Foo"))
        self.assertEqual(call.asked, [])

    def test_classDeletionCountsMethods(self):
        call = DescribingCall({"action": "accept",
                               "content": {"confirm": True}})
        toolset = Toolset(confirmDestructive=True)
        self.successResultOf(confirmClassDeletion(toolset, call, "Foo"))
        self.assertEqual(call.described,
                         ("describe_class", {"className": "Foo"}))
        self.assertEqual(call.asked[0]["confirm"]["params"]["message"],
                         "Delete the class Foo and its 3 methods?")
        refused = DescribingCall({"action": "decline"})
        self.failureResultOf(
            confirmedIf(toolset, refused, "Delete?", "delete x"), ToolError)
