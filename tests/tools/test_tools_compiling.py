"""
Tests for L{gsmcpd.tools.compiling}: compile errors a client can point at,
and a class definition's report that names every method it cost.
"""

import jsonschema
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.compiling import (
    COMPILE_ERROR_SCHEMA,
    compileError,
    definitionReport,
    describeErrors,
    locatedErrors,
    methodName,
)
from tests.toolharness import strictForm

SOURCE = "deposit: amount\n\tbalance := balance +\n\t^self"


class LocatedErrorsTests(SynchronousTestCase):

    def test_lineAndColumn(self):
        offset = SOURCE.index("^") + 1
        located, = locatedErrors(SOURCE, [{"offset": offset, "number": 1001,
                                           "message": "expected expression"}])
        self.assertEqual((located["line"], located["column"]), (3, 2))
        jsonschema.validate(located, strictForm(COMPILE_ERROR_SCHEMA))

    def test_firstCharacter(self):
        located, = locatedErrors(SOURCE, [{"offset": 1, "message": "m"}])
        self.assertEqual((located["line"], located["column"],
                          located["number"]), (1, 1, None))

    def test_offsetBeforeTheSourceIsTheStart(self):
        """
        A compiler that reports offset 0 (or less) still points somewhere.
        """
        located, = locatedErrors(SOURCE, [{"offset": 0, "message": "m"}])
        self.assertEqual((located["line"], located["column"],
                          located["offset"]), (1, 1, 1))


class CompileErrorTests(SynchronousTestCase):

    def test_oneLinePerError(self):
        errors = locatedErrors(SOURCE, [
            {"offset": 1, "message": "one"},
            {"offset": SOURCE.index("^") + 1, "message": "two"}])
        error = compileError("Account>>deposit: did not compile",
                             {"className": "Account"}, errors)
        self.assertEqual(error.kind, "compileError")
        self.assertEqual(error.message,
                         "Account>>deposit: did not compile:\n"
                         "line 1, column 1: one\nline 3, column 2: two")
        self.assertEqual(error.details,
                         {"className": "Account", "errors": errors})

    def test_noDetails(self):
        self.assertEqual(describeErrors([]), "the compiler gave no details")


def definition(**fields):
    return dict({"className": "Account", "dictionary": "UserGlobals",
                 "created": False, "changed": True, "newVersion": True,
                 "recompiled": 0, "failures": [], "dropped": []}, **fields)


class DefinitionReportTests(SynchronousTestCase):

    def test_created(self):
        self.assertEqual(definitionReport(definition(created=True)),
                         "Defined class Account in UserGlobals.")

    def test_unchanged(self):
        self.assertIn("unchanged", definitionReport(definition(changed=False)))

    def test_inPlace(self):
        self.assertIn("in place",
                      definitionReport(definition(newVersion=False)))

    def test_newVersionNamesWhatItCost(self):
        """
        A new class version recompiles its methods; each that failed or
        was dropped is named, so nothing is lost silently.
        """
        report = definitionReport(definition(
            recompiled=3,
            failures=[{"selector": "balance", "meta": False,
                       "errors": [{"line": 1, "column": 2, "message": "a"},
                                  {"line": 2, "column": 1, "message": "b"}]}],
            dropped=[{"selector": "new", "meta": True}]))
        self.assertEqual(report.splitlines(), [
            "Redefined Account: a new class version; recompiled 3 methods, "
            "1 failed, 1 dropped.",
            "failed: Account>>balance: line 1, column 2: a; line 2, "
            "column 1: b",
            "dropped: Account class>>new"])

    def test_methodName(self):
        self.assertEqual(methodName("Account", "new", True),
                         "Account class>>new")
