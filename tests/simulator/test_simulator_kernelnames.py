"""
The table of public GemStone class names the kernel-sized repository is
built from (L{gsmcpd.testing.simulator.kernelnames}).
"""

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.kernelnames import realClasses


class RealClassesTests(SynchronousTestCase):

    def test_eachOnce(self):
        names = [name for name, _ in realClasses()]
        self.assertEqual(len(names), len(set(names)))

    def test_superclassFirst(self):
        """
        Each superclass is the model's or comes earlier in the table.
        """
        seen = set(CLASSES)
        for name, superclass in realClasses():
            self.assertIn(superclass, seen, name)
            seen.add(name)

    def test_known(self):
        self.assertIn(("IdentitySet", "IdentityBag"), realClasses())
        self.assertIn(("RcKeyValueDictionary", "KeyValueDictionary"), realClasses())
