"""
Tests for L{gsmcpd.protocol.facts}: what a handler is told of its request.
"""

import attr
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.facts import RequestFacts
from gsmcpd.protocol.handlers import RESOURCE_NOT_FOUND
from gsmcpd.sessions.context import CallContext
from gsmcpd.tools.catalog import ToolCatalog
from gsmcpd.tools.context import NULL_CONTEXT
from tests.builders import legacyEra


class RequestFactsTests(SynchronousTestCase):

    def setUp(self):
        self.dialect = legacyEra(ToolCatalog.named(["execution"])).dialect
        self.facts = RequestFacts("ping", {}, 1, self.dialect,
                                  {"roots": {}})

    def test_frozen(self):
        self.assertRaises(attr.exceptions.FrozenInstanceError, setattr,
                          self.facts, "principal", None)
        self.assertRaises(attr.exceptions.FrozenInstanceError, setattr,
                          self.dialect, "instructions", "x")

    def test_answeredFromMemoryByDefault(self):
        """
        A request carries no work session, no client session and a
        context with nothing to end, unless its era gave it one.
        """
        self.assertEqual((self.facts.work, self.facts.client,
                          self.facts.tool, self.facts.context.control),
                         (None, None, None, NULL_CONTEXT))

    def test_replace(self):
        """
        L{RequestFacts.replace} is C{attr.evolve} of the facts an era
        learns as a call goes on, each left as it was unless named (L{None}
        included).
        """
        full = attr.evolve(self.facts, principal=object(), client=object(),
                           work=object(), tool=object(), arguments={"a": 1},
                           context=CallContext())
        self.assertEqual(full.replace(), full)
        changes = {"work": None, "tool": None, "arguments": None,
                   "context": CallContext()}
        for name, value in changes.items():
            self.assertEqual(full.replace(**{name: value}),
                             attr.evolve(full, **{name: value}), name)
        self.assertEqual(full.replace(**changes),
                         attr.evolve(full, **changes))

    def test_dialect(self):
        self.assertEqual((self.dialect.resourceNotFound,
                          self.dialect.handleTools, dict(self.dialect.skills)),
                         (RESOURCE_NOT_FOUND, (), {}))
