"""
The suite's deprecation rule (L{tests.OUR_CODE}): a deprecation warning
attributed to our code is an error, one attributed to a library is not.
"""

import os
import warnings

from twisted.trial.unittest import SynchronousTestCase

import gsmcpd
import twisted
from tests import OUR_CODE


def raised(path):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.filterwarnings("error", category=DeprecationWarning,
                                module=OUR_CODE)
        try:
            warnings.warn_explicit("old", DeprecationWarning, path, 1)
        except DeprecationWarning:
            return True
    return False


class DeprecationRuleTests(SynchronousTestCase):

    def test_oursAreErrors(self):
        self.assertTrue(raised(os.path.join(
            os.path.dirname(gsmcpd.__file__), "protocol", "calls.py")))
        self.assertTrue(raised(__file__))

    def test_librariesStayWarnings(self):
        self.assertFalse(raised(twisted.__file__))

    def test_installed(self):
        self.assertIn(("error", DeprecationWarning, OUR_CODE),
                      [(action, category, getattr(module, "pattern", module))
                       for action, _, category, module, _ in
                       warnings.filters])
