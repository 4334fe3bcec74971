"""
C{gsmcpd serve} as systemd and an operator run it, over real sockets: its
refusals, C{/healthz} and C{/metrics}, sd_notify, JSON logs, and the admin
port.
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from prometheus_client.parser import text_string_to_metric_families
from twisted.trial.unittest import SkipTest, SynchronousTestCase

from gsmcpd.testing.simulator.build import libraryPath
from tests.realdaemon import GSMCPD_SERVE, TWISTD_GSMCP, Daemon, freePort, get

REFUSING = "gsmcpd: refusing to start: "


def healthOnceListening(port, timeout=10):
    """
    C{(status, document)} of C{GET /healthz} once C{port} accepts and the
    daemon is past starting (a socket systemd holds accepts before).
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            status, _, body = get(port, "/healthz")
            document = json.loads(body)
            if document.get("status") != "starting":
                return status, document
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"port {port}: no health past starting")
        time.sleep(0.05)


def samples(text):
    """
    C{{(name, labels tuple): value}} of a Prometheus scrape.
    """
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples}


class RefusalTests(SynchronousTestCase):
    """
    Every refusal to start exits non-zero with one line saying why.
    """

    def refusal(self, command, *arguments):
        done = subprocess.run([*command, *arguments], capture_output=True,
                              text=True, timeout=120,
                              cwd=tempfile.mkdtemp())
        output = done.stdout + done.stderr
        self.assertNotEqual(done.returncode, 0, output)
        self.assertNotIn("Traceback", output)
        lines = [line for line in output.splitlines() if REFUSING in line]
        self.assertEqual(len(lines), 1, output)
        return lines[0].split(REFUSING, 1)[1]

    def test_portInUse(self):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            why = self.refusal(GSMCPD_SERVE, "--simulated", "--port",
                               f"tcp:{port}:interface=127.0.0.1")
        self.assertIn("Address already in use", why)

    def test_failedLoginUnderTwistd(self):
        directory = tempfile.mkdtemp()
        password = os.path.join(directory, "password")
        with open(password, "w") as f:
            f.write("swordfish\n")
        os.chmod(password, 0o600)
        why = self.refusal(
            TWISTD_GSMCP, "--gci-library", libraryPath(), "--password-file",
            password, "--stone", os.path.join(directory, "nostone"),
            "--port", f"tcp:{freePort()}:interface=127.0.0.1")
        self.assertIn("cannot log in to GemStone as 'DataCurator': "
                      "GemStone error", why)

    def test_badEndpoint(self):
        why = self.refusal(GSMCPD_SERVE, "--simulated", "--port",
                           "tcp:nope:interface=127.0.0.1")
        self.assertIn("--port 'tcp:nope:interface=127.0.0.1'", why)

    def test_unreadableCertificate(self):
        why = self.refusal(GSMCPD_SERVE, "--simulated", "--port",
                           "ssl:0:privateKey=/nonexistent/key.pem:"
                           "interface=127.0.0.1")
        self.assertIn("/nonexistent/key.pem", why)

    def test_unreadablePasswordFile(self):
        why = self.refusal(GSMCPD_SERVE, "--gci-library", libraryPath(),
                           "--password-file", "/nonexistent/password")
        self.assertIn("/nonexistent/password", why)


