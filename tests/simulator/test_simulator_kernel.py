"""
The simulated stone's kernel model is the list of known GemStone names: the
selectors and globals in C{tests/selectors/*.tsv}, each read in a public
source, are exactly the methods and globals the model implements.  So a
template can send only what a real stone has and the model runs, and
anything else fails inside Smalltalk as GemStone's doesNotUnderstand.
"""

import json
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator import errors, gem
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.testing.simulator.system import KERNEL_GLOBALS
from gsmcpd.tools.templates.render import Template, loadTemplateText
from tests.knownnames import readEntries
from tests.tools.test_template_selectors import KNOWN_NAMES


def listed(kind):
    return {(entry.where, entry.name) for path in KNOWN_NAMES
            for entry in readEntries(path) if entry.kind == kind}


def modelled():
    """
    C{(class or "X class", selector)} of every kernel method the model has.
    """
    return {(behavior.name, selector) for cls in CLASSES.values()
            for behavior in (cls, cls.metaclass) for selector in behavior.methods}


class KernelIsTheListTests(SynchronousTestCase):

    def test_selectors(self):
        """
        Every selector row is a kernel method of the model, on the class
        the row names, and every kernel method has its row.
        """
        rows, methods = listed("selector"), modelled()
        self.assertEqual((sorted(rows - methods), sorted(methods - rows)), ([], []),
                         "(listed but not modelled, modelled but not listed)")

    def test_globals(self):
        """
        Every global row is a global of the model's Globals, and back.
        """
        self.assertEqual({name for _, name in listed("global")}, set(KERNEL_GLOBALS))

    def test_registeredByTheSimulatorItself(self):
        """
        The simulator's own process has every kernel method, not only a
        test process that imported the module registering it: a module
        imported only to register its methods is named in
        C{evaluator.KERNEL_MODULES} (ruff's unused-import fix removed
        C{inspection} once, and the stone lost C{asOop}).
        """
        done = subprocess.run(
            [sys.executable, "-c",
             "import json\n"
             "from gsmcpd.testing.simulator import __main__\n"
             "from gsmcpd.testing.simulator.kernel import CLASSES\n"
             "print(json.dumps(sorted(\n"
             "    (behavior.name, selector) for cls in CLASSES.values()\n"
             "    for behavior in (cls, cls.metaclass)\n"
             "    for selector in behavior.methods)))"],
            capture_output=True, text=True, check=True, timeout=60)
        self.assertEqual(sorted(map(tuple, json.loads(done.stdout))),
                         sorted(listed("selector")))


class DoesNotUnderstandTests(SynchronousTestCase):
    """
    A selector the model lacks fails as a real stone's would.
    """

    def setUp(self):
        self.session = Stone().login("DataCurator", "swordfish")

    def test_inTheEnvelope(self):
        """
        In a template's body, the envelope answers the stone's
        MessageNotUnderstood (2010) as the error.
        """
        template = Template("probe", "System myUserProfil userId",
                            loadTemplateText("_envelope"))
        outcome = json.loads(gem.answer(self.session, template.render({}, 1 << 20)))
        self.assertEqual((outcome["error"]["number"], outcome["error"]["class"]),
                         (errors.MESSAGE_NOT_UNDERSTOOD, "MessageNotUnderstood"))
        self.assertIn("#'myUserProfil'", outcome["error"]["message"])

    def test_outsideAnyHandler(self):
        """
        Unhandled, it ends the GCI call with error 2010.
        """
        e = self.assertRaises(errors.GciError, gem.answer, self.session, "3 fooBar")
        self.assertEqual(e.number, errors.MESSAGE_NOT_UNDERSTOOD)
