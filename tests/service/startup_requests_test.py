"""Requests in flight while the exporter starts all get an answer.

The exporter listens before it loads the probe and gives up its capabilities
last. A client that connects in that window (a kubelet probe, a Prometheus
scrape) must get a status, never a closed connection. This script holds many
requests half-sent through the whole start-up: a new connection every 10 ms,
each sending its request line at once and the end of its headers 1.5 s later,
until the exporter has been ready for 1.5 s. Every connection must then read
200 (/-/healthy). Over plain HTTP, then over TLS. One line per check; exit 1
on any failure. Usage: startup_requests_test.py BINARY
"""
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1]
if os.geteuid() != 0:
    print("FAIL: this test loads BPF: run it as root")
    sys.exit(1)
if shutil.which("openssl") is None:
    print("FAIL: openssl is missing (scripts/install-deps.sh installs it)")
    sys.exit(1)
work = tempfile.mkdtemp(prefix="netif_rx_startup.")
failures = []
HOLD_SECONDS = 1.5
OPEN_EVERY_SECONDS = 0.01
START_DEADLINE_SECONDS = 60


def check(name, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + name + (f" ({detail})" if detail and not ok else ""),
          flush=True)
    if not ok:
        failures.append(name)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_certificate():
    key, cert = os.path.join(work, "server.key"), os.path.join(work, "server.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-keyout", key,
                    "-out", cert, "-subj", "/CN=127.0.0.1", "-addext",
                    "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    config = os.path.join(work, "web.yml")
    with open(config, "w") as out:
        out.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    return config


class HeldRequest:
    """One connection: request line sent now, the headers' end at `finish_at`."""

    def __init__(self, port, tls_context):
        self.finish_at = time.monotonic() + HOLD_SECONDS
        self.error = None
        self.answer = b""
        self.sock = None
        try:
            raw = socket.create_connection(("127.0.0.1", port), timeout=10)
            self.sock = tls_context.wrap_socket(raw) if tls_context else raw
            self.sock.sendall(b"GET /-/healthy HTTP/1.0\r\n")
        except OSError as err:  # refused before the listener exists: not counted
            self.error = err

    def finish(self):
        try:
            self.sock.sendall(b"Host: 127.0.0.1\r\n\r\n")
            while len(self.answer) < 64:
                chunk = self.sock.recv(4096)
                if not chunk:
                    break
                self.answer += chunk
        except OSError as err:
            self.error = err
        finally:
            self.sock.close()

    def answered(self):
        return self.answer.startswith(b"HTTP/1.1 200 ")


def ready(port, tls_context):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as raw:
            sock = tls_context.wrap_socket(raw) if tls_context else raw
            sock.sendall(b"GET /-/ready HTTP/1.0\r\n\r\n")
            return sock.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def run(name, extra_args, tls_context):
    port = free_port()
    log_path = os.path.join(work, name + ".log")
    with open(log_path, "w") as log:
        exporter = subprocess.Popen([binary, f"--web.listen-address=127.0.0.1:{port}"] +
                                    extra_args, stdout=log, stderr=subprocess.STDOUT)
    held, pending = [], []
    ready_since = None
    deadline = time.monotonic() + START_DEADLINE_SECONDS
    try:
        while time.monotonic() < deadline and exporter.poll() is None:
            now = time.monotonic()
            if ready_since is None and ready(port, tls_context):
                ready_since = now
            if ready_since is not None and now - ready_since > HOLD_SECONDS and not pending:
                break
            if ready_since is None or now - ready_since <= HOLD_SECONDS:
                request = HeldRequest(port, tls_context)
                if request.sock is not None:
                    held.append(request)
                    pending.append(request)
            while pending and pending[0].finish_at <= time.monotonic():
                pending.pop(0).finish()
            time.sleep(OPEN_EVERY_SECONDS)
        check(f"{name}: the exporter became ready", ready_since is not None,
              open(log_path).read()[-2000:])
        unanswered = [r for r in held if not r.answered()]
        check(f"{name}: every request held through the start-up got 200 "
              f"({len(held)} held)", held and not unanswered,
              f"{len(unanswered)} of {len(held)} without one; first: "
              f"{unanswered[0].error or unanswered[0].answer!r}" if unanswered else "none held")
    finally:
        for request in pending:
            request.sock.close()
        exporter.terminate()
        try:
            exporter.wait(timeout=30)
        except subprocess.TimeoutExpired:
            exporter.kill()
            exporter.wait()


try:
    run("http", [], None)
    client = ssl.create_default_context()
    client.check_hostname = False
    client.verify_mode = ssl.CERT_NONE
    run("tls", [f"--web.config.file={make_certificate()}"], client)
finally:
    shutil.rmtree(work, ignore_errors=True)

print(f"{len(failures)} failed" if failures else "all checks passed")
sys.exit(1 if failures else 0)
