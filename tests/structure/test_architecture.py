"""
docs/architecture.rst against the tree: its Modules section names every
module of every package, and the modules it says read HTTP headers are the
ones that do.
"""

import re

from twisted.trial.unittest import SynchronousTestCase

from tests.structure.test_layering import ROOT

DOCUMENT = ROOT.parent / "docs" / "architecture.rst"

HEADER_READS = re.compile(r"getHeader\(|requestHeaders")


def modulesSection():
    """
    Each package the Modules section describes, by dotted name, with the
    names it quotes in double backticks.
    """
    text = DOCUMENT.read_text()
    section = text.split("\nModules\n-------\n", 1)[1].split(
        "\nThe service tree\n", 1)[0]
    parts = re.split(r"^``(gsmcpd[\w.]*)``[^\n]*\n", section, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def packages():
    """
    Every package of the tree (the test doubles' own subpackages aside),
    by dotted name, with its modules' names.
    """
    found = {}
    for path in ROOT.rglob("*.py"):
        dotted = ".".join(path.parent.relative_to(ROOT.parent).parts)
        if dotted == "gsmcpd" or dotted.startswith("gsmcpd.testing.") and \
                dotted.count(".") > 2:
            continue
        modules = found.setdefault(dotted, set())
        if path.stem != "__init__":
            modules.add(path.stem)
    return found


class ModulesSectionTests(SynchronousTestCase):

    def test_everyModuleNamed(self):
        """
        Every module is named in its package's paragraph (the test doubles
        are named as packages).
        """
        described = modulesSection()
        for package, modules in packages().items():
            if package == "gsmcpd.testing":
                continue
            self.assertIn(package, described)
            if package.startswith("gsmcpd.testing."):
                continue
            named = set(re.findall(r"``(\w+)``", described[package]))
            self.assertEqual(modules - named, set(), package)

    def test_everyPackageDescribedExists(self):
        tree = packages()
        for package in modulesSection():
            self.assertIn(package, tree)

    def test_headerReaders(self):
        """
        The modules that read HTTP headers are the ones the transport's
        paragraph names, all in the transport.
        """
        readers = {".".join(path.relative_to(ROOT).with_suffix("").parts)
                   for path in ROOT.rglob("*.py")
                   if path.relative_to(ROOT).parts[0] != "testing" and
                   HEADER_READS.search(path.read_text())}
        self.assertEqual({reader.split(".")[0] for reader in readers},
                         {"transport"})
        sentence = modulesSection()["gsmcpd.transport"].split(
            "Headers are read", 1)[1].split("nothing below", 1)[0]
        transport = packages()["gsmcpd.transport"]
        named = {name for name in re.findall(r"``(\w+)``", sentence)
                 if name in transport} | {"http"}
        self.assertEqual({reader.split(".")[1] for reader in readers}, named)
