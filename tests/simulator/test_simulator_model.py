"""
Tests for the simulated stone's model (a test double, not GemStone), in
process: transactions, the evaluator and the template answers, without a
socket or the C library.
"""

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.evaluator import Evaluator
from gsmcpd.testing.simulator.objects import printString
from gsmcpd.testing.simulator.repository import ABSENT, Repository, Transaction
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.templates.render import Template


class TransactionTests(SynchronousTestCase):

    def setUp(self):
        self.repository = Repository()
        self.key = ("global", "UserGlobals", "X")

    def transaction(self):
        return Transaction(self.repository, self.repository.commitNumber)

    def test_readsSeeWritesOverView(self):
        t = self.transaction()
        self.assertIs(t.read(self.key), ABSENT)
        t.write(self.key, 1)
        self.assertEqual(t.read(self.key), 1)
        self.assertTrue(t.needsCommit)
        self.assertIs(self.transaction().read(self.key), ABSENT)

    def test_conflictIsSticky(self):
        first, second = self.transaction(), self.transaction()
        first.write(self.key, 1)
        second.write(self.key, 2)
        self.assertTrue(first.commit())
        self.assertFalse(second.commit())
        self.assertEqual(second.conflicts, {"Write-Write": [("dictionary", "UserGlobals"), self.key]})
        self.assertFalse(second.continueTransaction())
        second.abort()
        self.assertTrue(second.continueTransaction())
        self.assertEqual(second.read(self.key), 1)

    def test_continueKeepsWrites(self):
        mine, other = self.transaction(), self.transaction()
        mine.write(self.key, 1)
        other.write(("global", "Published", "Y"), 2)
        other.commit()
        self.assertEqual(mine.commitsBehind, 1)
        self.assertTrue(mine.continueTransaction())
        self.assertEqual((mine.commitsBehind, mine.read(self.key)), (0, 1))
        self.assertEqual(mine.read(("global", "Published", "Y")), 2)

    def test_replacingValuesConflictsPerBinding(self):
        """
        Replacing the value of a binding changes that binding only;
        adding or removing one changes the dictionary.
        """
        setup = self.transaction()
        for name in ("X", "Y"):
            setup.write(("global", "UserGlobals", name), 0)
        self.assertTrue(setup.commit())
        first, second, third = self.transaction(), self.transaction(), self.transaction()
        first.write(self.key, 1)
        second.write(("global", "UserGlobals", "Y"), 2)
        third.write(("global", "UserGlobals", "Y"), ABSENT)
        self.assertTrue(first.commit())
        self.assertTrue(second.commit())
        self.assertFalse(third.commit())
        self.assertEqual(third.conflicts, {"Write-Write": [("global", "UserGlobals", "Y")]})

    def test_readingIsNotWriting(self):
        writer = self.transaction()
        writer.write(self.key, [1])
        writer.commit()
        reader = self.transaction()
        reader.read(self.key)
        self.assertFalse(reader.needsCommit)
        reader.read(self.key).append(2)
        self.assertTrue(reader.needsCommit)

    def test_committedRemovalStaysRemoved(self):
        """
        A key removed and committed is gone from every later view: neither
        read nor listed.
        """
        for value in (1, ABSENT):
            writer = self.transaction()
            writer.write(self.key, value)
            self.assertTrue(writer.commit())
        reader = self.transaction()
        self.assertIs(reader.read(self.key), ABSENT)
        self.assertEqual(reader.keys(("global",)), [])


class EvaluatorTests(SynchronousTestCase):

    def setUp(self):
        self.stone = Stone()
        self.session = self.stone.login("DataCurator", "swordfish")

    def printed(self, code, session=None):
        return printString(Evaluator(session or self.session).evaluate(code))

    def test_globalsCompileAgainstTheView(self):
        """
        A global defined by a statement is not visible to the compiler of
        that same doit, as in GemStone: the doit does not compile, so none
        of it runs.
        """
        e = self.assertRaises(errors.SmalltalkError, self.printed,
                              "UserGlobals at: #Later put: 1. Later")
        self.assertIn("undefined symbol  Later", e.description)
        self.assertEqual(self.printed("UserGlobals includesKey: #Later"), "false")
        self.printed("UserGlobals at: #Later put: 1")
        self.assertEqual(self.printed("Later"), "1")

    def test_inPlaceChangeCommits(self):
        self.printed("UserGlobals at: #Items put: OrderedCollection new. "
                     "System commitTransaction")
        other = self.stone.login("DataCurator", "swordfish")
        self.printed("Items add: 3. System commitTransaction", other)
        self.printed("System abortTransaction")
        self.assertEqual(self.printed("Items"), "anOrderedCollection( 3)")

    def test_loginRefusals(self):
        e = self.assertRaises(errors.GciError, self.stone.login, "DataCurator", "nope")
        self.assertEqual((e.number, e.fatal), (errors.LOGIN_DENIED, True))
        self.stone.maxLogins = 1
        e = self.assertRaises(errors.GciError, self.stone.login, "DataCurator", "swordfish")
        self.assertEqual(e.number, errors.MAX_SESSIONS)

    def test_softBreak(self):
        self.session.interrupt.begin()
        self.session.interrupt.breakCall(False)
        e = self.assertRaises(errors.GciError, self.printed, "[true] whileTrue")
        self.assertEqual(e.number, errors.SOFT_BREAK)

    def test_breakOutsideCallIgnored(self):
        self.session.interrupt.breakCall(True)
        self.session.interrupt.begin()
        self.assertEqual(self.printed("3 + 4"), "7")


