"""
C{python -m build} makes a wheel that installs what a deployment needs:
the twistd plugin, the C{gsmcpd} command, the templates, and the simulated
stone's C source (the demo and C{gsmcpd check --simulated} compile it).
"""

import configparser
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from twisted.trial.unittest import SkipTest, TestCase

ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def builtWheel():
    """
    C{(file names, entry_points.txt text)} of a wheel built once per run,
    from a copy of the checkout so no build/ or egg-info lands in it.
    """
    try:
        import build  # noqa: F401
    except ImportError:
        raise SkipTest("the build package is not installed")
    outdir = tempfile.mkdtemp()
    try:
        source = os.path.join(outdir, "source")
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
            ".venv", ".git", "_trial_temp*", "node_modules", "build", "dist",
            "*.egg-info", "__pycache__"))
        subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--outdir", outdir,
             source], check=True, capture_output=True, timeout=300)
        wheel, = Path(outdir).glob("gsmcpd-*.whl")
        with zipfile.ZipFile(wheel) as archive:
            names = frozenset(archive.namelist())
            entryPoints, = [n for n in names
                            if n.endswith(".dist-info/entry_points.txt")]
            return names, archive.read(entryPoints).decode("utf-8")
    finally:
        shutil.rmtree(outdir, ignore_errors=True)


class WheelTests(TestCase):

    timeout = 300

    def setUp(self):
        self.names, self.entryPoints = builtWheel()

    def test_plugin(self):
        self.assertIn("twisted/plugins/gsmcp_plugin.py", self.names)
        self.assertNotIn("twisted/__init__.py", self.names)
        self.assertNotIn("twisted/plugins/__init__.py", self.names)

    def test_consoleScript(self):
        parser = configparser.ConfigParser()
        parser.read_string(self.entryPoints)
        self.assertEqual(parser["console_scripts"]["gsmcpd"],
                         "gsmcpd.daemon.early:run")

    def test_simulatedStoneSourceAndTemplates(self):
        self.assertIn("gsmcpd/testing/simulator/fakegcits.c", self.names)
        self.assertIn("gsmcpd/tools/templates/preflight.st", self.names)
        self.assertIn("gsmcpd/tools/templates/_envelope.st", self.names)

    def test_benchFixtures(self):
        """
        The bench's null stone source and wrk script travel with it.
        """
        self.assertIn("gsmcpd/testing/bench/nullgcits.c", self.names)
        self.assertIn("gsmcpd/testing/bench/post.lua", self.names)

    def test_noTests(self):
        self.assertFalse([n for n in self.names if n.startswith("tests/")])


class NoTestImportTests(TestCase):

    def test_packageImportsNoTests(self):
        """
        No module of the package, C{gsmcpd/testing} included, imports the
        tests: the wheel has none, so such a module fails outside a
        checkout.
        """
        importing = [
            str(path.relative_to(ROOT)) for path in sorted(
                (ROOT / "gsmcpd").rglob("*.py"))
            if any(line.split()[:2] in (["import", "tests"], ["from", "tests"])
                   or line.startswith(("import tests.", "from tests."))
                   for line in path.read_text(encoding="utf-8").splitlines())]
        self.assertEqual(importing, [])
