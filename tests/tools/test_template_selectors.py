"""
Every template sends only selectors, and names only globals, that were read
in a public GemStone 3.7 source (C{tests/selectors/*.tsv}).

A wrong selector in a template is otherwise found by the first user whose
stone answers C{doesNotUnderstand}; this finds it in the test suite.
"""

from pathlib import Path

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.templates.render import Template, loadTemplateText, templateNames
from tests.knownnames import loadKnownNames, readEntries, unknownNames

KNOWN_NAMES = sorted(Path(__file__).parents[1].glob("selectors/*.tsv"))
"""One file per toolset family, so each family's list has one owner."""


def unknownInTemplate(template):
    """
    A sentence naming the unknown selectors and globals of C{template} as
    rendered, or L{None} if there are none.

    It is rendered with no arguments: the argument temporaries a tool call
    would declare are undeclared lowercase variables here, which the check
    takes for arguments.
    """
    selectors, globals_ = loadKnownNames(*KNOWN_NAMES)
    badSelectors, badGlobals = unknownNames(
        template.render({}, 1000), selectors, globals_)
    if not (badSelectors or badGlobals):
        return None
    return (f"template {template.name!r}: selectors not in"
            f" tests/selectors: {sorted(badSelectors)};"
            f" globals: {sorted(badGlobals)}")


class TemplateSelectorTests(SynchronousTestCase):
    """
    One generated test per template (see the loop below the class).
    """

    def test_templatesFound(self):
        """
        The generated tests cover something: listing the templates works.
        """
        self.assertIn("status", templateNames())

    def test_misspeltSelectorFails(self):
        """
        A template sending a selector the stone does not have is caught, and
        the report names the selector and the template.
        """
        template = Template("typo", "System myUserProfil userId",
                            loadTemplateText("_envelope"))
        report = unknownInTemplate(template)
        self.assertIsNotNone(report)
        self.assertIn("'myUserProfil'", report)
        self.assertIn("'typo'", report)

    def test_unknownGlobalFails(self):
        """
        A global the stone does not have is caught too, but a capitalised
        temporary or block parameter is not a global.
        """
        self.assertEqual(
            unknownNames("| Temp | Temp := Smalltalk. [:Each | Each] value: 1",
                         {"value:"}, set()),
            (set(), {"Smalltalk"}))

    def test_lowercaseUndeclaredIsAnArgument(self):
        """
        An undeclared lowercase variable is a template argument, not a
        global.
        """
        self.assertEqual(unknownNames("code size", {"size"}, set()),
                         (set(), set()))

    def test_assignedGlobalFails(self):
        """
        A global assigned to is named too; a symbol is data, not a send.
        """
        self.assertEqual(unknownNames("Foo := #frobnicate", set(), set()),
                         (set(), {"Foo"}))


def _makeTemplateTest(name):
    def test(self):
        report = unknownInTemplate(Template.named(name))
        if report is not None:
            self.fail(report)
    test.__name__ = f"test_template_{name}"
    test.__doc__ = f"Template {name!r} uses only known GemStone names."
    return test


for _name in templateNames():
    setattr(TemplateSelectorTests, f"test_template_{_name}",
            _makeTemplateTest(_name))


class KnownNamesFileTests(SynchronousTestCase):
    """
    The known-names file itself: every entry says where it was read.
    """

    def test_wellFormed(self):
        """
        Every line has four fields, a known kind, and a source naming a
        repository (C{owner/repo}) and a path in it.
        """
        entries = [e for path in KNOWN_NAMES for e in readEntries(path)]
        self.assertTrue(entries)
        for entry in entries:
            repository, _, path = entry.source.partition(" ")
            self.assertEqual(repository.count("/"), 1, entry)
            self.assertTrue(path.strip(), entry)

    def test_noDuplicates(self):
        """
        A name is listed once for each place it lives.
        """
        entries = [(e.kind, e.name, e.where)
                   for path in KNOWN_NAMES for e in readEntries(path)]
        self.assertEqual(len(entries), len(set(entries)))

    def test_malformedLineRefused(self):
        """
        A line without a source is refused, naming its line number, rather
        than skipped.
        """
        path = Path(self.mktemp())
        path.write_text("# header\nselector\tfoo\tObject\t \n", "utf-8")
        error = self.assertRaises(ValueError, loadKnownNames, path)
        self.assertIn(":2:", str(error))

    def test_unknownKindRefused(self):
        path = Path(self.mktemp())
        path.write_text("method\tfoo\tObject\tx/y z.gs\n", "utf-8")
        self.assertRaises(ValueError, loadKnownNames, path)
