"""
The shipped systemd units pass C{systemd-analyze verify} and rate an
exposure of 2.0 or less in C{systemd-analyze security}.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

from twisted.trial.unittest import SkipTest, TestCase

ROOT = Path(__file__).resolve().parents[2]
ETC = ROOT / "etc"
MOST_EXPOSURE = 2.0
INSTALLED_COMMAND = "/opt/gsmcpd/venv/bin/gsmcpd"


class UnitTests(TestCase):

    def setUp(self):
        if shutil.which("systemd-analyze") is None:
            raise SkipTest("systemd-analyze is not installed")
        self.directory = Path(self.mktemp())
        self.directory.mkdir()
        for unit in ("gsmcpd.service", "gsmcpd.socket"):
            text = (ETC / unit).read_text()
            # Verify checks that ExecStart= exists; the daemon is not
            # installed where the unit expects it on this machine.
            (self.directory / unit).write_text(
                text.replace(INSTALLED_COMMAND, shutil.which("true")))

    def analyze(self, *arguments):
        return subprocess.run(
            ["systemd-analyze", *arguments], cwd=self.directory,
            capture_output=True, text=True, timeout=60,
            env=dict(os.environ, SYSTEMD_LOG_COLOR="0", SYSTEMD_COLORS="0"))

    def test_verify(self):
        done = self.analyze("verify", "./gsmcpd.service", "./gsmcpd.socket")
        self.assertEqual((done.returncode, done.stderr.strip()), (0, ""))

    def test_securityExposure(self):
        done = self.analyze("security", "--offline=true",
                            f"--threshold={int(MOST_EXPOSURE * 10)}",
                            "./gsmcpd.service")
        level = re.search(r"Overall exposure level for gsmcpd.service: "
                          r"([\d.]+)", done.stdout)
        self.assertLessEqual(float(level.group(1)), MOST_EXPOSURE)
        self.assertEqual(done.returncode, 0, done.stdout[-500:])

    def test_serviceListensOnTheSocketUnit(self):
        service = (ETC / "gsmcpd.service").read_text()
        self.assertIn("Type=notify", service)
        self.assertIn("Restart=on-failure", service)
        self.assertRegex(service, r"ExecStart=\S+/gsmcpd serve --port "
                                  r"systemd:domain=INET:index=0")
        self.assertIn("FileDescriptorName=",
                      (ETC / "gsmcpd.socket").read_text())


class UnitPromisesTests(TestCase):
    """
    What the unit names exists once the operating guide's steps are done.
    """

    service = (ETC / "gsmcpd.service").read_text()

    def test_documentationInstalled(self):
        """
        Documentation= names a file the guide's steps install.
        """
        [url] = re.findall(r"^Documentation=file://(\S+)$", self.service,
                           re.M)
        steps = (ROOT / "docs" / "operating.rst").read_text()
        self.assertRegex(steps, r"install .*docs/operating\.rst .*"
                         + re.escape(url))

    def test_auditLogWritable(self):
        """
        The logs directory systemd creates is where the guide and the
        logrotate file put the audit log; rotation reopens it (SIGHUP via
        systemctl reload) rather than copying and truncating.
        """
        self.assertIn("LogsDirectory=gsmcpd\n", self.service)
        self.assertIn("ExecReload=/bin/kill -HUP $MAINPID\n", self.service)
        rotate = (ETC / "logrotate.d" / "gsmcpd").read_text()
        self.assertIn("/var/log/gsmcpd/audit.log {", rotate)
        self.assertIn("systemctl reload gsmcpd", rotate)
        self.assertNotIn("\n    copytruncate", rotate)