class ServingTests(SynchronousTestCase):

    def serve(self, *arguments, environ=None):
        daemon = Daemon(tempfile.mkdtemp(), *arguments,
                        command=GSMCPD_SERVE, environ=environ)
        self.addCleanup(daemon.stop)
        return daemon

    def callExecuteCode(self, daemon, session):
        status, _, body = daemon.rpc("tools/call", session, 2,
                                     name="execute_code",
                                     arguments={"code": "3 + 4"})
        self.assertEqual((status, body["result"]["content"][0]["text"]),
                         (200, "7"))

    def test_healthAndMetricsBesideMcp(self):
        daemon = self.serve()
        status, headers, body = get(daemon.port, "/healthz",
                                    {"Origin": "https://elsewhere.example"})
        self.assertEqual((status, json.loads(body)),
                         (200, {"status": "serving", "sessions": 0}))
        session = daemon.initialize()
        self.callExecuteCode(daemon, session)
        status, headers, body = get(daemon.port, "/metrics")
        self.assertEqual(status, 200)
        scraped = samples(body.decode("utf-8"))
        tool = (("tool", "execute_code"),)
        self.assertEqual(scraped[("gsmcpd_call_duration_seconds_count",
                                  tool)], 1.0)
        self.assertEqual(scraped[("gsmcpd_tool_calls_total", (
            ("outcome", "ok"), ("tool", "execute_code")))], 1.0)
        self.assertEqual(scraped[("gsmcpd_sessions_open", ())], 1.0)
        self.assertEqual(scraped[("gsmcpd_logins_total",
                                  (("outcome", "ok"),))], 1.0)
        self.assertIn(("process_open_fds", ()), scraped)

    def test_settingsFromTheFile(self):
        """
        gsmcpd --config FILE serve takes its settings from FILE (a
        deprecated name there is logged), and --port PORT listens on
        loopback.
        """
        directory = tempfile.mkdtemp()
        port = freePort()
        path = os.path.join(directory, "gsmcpd.toml")
        with open(path, "w") as f:
            f.write('simulated = true\nserver-title = "from the file"\n'
                    'request-timeout = 30\n')
        daemon = Daemon(directory, port=port, stone=(), command=(
            *GSMCPD_SERVE[:-1], "--config", path, "serve"),
            endpoint=str(port))
        self.addCleanup(daemon.stop)
        status, _, body = daemon.rpc("initialize",
                                     protocolVersion="2025-11-25")
        self.assertEqual(body["result"]["serverInfo"]["title"],
                         "from the file (simulated stone)")
        self.assertIn(f"serving MCP on tcp:{port}:interface=127.0.0.1 ",
                      daemon.log())
        self.assertIn(f"{path}: request-timeout is deprecated and will be "
                      "removed: use call-timeout", daemon.log())

    def test_adminPort(self):
        admin = freePort()
        daemon = self.serve("--admin-port", f"tcp:{admin}:interface=127.0.0.1")
        status, _ = healthOnceListening(admin)
        self.assertEqual(status, 200)
        self.assertEqual(get(daemon.port, "/healthz")[0], 404)

    def test_systemdNotified(self):
        directory = tempfile.mkdtemp()
        path = os.path.join(directory, "notify")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(listener.close)
        listener.bind(path)
        listener.settimeout(30)
        daemon = self.serve("--drain-grace", "0.2",
                            environ={"NOTIFY_SOCKET": path})
        ready = listener.recv(4096).decode("utf-8")
        self.assertEqual(ready, "READY=1\nSTATUS=serving 0 sessions")
        # twistd ends with the signal it was stopped by, as systemd expects.
        self.assertIn(daemon.stop(), (0, -15))
        stopping = listener.recv(4096).decode("utf-8")
        self.assertTrue(stopping.startswith("STOPPING=1\nSTATUS=draining "
                                            "for 0.2s"), stopping)

    def test_socketActivation(self):
        """
        Listening on the socket systemd passes (here through
        systemd-socket-activate, as gsmcpd.socket does): the first
        connection waits until the daemon serves.
        """
        activate = shutil.which("systemd-socket-activate")
        if activate is None:
            raise SkipTest("systemd-socket-activate is not installed")
        port = freePort()
        passed = [f"--setenv={name}" for name in ("GSMCP_CACHE_DIR",
                                                  "PYTHONPATH")
                  if name in os.environ]
        log = open(os.path.join(tempfile.mkdtemp(), "log"), "wb")
        self.addCleanup(log.close)
        process = subprocess.Popen(
            [activate, *passed, "--listen", f"127.0.0.1:{port}",
             "--fdname=gsmcpd", *GSMCPD_SERVE, "--simulated", "--port",
             "systemd:domain=INET:index=0"],
            stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(process.wait, 30)
        self.addCleanup(process.terminate)
        status, document = healthOnceListening(port)
        self.assertEqual((status, document["status"]), (200, "serving"))

    def test_jsonLogsFromTheConfigFile(self):
        """
        C{log-format = "json"} in the C{--config} file gives JSON logs, as
        the option and the variable do.
        """
        directory = tempfile.mkdtemp()
        path = os.path.join(directory, "gsmcpd.toml")
        with open(path, "w") as f:
            f.write('log-format = "json"\n')
        daemon = self.serve("--config", path)
        daemon.stop()
        records = [json.loads(line) for line in daemon.log().splitlines()]
        self.assertTrue(any("serving MCP on" in r["message"]
                            for r in records), records)

    def test_jsonLogsNameTheClient(self):
        daemon = self.serve("--log-format", "json")
        status, headers, _ = daemon.rpc(
            "initialize", protocolVersion="2025-11-25",
            clientInfo={"name": "curl-by-hand", "version": "8.5"},
            capabilities={})
        self.assertEqual(status, 200)
        daemon.stop()
        records = [json.loads(line) for line in daemon.log().splitlines()]
        opened = [r for r in records if "opened for" in r["message"]]
        self.assertEqual(len(opened), 1, records)
        self.assertTrue(opened[0]["message"].endswith(
            "opened for curl-by-hand 8.5"))
        self.assertEqual(opened[0]["level"], "info")
