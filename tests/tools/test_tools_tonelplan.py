"""
Tests for L{gsmcpd.tools.tonelplan}: the stone's classes as Tonel, the
changes files make to them, and the C{base} token.
"""

import base64
import zlib

from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.tools.templates.outcomes import ToolError
from gsmcpd.tools.tonelformat import TonelClass, TonelMethod, parseFile
from gsmcpd.tools.tonelplan import (
    BASE_LIMIT,
    StoneRead,
    baseToken,
    changes,
    exportedFiles,
    parsedFiles,
    readBase,
    stoneClass,
)

RECORD = {
    "className": "Cache", "superclass": "Object",
    "definition": "Object subclass: 'Cache'\n  instVarNames: #( a)\n"
                  "  classVars: #()\n  classInstVars: #()\n"
                  "  poolDictionaries: #( Pool)\n  inDictionary: Tools\n"
                  "  options: #( dbTransient)",
    "instVarNames": ["a"], "classVarNames": [], "classInstVarNames": [],
    "category": None, "dictionary": "Tools", "classType": None,
    "comment": "No class-specific documentation for Cache, hierarchy is: \n"
               "Object\n  Cache( a)\n",
    "methods": [
        {"meta": False, "selector": "a", "category": "accessing",
         "source": "a\n\t^a"},
        {"meta": False, "selector": "isCache", "category": "*other",
         "source": "isCache\n\t^true"}]}


class StoneClassTests(SynchronousTestCase):

    def test_record(self):
        """
        Pools and options are read from the definition; GemStone's
        generated comment is no comment; an extension category's method
        stays out of the class's own.
        """
        cache = stoneClass(RECORD)
        self.assertEqual(cache.definition, TonelClass(
            "Cache", "Object", ("a",), (), ("Pool",), (), ("dbTransient",),
            None, ""))
        self.assertEqual(cache.package, "Tools")
        self.assertEqual([m.selector for m in cache.ownMethods], ["a"])
        self.assertEqual(len(cache.methods), 2)

    def test_files(self):
        """
        A package's file only where the files hold every class the stone
        has in its category (a class without a category is in its
        dictionary's package, which none is sure to hold whole).
        """
        record = dict(RECORD, category="Tools")
        files = exportedFiles(StoneRead([stoneClass(record)], 1, [],
                                        {"Tools": 1}))
        self.assertEqual([f["path"] for f in files],
                         ["Tools/package.st", "Tools/Cache.class.st"])
        self.assertIn("\t#gs_options : [\n\t\t'dbTransient'\n\t]",
                      files[1]["content"])
        self.assertNotIn("isCache", files[1]["content"])
        partial = exportedFiles(StoneRead([stoneClass(record)], 1, [],
                                          {"Tools": 2}))
        self.assertEqual([f["path"] for f in partial],
                         ["Tools/Cache.class.st"])
        uncategorized = exportedFiles(StoneRead([stoneClass(RECORD)], 1))
        self.assertEqual([f["path"] for f in uncategorized],
                         ["Tools/Cache.class.st"])

    def test_extensionFiles(self):
        """
        An extension method goes to its package's extension file, the
        package spelt as the stone spells its category where one matches
        its extension category in any case, else as written.
        """
        record = dict(RECORD, category="Tools")
        extensions = [
            TonelMethod("Object", False, "isTool", "*tools", "isTool\n\t^0"),
            TonelMethod("Cache", False, "isCache", "*Other", "isCache\n\t^1")]
        files = exportedFiles(StoneRead([stoneClass(record)], 1, extensions,
                                        {"Tools": 1}))
        self.assertEqual([f["path"] for f in files], [
            "Tools/package.st", "Tools/Cache.class.st",
            "Tools/Object.extension.st", "Other/Cache.extension.st"])


class BaseTests(SynchronousTestCase):

    def test_roundTrip(self):
        """A token names each class's and method's version; several
        tokens read as one."""
        cache = stoneClass(RECORD)
        versions = readBase(baseToken([cache]))
        self.assertEqual(sorted(versions), [
            "class Cache", "method Cache>>a", "method Cache>>isCache"])
        other = stoneClass(dict(RECORD, className="Other"))
        both = readBase(baseToken([cache]) + " " + baseToken([other]))
        self.assertEqual(len(both), 6)

    def test_notAToken(self):
        for token in ("x", "tonel1.!!", "tonel1." + "e30="):
            with self.subTest(token=token):
                error = self.assertRaises(ToolError, readBase, token)
                self.assertEqual(error.kind, "invalidParams")

    def test_bombRefused(self):
        """
        A token that inflates past L{BASE_LIMIT}, alone or with others,
        is refused without inflating it whole; a truncated one too.
        """
        bomb = "tonel1." + base64.urlsafe_b64encode(zlib.compress(
            b" " * (BASE_LIMIT + 1))).decode()
        half = "tonel1." + base64.urlsafe_b64encode(zlib.compress(
            b"{}" + b" " * (BASE_LIMIT // 2))).decode()
        cut = baseToken([stoneClass(RECORD)])[:-8]
        for token in (bomb, f"{half} {half}", cut):
            with self.subTest(token=token[:20]):
                error = self.assertRaises(ToolError, readBase, token)
                self.assertEqual(error.kind, "invalidParams")
        self.assertEqual(readBase(half), {})


class ChangesTests(SynchronousTestCase):

    def test_extensionAddsOnly(self):
        """
        An extension file adds and changes methods; the class's other
        methods are not removed, as they belong to its own package.
        """
        stone = {"Cache": stoneClass(RECORD)}
        text = ("Extension {\n\t#name : 'Cache'\n}\n\n"
                "{ #category : '*other' }\nCache >> isCache [\n\t^false\n]\n")
        found = changes([parseFile("other/Cache.extension.st", text)], stone)
        self.assertEqual([(c.change, c.describe()) for c in found],
                         [("changed", "changed Cache>>isCache")])
        self.assertEqual(found[0].new, TonelMethod(
            "Cache", False, "isCache", "*other", "isCache\n\t^false"))

    def test_twiceRefused(self):
        text = "Class {\n\t#name : 'A'\n}\n"
        error = self.assertRaises(ToolError, parsedFiles, [
            {"path": "P/A.class.st", "content": text},
            {"path": "Q/A.class.st", "content": text}])
        self.assertEqual(error.details["errors"], [
            {"path": "Q/A.class.st", "line": 1, "column": 1,
             "message": "A is in two files"}])
