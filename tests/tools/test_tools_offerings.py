"""
Tests for L{gsmcpd.tools.offerings}: how resources, resource templates and
prompts describe themselves, which URIs a template claims, and what a
completion reference names.
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.base import ANY_SESSION, OWN_SESSION
from gsmcpd.tools.offerings import Prompt, Resource, ResourceTemplate, Surface

DEFINITION = ResourceTemplate("gemstone://class/{className}/definition",
                              "class definition", read=None,
                              mimeType="text/x-smalltalk")


class ResourceTemplateMatchTests(SynchronousTestCase):

    def test_variables(self):
        self.assertEqual(
            DEFINITION.match("gemstone://class/Account/definition"),
            {"className": "Account"})

    def test_twoVariables(self):
        method = ResourceTemplate("gemstone://method/{className}/{selector}",
                                  "method", read=None)
        self.assertEqual(method.match("gemstone://method/Account/deposit:"),
                         {"className": "Account", "selector": "deposit:"})

    def test_variableStopsAtASlash(self):
        """
        A variable is one path segment, so a URI cannot smuggle a longer
        path into it.
        """
        self.assertIsNone(DEFINITION.match(
            "gemstone://class/Account/x/definition"))

    def test_wholeUriMustFit(self):
        for uri in ("gemstone://class/Account/definitions",
                    "xgemstone://class/Account/definition",
                    "gemstone://class//definition"):
            self.assertIsNone(DEFINITION.match(uri), uri)

    def test_literalPartsAreNotPatterns(self):
        dotted = ResourceTemplate("a.b/{x}", "dotted", read=None)
        self.assertEqual(dotted.match("a.b/1"), {"x": "1"})
        self.assertIsNone(dotted.match("aXb/1"))


class RunsOnTests(SynchronousTestCase):
    """
    A resource declares whether reading it needs a GemStone session; it
    never needs one of the client's own.
    """

    def test_gemStoneByDefault(self):
        self.assertEqual(Resource("a://b", "b", None).runsOn, ANY_SESSION)

    def test_ownSessionRefused(self):
        self.assertRaises(ValueError, Resource, "a://b", "b", None,
                          runsOn=OWN_SESSION)
        self.assertRaises(ValueError, ResourceTemplate, "a://{b}", "b", None,
                          runsOn=OWN_SESSION)


class DescriptorTests(SynchronousTestCase):

    def test_resourceLeavesOutWhatIsUnset(self):
        self.assertEqual(Resource("gemstone://status", "status",
                                  read=None).descriptor(),
                         {"name": "status", "uri": "gemstone://status"})

    def test_resourceTemplate(self):
        self.assertEqual(DEFINITION.descriptor(), {
            "name": "class definition",
            "uriTemplate": "gemstone://class/{className}/definition",
            "mimeType": "text/x-smalltalk"})

    def test_prompt(self):
        prompt = Prompt("review", get=None, title="Review",
                        arguments=({"name": "className", "required": True},))
        self.assertEqual(prompt.descriptor(), {
            "name": "review", "title": "Review",
            "arguments": [{"name": "className", "required": True}]})


class _Offers:
    """A toolset offering one prompt and one resource template."""

    usesLogging = False

    def resources(self):
        return []

    def resourceTemplates(self):
        return [DEFINITION]

    def prompts(self):
        return [REVIEW]


REVIEW = Prompt("review", get=None)


class CompletableTests(SynchronousTestCase):

    def test_completable(self):
        """
        A completion reference names a prompt by name or a template by its
        URI template; anything else names nothing.
        """
        surface = Surface([_Offers()])
        for ref, target in (
                ({"type": "ref/prompt", "name": "review"}, REVIEW),
                ({"type": "ref/resource",
                  "uri": DEFINITION.uriTemplate}, DEFINITION),
                ({"type": "ref/prompt", "name": "other"}, None),
                ({"type": "ref/prompt", "name": ["review"]}, None),
                ({"type": "ref/prompt", "uri": DEFINITION.uriTemplate}, None),
                ({"type": "ref/resource", "name": "review"}, None),
                ({"type": "ref/other", "uri": DEFINITION.uriTemplate}, None)):
            self.assertIs(surface.completable(ref), target, ref)
