"""
Tests for L{gsmcpd.daemon.checksteps}: the steps of C{gsmcpd check
--templates} (run against the simulated stone in
L{tests.daemon.test_templatecheck}).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.checksteps import PROBE_CLASS, RENAMED, STEPS
from gsmcpd.tools.catalog import CORE_TOOLSETS, OTHER_TOOLSETS, ToolCatalog
from gsmcpd.tools.templates.render import templateNames


class StepsTests(SynchronousTestCase):

    def test_everyStepNamesAToolOrATemplate(self):
        """
        A tool step names a shipped tool, a template step a shipped
        template: a renamed one fails here, not on a customer's stone.
        """
        tools = ToolCatalog.named((*CORE_TOOLSETS, *OTHER_TOOLSETS))
        templates = templateNames()
        for step in STEPS:
            if step.tool:
                self.assertIsNotNone(tools.get(step.name), step.name)
            else:
                self.assertIn(step.name, templates)

    def test_renamedBack(self):
        """
        The probe's class is renamed and renamed back, so the steps after
        find it under its own name.
        """
        renames = [step.arguments for step in STEPS
                   if step.name == "rename_class" and not step.tool]
        self.assertEqual([(each["className"], each["newName"])
                          for each in renames],
                         [(PROBE_CLASS, RENAMED), (RENAMED, PROBE_CLASS)])