class TemplateAnswerTests(SynchronousTestCase):

    def setUp(self):
        self.session = Stone().login("DataCurator", "swordfish")

    def answer(self, name, maxBytes=1 << 20, **arguments):
        source = Template.named(name).render(arguments, maxBytes)
        return gem.answer(self.session, source)

    def test_envelopeEscapes(self):
        """
        The envelope's JSON escapes quotes, backslashes and control
        characters, and passes other characters through as UTF-8.
        """
        answer = self.answer("execute_code", limit=100, code=(
            "'q\"\\' , (String with: Character lf) , (String with: Character tab) , '\u00e9'"))
        self.assertIn('q\\"\\\\\\n\\t\u00e9'.encode("utf-8"), answer)
        self.assertEqual(json.loads(answer)["result"]["text"], "'q\"\\\n\t\u00e9'")

    def test_resultOverLimit(self):
        outcome = json.loads(self.answer("execute_code", maxBytes=60,
                                         code="'x' , (String new: 100)", limit=200))
        self.assertEqual(outcome["error"]["class"], "gsmcpd")
        self.assertIn("over the daemon's limit of 60", outcome["error"]["message"])

    def test_resultOverLimitStillSaysItCommitted(self):
        """
        Mutants C{envelope-over-limit-forgets-commit} and
        C{envelope-over-limit-claims-commit}: a body that committed and
        then answered too much: the error the envelope answers in its place
        still says the view moved, by a commit (after a continue: #readOnly
        became #success); a second one, finding #success as it was, may
        have committed (null).
        """
        self.answer("execute_code", code="System continueTransaction",
                    limit=200)
        outcomes = [json.loads(self.answer(
            "execute_code", maxBytes=60, limit=200,
            code="UserGlobals at: #Big put: 1. System commitTransaction. "
            "'x' , (String new: 100)")) for _ in range(2)]
        self.assertEqual([(each["error"]["class"], each["viewMoved"],
                           each["committed"]) for each in outcomes],
                         [("gsmcpd", True, True), ("gsmcpd", True, None)])
        unmoved = json.loads(self.answer("execute_code", maxBytes=60,
                                         code="'x' , (String new: 100)",
                                         limit=200))
        self.assertFalse(unmoved["viewMoved"])

    def test_viewMoves(self):
        """
        The envelope reports what the stone says of the view, whatever the
        code's text: nothing when it stays; moved and committed after a
        commit that wrote something, when the last commit's result became
        #success (unsaid, C{None}, when it was #success already: a commit
        or an abort); moved, not committed, after a continue past another
        session's commit, or an abort of held changes.
        """
        def moved(code, session=None):
            outcome = json.loads(gem.answer(
                session or self.session, Template.named("execute_code").render(
                    {"code": code, "limit": 100}, 1 << 20)))
            return (outcome.get("viewMoved", False),
                    outcome.get("committed"))

        self.assertEqual(moved("3 + 4"), (False, None))
        self.assertEqual(moved("System commitTransaction"), (False, None))
        self.assertEqual(moved("UserGlobals at: #A put: 1. System perform: "
                               "#commitTransaction"), (True, None))
        self.assertEqual(moved("System continueTransaction"), (False, None))
        self.assertEqual(moved("UserGlobals at: #A put: 2. System "
                               "commitTransaction"), (True, True))
        other = self.session.stone.login("DataCurator", "swordfish")
        moved("UserGlobals at: #B put: 1. System commitTransaction", other)
        self.assertEqual(moved("System continueTransaction"), (True, False))
        moved("UserGlobals at: #C put: 1")
        self.assertEqual(moved("System abortTransaction"), (True, False))
        self.assertEqual(moved("System abortTransaction"), (False, None))

    def test_status(self):
        outcome = json.loads(self.answer("status"))
        self.assertEqual(outcome["result"]["version"], "3.7.4")
        self.assertFalse(outcome["needsCommit"])

    def test_templateSyntaxError(self):
        e = self.assertRaises(errors.GciError, gem.answer, self.session,
                              '"gsmcp:status"\n| a |\na := (3 + .')
        self.assertEqual(e.number, errors.COMPILE_ERROR)
        self.assertIn("(line 3)", e.message)


class PrologueTests(SynchronousTestCase):
    """
    The gem parses only a source's leading literal assignments each call;
    the rest, a template's constant text, is cached.
    """

    @given(st.dictionaries(
        st.from_regex(r"\A[a-z][A-Za-z0-9]{0,8}\Z"),
        st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                     lambda inner: st.lists(inner, max_size=3), max_leaves=6),
        max_size=4))
    @settings(max_examples=200, deadline=None)
    def test_argumentsAreThePrologue(self, arguments):
        """
        Whatever the arguments, a rendered template's prologue ends where
        its body begins.
        """
        source = Template.named("status").render(arguments, 1000)
        self.assertTrue(source[gem.prologueEnd(source):].lstrip().startswith(
            "gsmcpBody := ["), source)
