"""
Every command the documents mark as runnable runs as written
(C{tests/docrunner.py} says how they are marked), against the simulated
stone, from a scratch directory that looks like a fresh checkout, with an
empty home and no C{GSMCP_} variables.

As root, each document runs in a network namespace of its own
(C{unshare -n}), so the ports it names (8000, 8443, ...) are free whatever
else runs on the machine; otherwise on the machine's loopback.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from twisted.trial.unittest import SynchronousTestCase

from tests.docrunner import matches, runnableBlocks, transcriptSteps

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.rst", *sorted((ROOT / "docs").glob("*.rst"))]
CHECKOUT = (".venv", "bin", "etc", "docs", "gsmcpd", "tests", "twisted",
            "setup.cfg", "pyproject.toml", "README.rst")
"""What of the checkout the scratch directory links to."""
DOCUMENT_TIMEOUT = 300
CACHE = tempfile.mkdtemp(prefix="gsmcpd-docs-cache-")
"""The simulated stone's library, built once for every document."""


def isolated():
    """
    The command prefix giving a document a network namespace of its own
    with loopback up, or C{()} where that is not possible.
    """
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None or subprocess.run(
            [unshare, "-n", "true"], capture_output=True).returncode != 0:
        return ()
    return (unshare, "-n", "sh", "-c", 'ip link set lo up && exec "$@"',
            "isolated")


class DocumentTests(SynchronousTestCase):

    def runDocument(self, document):
        scratch = tempfile.mkdtemp(prefix="gsmcpd-docs-")
        self.addCleanup(shutil.rmtree, scratch, ignore_errors=True)
        for name in CHECKOUT:
            os.symlink(ROOT / name, os.path.join(scratch, name))
        home = os.path.join(scratch, "home")
        os.mkdir(home)
        environ = {key: value for key, value in os.environ.items()
                   if not key.startswith("GSMCP_")}
        environ.update(HOME=home, XDG_CACHE_HOME=CACHE, TMPDIR=scratch)
        done = subprocess.run(
            [*isolated(), sys.executable, "-m", "tests.docrunner",
             str(document)], cwd=scratch, env=dict(
                 environ, PYTHONPATH=str(ROOT)), capture_output=True,
            text=True, timeout=DOCUMENT_TIMEOUT)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)


def _name(document):
    relative = document.relative_to(ROOT).with_suffix("").as_posix()
    return "test_" + relative.replace("/", "_").replace("-", "_")


for _document in DOCUMENTS:
    if runnableBlocks(_document.read_text()):
        def _test(self, document=_document):
            self.runDocument(document)
        _test.__doc__ = f"The runnable commands of {_document.name} run."
        setattr(DocumentTests, _name(_document), _test)


class RunnerTests(SynchronousTestCase):
    """
    How the runner reads a document.
    """

    def test_markedBlocks(self):
        blocks = runnableBlocks(
            ".. runnable\n\nSome text::\n\n    echo one \\\n"
            "      two\n\n    echo three\n\nAfter.\n\n"
            "Not marked::\n\n    false\n\n"
            ".. runnable: background 8000\n\n::\n\n    serve\n\n"
            ".. runnable: transcript\n\n::\n\n    $ echo hi\n    hi\n")
        self.assertEqual([(b.line, b.mode, b.port, b.text) for b in blocks], [
            (3, "script", None, "echo one \\\n  two\n\necho three\n"),
            (18, "background", 8000, "serve\n"),
            (24, "transcript", None, "$ echo hi\nhi\n")])

    def test_badMarker(self):
        self.assertRaises(ValueError, runnableBlocks,
                          ".. runnable: background\n\n::\n\n    x\n")
        self.assertRaises(ValueError, runnableBlocks, ".. runnable\n\nno\n")

    def test_transcript(self):
        self.assertEqual(transcriptSteps("$ a\n1\n2\n$ b\n"),
                         [("a", ["1", "2"]), ("b", [])])
        self.assertTrue(matches(["OK  x: ... y"], ["OK  x: long y  "]))
        self.assertFalse(matches(["OK  x"], ["OK  x", "more"]))
        self.assertFalse(matches(["a.c"], ["abc"]))
