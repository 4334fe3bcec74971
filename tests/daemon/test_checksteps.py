"""
Tests for L{gsmcpd.daemon.checksteps}: the steps of C{gsmcpd check
--templates} (run against the simulated stone in
L{tests.daemon.test_templatecheck}).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.daemon.checksteps import PROBE_CLASS, RENAMED, STEPS, ZERO_DIVIDE
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

    def test_debuggerReadingsRun(self):
        """
        The debugger's readings a real stone settles each have a step:
        steps into and out, a temporary written by an assignment, an Error
        stopped and continued.
        """
        debugging = [step for step in STEPS if step.name.startswith("debug_")]
        kinds = {step.arguments["kind"] for step in debugging
                 if step.name == "debug_step"}
        self.assertEqual(kinds, {"over", "into", "out"})
        self.assertTrue(any(":=" in step.arguments["code"]
                            for step in debugging if step.name == "debug_eval"))
        self.assertIn(ZERO_DIVIDE, [step.expect for step in debugging
                                    if step.name == "debug_continue"])
