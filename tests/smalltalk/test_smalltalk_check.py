"""
Tests for L{gsmcpd.smalltalk.check}: which names a source needs the stone
to have.  (L{tests.tools.test_template_selectors} runs it over every template
and checks the known-names files.)
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.smalltalk import parse_expression
from gsmcpd.smalltalk.check import (
    declaredNames,
    readEntries,
    referencedGlobals,
    unknownNames,
)


class GlobalsTests(SynchronousTestCase):

    def test_declaredCapitalisedNamesAreNotGlobals(self):
        tree = parse_expression(
            "| Temp | Temp := OrderedCollection new. "
            "#(1) do: [:Each | | Inner | Inner := Each]. ^Temp")
        self.assertEqual(declaredNames(tree), {"Temp", "Each", "Inner"})
        self.assertEqual(referencedGlobals(tree), {"OrderedCollection"})

    def test_assignedGlobal(self):
        self.assertEqual(referencedGlobals(parse_expression("Foo := 3")),
                         {"Foo"})

    def test_lowercaseIsAnArgumentNotAGlobal(self):
        self.assertEqual(referencedGlobals(parse_expression("className size")),
                         set())


class UnknownNamesTests(SynchronousTestCase):

    def test_reportsBothKinds(self):
        selectors, globals_ = unknownNames(
            "Smalltalk at: #X put: (Set new addAl: 3)",
            knownSelectors={"at:put:", "new"}, knownGlobals={"Smalltalk"})
        self.assertEqual((selectors, globals_), ({"addAl:"}, {"Set"}))

    def test_symbolsAreData(self):
        """
        A symbol in a literal is not a send, so it need not be a known
        selector.
        """
        self.assertEqual(unknownNames("#(#frobnicate) size", {"size"}, ()),
                         (set(), set()))


class ReadEntriesTests(SynchronousTestCase):

    def test_commentsAndBlankLinesSkipped(self):
        path = self.mktemp()
        with open(path, "w") as f:
            f.write("# kind\tname\twhere\tsource\n\n"
                    "selector\tsize\tObject\tkernel/Object.gs\n")
        self.assertEqual([(e.kind, e.name) for e in readEntries(path)],
                         [("selector", "size")])
