"""Helpers shared by the stress harnesses: the exporter's lifecycle, one
fresh-connection HTTP request, percentiles, /proc figures, checks of the
figures against bounds. Loopback only."""
import base64
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time

PROBE_TIMEOUT = 5.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def exchange(port, path, timeout=PROBE_TIMEOUT, credentials=None):
    """(seconds, response bytes) of one GET with a fresh connection; the
    bytes are None when the connection failed or timed out."""
    start = time.monotonic()
    auth = ""
    if credentials is not None:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode()
        auth = f"Authorization: Basic {token}\r\n"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(max(0.01, timeout - (time.monotonic() - start)))
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{auth}Connection: close\r\n\r\n"
                      .encode())
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                s.settimeout(max(0.01, timeout - (time.monotonic() - start)))
        return time.monotonic() - start, data
    except OSError:
        return time.monotonic() - start, None


def fetch(port, path, timeout=PROBE_TIMEOUT, credentials=None, want=b"HTTP/1.1 200"):
    """Seconds for one GET with a fresh connection; None on failure or when
    the status line does not start with `want`."""
    took, data = exchange(port, path, timeout, credentials)
    if data is None or not data.startswith(want):
        return None
    return took


def fetch_status(port, path, timeout=PROBE_TIMEOUT, credentials=None):
    """The HTTP status code of one GET with a fresh connection; None when
    there was no answer."""
    _, data = exchange(port, path, timeout, credentials)
    parts = (data or b"").split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
        return None
    return int(parts[1])


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(value):
    return f"{value * 1000:.1f}"


def process_figures(pid):
    """(RSS KiB, threads) of a process."""
    rss_kib = threads = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss_kib = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
    except OSError:
        pass
    return rss_kib, threads


def cpu_seconds(pid):
    """User + system CPU seconds a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def raise_open_files(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(need, hard), hard))


class Exporter:
    """The exporter on a loopback port, stopped on exit; `exit_status` is its
    status once stopped (negative: the signal that ended it)."""

    def __init__(self, binary, extra_args=(), ready_credentials=None, log_dir=None,
                 ready_seconds=15):
        self.port = free_port()
        self.exit_status = None
        self.log = tempfile.NamedTemporaryFile(prefix="stress.", suffix=".log", delete=False,
                                               dir=log_dir)
        self.process = subprocess.Popen(
            [binary, f"--web.listen-address=127.0.0.1:{self.port}", *extra_args],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + ready_seconds
        while fetch(self.port, "/-/ready", 1.0, ready_credentials) is None:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                with open(self.log.name, errors="replace") as f:
                    tail = "".join(f.readlines()[-20:])
                sys.exit(f"stress: the exporter did not become ready; log: {self.log.name}\n"
                         f"{tail}")
            time.sleep(0.1)

    @property
    def pid(self):
        return self.process.pid

    def running(self):
        return self.process.poll() is None

    def stop(self):
        """SIGTERM, then SIGKILL after 10 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.exit_status = self.process.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


class Checks:
    """Figures against bounds, for a harness run with --assert. Prints one
    line per check (PASS or FAIL: the figure, its value, its bound and the
    flag that sets it), then "N passed, M failed"; finish() exits 1 when a
    check failed."""

    def __init__(self, harness):
        self.harness = harness
        self.passed = self.failed = 0

    def expect(self, ok, text):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{self.harness}: {'PASS' if ok else 'FAIL'} {text}", flush=True)

    def seconds_at_most(self, figure, seconds, bound, flag):
        ok = seconds <= bound  # NaN (no sample) fails
        self.expect(ok, f"{figure} {ms(seconds)} ms {'<=' if ok else '>'} {ms(bound)} ms "
                        f"({flag} {bound:g})")

    def count_at_most(self, figure, count, bound, flag):
        ok = count <= bound
        self.expect(ok, f"{figure} {count} {'<=' if ok else '>'} {bound} ({flag})")

    def count_equals(self, figure, count, expected):
        self.expect(count == expected, f"{figure} {count} (expected {expected})")

    def finish(self):
        print(f"{self.harness}: {self.passed} passed, {self.failed} failed", flush=True)
        if self.failed:
            sys.exit(1)
