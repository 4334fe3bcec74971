"""
The kernel-sized repository (L{gsmcpd.testing.simulator.kernelrepo}): what
it generates, its shape (L{gsmcpd.testing.bench.kernelshape}), and every list
and search tool's first page on it with default arguments.  One in-process
stone serves the whole module (building it takes about 15 s of CPU); one test
starts the simulator process with C{--repository kernel}, as the module's
stone is built, and waits for it.
"""

import json
import os
import random
import shutil
import tempfile

from twisted.internet.defer import inlineCallbacks
from twisted.trial.unittest import TestCase

from gsmcpd.testing.bench import kernelshape
from gsmcpd.testing.simulator import kernelrepo, searches
from gsmcpd.testing.simulator.kernel import CLASSES
from gsmcpd.testing.simulator.launch import start
from gsmcpd.testing.simulator.model import CodeModel
from gsmcpd.testing.simulator.stone import Stone
from gsmcpd.tools.paging import LIST_LIMIT
from gsmcpd.tools.search import SEARCH_LIMIT
from tests.toolharness import ToolHarness, checkStructured
from tests.tools.test_tools_search import called

FIRST_PAGE_BYTES = 50_000
"""The most a first page with default arguments may take (issue 19)."""

FIRST_PAGES = [
    ("find_implementors", {"selector": "printOn:"}),
    ("find_implementors", {"selector": "initialize"}),
    ("find_senders", {"selector": "size"}),
    ("find_senders", {"selector": "printString"}),
    ("find_references_to", {"name": "Object"}),
    ("search_method_source", {"pattern": "printString"}),
    ("search_method_source", {"pattern": "self"}),
    ("list_all_classes", {}),
    ("list_classes", {"dictionaryName": "Globals"}),
    ("list_dictionaries", {}),
    ("list_dictionary_entries", {"dictionaryName": "Globals"}),
    ("list_methods", {"className": "(the largest)"}),
    ("list_test_classes", {}),
    ("describe_class", {"className": "(the largest)"}),
    ("get_class_hierarchy", {"className": "Object"}),
]
"""Each list and search tool, on the arguments that find the most (the
largest class: the one with the most methods)."""

_stone = []
_starting = []
_shape = []
_largest = []
_pages = {}
"""The first pages asked for (L{FirstPageTests.firstPage}), by tool and arguments."""


def kernelStone():
    """
    The module's one stone on the kernel-sized repository.  L{LaunchTests}'
    simulator process is started first, so that it generates its copy on
    the other core meanwhile.
    """
    if not _stone:
        startKernelSimulator()
        _stone.append(Stone(repository=kernelrepo.repository()))
    return _stone[0]


def startKernelSimulator():
    """
    The simulator process on the kernel-sized repository, started once for
    L{LaunchTests} (its C{--exit-on-stdin-eof} ends it with this process
    if no test waits for it).
    """
    if not _starting:
        _starting.append(start(os.path.join(tempfile.mkdtemp(), "stone.sock"),
                               repository="kernel"))
    return _starting[0]


class GeneratedTests(TestCase):

    def setUp(self):
        self.stone = kernelStone()
        self.code = CodeModel(self.stone.login("DataCurator", "swordfish"))

    def test_size(self):
        """
        About 1,500 classes in Globals and 60,000 methods, the demo code
        beside them.
        """
        classes = [info for info in self.code.allClasses() if info.dictionary == "Globals"]
        self.assertLess(abs(len(classes) / kernelrepo.CLASS_COUNT - 1), 0.01)
        methods = sum(map(len, searches.indexOf(self.code).implementors.values()))
        self.assertLess(abs(methods / kernelrepo.METHOD_COUNT - 1), 0.05)
        self.assertIsNotNone(self.code.classNamed("Account"))

    def test_commonSelectorsWidely(self):
        """
        Common selectors have hundreds of implementors, and thousands of
        senders; kernel globals such as Object are referred to.
        """
        index = searches.indexOf(self.code)
        self.assertGreater(len(index.implementors["printOn:"]), 300)
        self.assertGreater(len(index.implementors["="]), 200)
        self.assertGreater(len(index.senders["size"]), 2000)
        self.assertGreater(len(index.references["Object"]), 500)

    def test_labelled(self):
        """
        Every class the kernel repository adds says it is generated, in its
        comment, and is filed under its family's category.
        """
        for name, parent, _ in kernelrepo.classes(random.Random(kernelrepo.SEED)):
            info = self.code.classInfo(name)
            self.assertIn("Generated", info.comment, name)
            self.assertEqual(info.category, kernelrepo.category(name, parent), name)

    def test_modelClassesNotRedefined(self):
        """
        A name the kernel model has is left to the model.
        """
        names = {name for name, _, _ in kernelrepo.classes(random.Random(kernelrepo.SEED))}
        self.assertEqual(names & set(CLASSES), set())

    def test_deterministic(self):
        """
        The same classes, superclasses and sources every start.
        """
        def generated():
            rng = random.Random(kernelrepo.SEED)
            names = kernelrepo.classes(rng)
            counts = kernelrepo.methodCounts([name for name, _, _ in names], rng)
            return names, counts, kernelrepo.selectors(counts, rng)
        self.assertEqual(generated(), generated())

    def test_kernelModelMethodsOnly(self):
        """
        A class of the simulator's kernel model is given a source for the
        selectors the model implements, none other: nothing a template
        sends that the model lacks starts to answer.
        """
        for name in ("Object", "String", "SymbolDictionary"):
            self.assertEqual(set(self.code.methods(name)), set(CLASSES[name].methods), name)

    def test_outOfSUnit(self):
        """
        No composed class is a TestCase or TestResource: running every
        test meets none of them.
        """
        added = {name for name, _, origin in kernelrepo.classes(random.Random(kernelrepo.SEED))
                 if origin.startswith("composed")}
        self.assertGreater(len(added), 1000)
        self.assertEqual(added & set(self.code.testClasses()), set())


