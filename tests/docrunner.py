"""
Run the shell blocks a document marks as runnable, as written, in the
current directory: C{python -m tests.docrunner DOCUMENT}.

A literal block is runnable when an rst comment C{.. runnable} comes before
the paragraph that introduces it (the next C{::} after the comment):

    - C{.. runnable}: the block is a bash script that must succeed;
    - C{.. runnable: background PORT}: the block is started and left
      running once PORT accepts connections (a daemon later blocks use);
    - C{.. runnable: transcript}: each C{$ command} line runs, and its
      output must be the lines below it, where C{...} stands for any text.

Every process a block started is stopped when the document's last block
has run.  Prints one line per block and exits 1 at the first failure,
saying which block failed and what it printed.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import attr

MARKER = re.compile(r"^\.\. runnable(?::\s*(?P<mode>\S+)(?:\s+(?P<port>\d+))?)?"
                    r"\s*$")
BLOCK_TIMEOUT = 120
START_TIMEOUT = 60
STOP_TIMEOUT = 10
BASH = ("bash", "-e", "-o", "pipefail", "-c")


@attr.s(frozen=True, auto_attribs=True)
class Block:
    """
    One runnable block: where it is, how it runs, its text.
    """

    line: int
    mode: str
    port: int | None
    text: str


def runnableBlocks(text):
    """
    The runnable blocks of an rst document, in order.

    @raise ValueError: a marker with no literal block after it, or an
        unknown mode.
    """
    lines = text.splitlines()
    blocks = []
    for index, line in enumerate(lines):
        found = MARKER.match(line)
        if not found:
            continue
        mode = found.group("mode") or "script"
        if mode not in ("script", "background", "transcript") or (
                (mode == "background") != bool(found.group("port"))):
            raise ValueError(f"line {index + 1}: {line!r}: expected "
                             "'.. runnable', '.. runnable: background "
                             "PORT' or '.. runnable: transcript'")
        start = _literalStart(lines, index + 1)
        blocks.append(Block(start + 1, mode, found.group("port") and int(
            found.group("port")), _literal(lines, start)))
    return blocks


def _literalStart(lines, index):
    for at in range(index, len(lines)):
        if lines[at].rstrip().endswith("::"):
            return at
        if MARKER.match(lines[at]):
            break
    raise ValueError(f"line {index}: '.. runnable' with no literal block "
                     "after it")


def _literal(lines, at):
    base = len(lines[at]) - len(lines[at].lstrip())
    body = []
    for line in lines[at + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= base:
            break
        body.append(line)
    while body and not body[-1].strip():
        body.pop()
    while body and not body[0].strip():
        body.pop(0)
    indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
    return "\n".join(line[indent:] for line in body) + "\n"


def transcriptSteps(text):
    """
    C{(command, expected lines)} of each C{$ command} in a transcript.
    """
    steps = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def matches(expected, actual):
    """
    Whether output lines C{actual} are the lines C{expected}, where C{...}
    in an expected line stands for any text.
    """
    if len(expected) != len(actual):
        return False
    return all(re.fullmatch(".*".join(map(re.escape, want.split("..."))),
                            got.rstrip()) for want, got in
               zip(expected, actual, strict=True))


class Runner:
    """
    Runs one document's blocks, keeping the process groups they started.
    """

    def __init__(self, logDirectory):
        self.logDirectory = logDirectory
        self.groups = []

    def start(self, script):
        log = tempfile.NamedTemporaryFile(dir=self.logDirectory,
                                          delete=False)
        process = subprocess.Popen([*BASH, script], stdout=log,
                                   stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL,
                                   start_new_session=True)
        self.groups.append(process.pid)
        return process, log.name

    def run(self, script):
        """
        C{(exit status, output)} of C{script}; background jobs it leaves
        are stopped with the rest.  The output goes to a file, so a job
        left running cannot hold it open.
        """
        process, logPath = self.start(script)
        try:
            status = process.wait(BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            status = "timed out"
        with open(logPath, encoding="utf-8", errors="replace") as f:
            return status, f.read()

    def background(self, script, port):
        process, logPath = self.start(script)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                return None
            except OSError:
                time.sleep(0.05)
        with open(logPath, encoding="utf-8", errors="replace") as f:
            return f"port {port} never answered; it printed:\n{f.read()}"

    def stop(self):
        for group in reversed(self.groups):
            _signal(group, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for group in self.groups:
            while _alive(group) and time.monotonic() < deadline:
                time.sleep(0.02)
            _signal(group, signal.SIGKILL)


def _signal(group, number):
    try:
        os.killpg(group, number)
    except ProcessLookupError:
        pass


def _alive(group):
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def runBlock(runner, block):
    """
    Run one block; answer L{None}, or what went wrong.
    """
    if block.mode == "background":
        return runner.background(block.text, block.port)
    if block.mode == "script":
        status, output = runner.run(block.text)
        return None if status == 0 else f"exit {status}:\n{output}"
    for command, expected in transcriptSteps(block.text):
        status, output = runner.run(command)
        actual = output.splitlines()
        if status != 0 or not matches(expected, actual):
            return (f"$ {command}\nexit {status}, printed:\n{output}"
                    f"expected:\n" + "\n".join(expected))
    return None


def main(path):
    with open(path, encoding="utf-8") as f:
        blocks = runnableBlocks(f.read())
    runner = Runner(tempfile.mkdtemp(prefix="docrunner-"))
    try:
        for block in blocks:
            failure = runBlock(runner, block)
            print(f"{path}:{block.line}: {block.mode}: "
                  f"{'FAILED' if failure else 'ok'}", flush=True)
            if failure:
                print(failure)
                return 1
    finally:
        runner.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