class ShapeTests(TestCase):
    """
    The repository has a real kernel's shape
    (L{gsmcpd.testing.bench.kernelshape}): most selectors have one implementor,
    a class side of hundreds, sources as long as measured ones, many
    categories, real names.
    """

    def setUp(self):
        if not _shape:
            _shape.append(kernelshape.shape(
                CodeModel(kernelStone().login("DataCurator", "swordfish"))))
        self.shape = _shape[0]

    def test_oneImplementor(self):
        """
        Most selectors have one implementor (as measured, within a few
        points), and the median selector has one; a long tail has many.
        """
        self.assertGreaterEqual(self.shape["oneImplementor"], 0.7)
        self.assertLess(abs(self.shape["oneImplementor"] - kernelrepo.REAL["oneImplementor"]),
                        0.08)
        self.assertEqual(self.shape["implementorsMedian"], 1)
        self.assertGreater(self.shape["implementorsMax"], 300)

    def test_classSide(self):
        """
        One class has hundreds of class-side methods, and the class side is
        about the measured share of all methods.
        """
        self.assertGreaterEqual(self.shape["classSideMost"], 300)
        share = self.shape["classSide"] / self.shape["methods"]
        self.assertLess(abs(share - kernelrepo.REAL["classSideShare"]), 0.04)

    def test_sourceLengths(self):
        """
        The mean and median source lengths are within a quarter of the
        measured ones.
        """
        self.assertLess(abs(self.shape["sourceMean"] / kernelrepo.REAL["sourceMean"] - 1), 0.25)
        median = self.shape["sourcePercentiles"]["0.5"]
        self.assertLess(abs(median / kernelrepo.REAL["sourceMedian"] - 1), 0.25)

    def test_categories(self):
        self.assertGreaterEqual(self.shape["classCategories"], 20)
        self.assertGreaterEqual(self.shape["methodCategories"], 20)

    def test_names(self):
        """
        No class is named C{Generated...}.
        """
        self.assertEqual(self.shape["namedGenerated"], 0)


class FirstPageTests(TestCase):
    """
    Every list and search tool's first page with default arguments, on the
    kernel-sized repository.  Each page is asked for once per module (a
    search runs every template over 60,000 methods): both tests check the
    same answers.
    """

    def setUp(self):
        self.harness = ToolHarness(("search", "listing", "browsing", "testing"),
                                   stone=kernelStone())

    def largestClass(self):
        if not _largest:
            counts = {}
            index = searches.indexOf(CodeModel(self.harness.gem.session))
            for methods in index.implementors.values():
                for each in methods:
                    counts[each.className] = counts.get(each.className, 0) + 1
            _largest.append(max(counts, key=counts.get))
        return _largest[0]

    @inlineCallbacks
    def firstPage(self, tool, arguments):
        """
        The result of C{tool} called with C{arguments}, the largest class
        for C{"(the largest)"}: asked once, then remembered.
        """
        if arguments.get("className") == "(the largest)":
            arguments = {"className": self.largestClass()}
        key = (tool, json.dumps(arguments, sort_keys=True))
        if key not in _pages:
            _pages[key] = yield called(self.harness, tool, arguments)
        return _pages[key]

    @inlineCallbacks
    def test_underTheCap(self):
        for tool, arguments in FIRST_PAGES:
            result = yield self.firstPage(tool, arguments)
            self.assertFalse(result["isError"], (tool, result["content"]))
            checkStructured(self.harness.tools.get(tool), result["structuredContent"])
            self.assertLess(len(json.dumps(result)), FIRST_PAGE_BYTES, (tool, arguments))

    @inlineCallbacks
    def test_pagedByDefault(self):
        """
        The long lists stop at their default limit and say where the next
        page starts.
        """
        for tool, arguments, key, limit in (
                ("find_implementors", {"selector": "printOn:"}, "methods", SEARCH_LIMIT),
                ("find_references_to", {"name": "Object"}, "methods", SEARCH_LIMIT),
                ("find_senders", {"selector": "size"}, "methods", SEARCH_LIMIT),
                ("list_all_classes", {}, "classes", LIST_LIMIT),
                ("list_dictionary_entries", {"dictionaryName": "Globals"}, "entries",
                 LIST_LIMIT),
                ("list_methods", {"className": "(the largest)"}, "methods", LIST_LIMIT)):
            result = yield self.firstPage(tool, arguments)
            structured = result["structuredContent"]
            self.assertEqual(len(structured[key]), limit, tool)
            self.assertEqual(structured["page"]["nextOffset"], limit, tool)
            self.assertGreater(structured["page"]["total"], limit, tool)


class LaunchTests(TestCase):

    def test_kernelRepository(self):
        """
        C{--repository kernel} starts the simulator on the generated
        repository, and its ready line says so.
        """
        starting = startKernelSimulator()
        _starting.clear()  # Waited for once: a test run again starts another.
        stone = starting.ready()
        self.addCleanup(shutil.rmtree, os.path.dirname(stone.socketPath), True)
        self.addCleanup(stone.stop)
        self.assertIn("GENERATED kernel-sized repository", stone.banner)
