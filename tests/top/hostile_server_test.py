#!/usr/bin/env python3
"""`top --from` against hostile and broken servers on loopback.

Each case starts `netif_rx_exporter top --once --from URL` against a small
server in this process that misbehaves in one way (chunk sizes that wrap,
endless headers, an endless or huge body, one byte at a time, control
characters), and asserts that top exits 1 with exactly one line on stderr
naming the problem, within its timeout, and with a bounded peak RSS (at most
a fixed margin over a run against a well-behaved server). Then https with a
CA file and basic auth, against a TLS server with a certificate made here.
Prints one line of figures per case.
Usage: hostile_server_test.py EXPORTER_BINARY
"""
import base64
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

BINARY = sys.argv[1]
TIMEOUT_S = 2           # --from.timeout
MAX_BODY = 1 << 20      # --from.max-body (1 MiB)
RSS_MARGIN_KIB = 64 * 1024
SEND_LIMIT_S = 12       # no server loop runs longer than this
SEND_LIMIT_BYTES = 256 << 20
USER, PASSWORD = "prom", "s3cr3t pass"

EVIL_DEVICE = b"ev\\\\il\x1b[2J\x07\x7f\xc2\x9b"  # as written in the page: ev\\il...
served = [0]


def exposition():
    """A page whose counters grow with every request, so that top has rates."""
    served[0] += 1
    n = str(served[0] * 10).encode()
    return (b"# TYPE netif_rx_packets_total counter\n"
            b'netif_rx_packets_total{device="lo",cpu="0"} ' + n + b"\n"
            b'netif_rx_packets_total{device="' + EVIL_DEVICE + b'",cpu="0"} ' + n + b"\n"
            b"# TYPE netif_rx_bytes_total counter\n"
            b'netif_rx_bytes_total{device="lo",cpu="0"} ' + n + b"00\n"
            b'netif_rx_bytes_total{device="' + EVIL_DEVICE + b'",cpu="0"} ' + n + b"00\n")


def ok_response(body, extra=b""):
    return (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n" + extra +
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def stream(conn, first, chunk, pause=0.0):
    """Sends `first`, then `chunk` over and over, within the send limits."""
    conn.sendall(first)
    sent, start = len(first), time.monotonic()
    while sent < SEND_LIMIT_BYTES and time.monotonic() - start < SEND_LIMIT_S:
        conn.sendall(chunk)
        sent += len(chunk)
        if pause:
            time.sleep(pause)


def serve_case(conn, path):
    if path == "/good":
        conn.sendall(ok_response(exposition()))
    elif path == "/wrap":  # about 1 MB of chunk sizes that wrap size + 2 to 0
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                     b"fffffffffffffffe\r\n" * 55000)
    elif path == "/wrap-open":  # the same, and the connection left open
        stream(conn, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
               b"fffffffffffffffe\r\n" * 1000)
    elif path == "/endless-headers":
        stream(conn, b"HTTP/1.1 200 OK\r\n", b"X-Filler: " + b"a" * 1000 + b"\r\n")
    elif path == "/endless-body":
        stream(conn, b"HTTP/1.1 200 OK\r\n\r\n", b"x" * 65536)
    elif path == "/endless-chunks":
        stream(conn, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
               b"1000\r\n" + b"y" * 4096 + b"\r\n")
    elif path == "/huge-length":
        stream(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", b"z" * 65536)
    elif path == "/slow":  # a byte at a time, forever
        stream(conn, b"H", b"T", pause=0.2)
    elif path == "/evil-reason":
        conn.sendall(b"HTTP/1.1 500 \x1b[31mred\nX: y\r\nContent-Length: 0\r\n\r\n")
    elif path == "/auth":
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        headers = conn.recv_headers
        if f"authorization: {expected}".lower() in headers.lower():
            conn.sendall(ok_response(exposition()))
        else:
            conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")


class Conn:
    def __init__(self, sock):
        self.sock, self.recv_headers = sock, ""

    def sendall(self, data):
        self.sock.sendall(data)


def handle(sock):
    try:
        sock.settimeout(SEND_LIMIT_S)
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            piece = sock.recv(4096)
            if not piece:
                return
            data += piece
        text = data.decode("latin-1")
        conn = Conn(sock)
        conn.recv_headers = text
        serve_case(conn, text.split(" ")[1])
    except (OSError, ssl.SSLError):
        pass  # top went away, as it should
    finally:
        try:
            sock.close()
        except OSError:
            pass


def start_server(context=None):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)

    def loop():
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            if context is not None:
                try:
                    sock = context.wrap_socket(sock, server_side=True)
                except (OSError, ssl.SSLError):
                    sock.close()
                    continue
            threading.Thread(target=handle, args=(sock,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return listener, listener.getsockname()[1]


def run_top(url, *flags, env=None, output="text"):
    """Runs top once; returns (exit code, stdout, stderr, seconds, peak RSS in KiB)."""
    args = [BINARY, "top", "--once", "--duration=100ms", "--output=" + output,
            "--from=" + url, f"--from.timeout={TIMEOUT_S}s", f"--from.max-body={MAX_BODY}",
            *flags]
    full_env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", COLUMNS="100")
    full_env.update(env or {})
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env)
    out_chunks, err_chunks = [], []
    readers = [threading.Thread(target=lambda s=s, b=b: b.append(s.read()))
               for s, b in ((proc.stdout, out_chunks), (proc.stderr, err_chunks))]
    for reader in readers:
        reader.start()
    deadline = start + TIMEOUT_S * 2 + 20
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    elapsed = time.monotonic() - start
    for reader in readers:
        reader.join()
    code = os.waitstatus_to_exitcode(status)
    return code, out_chunks[0].decode("utf-8", "replace"), err_chunks[0].decode(
        "utf-8", "replace"), elapsed, usage.ru_maxrss


failures = []


def check(name, condition, detail):
    if not condition:
        failures.append(f"{name}: {detail}")


def hostile_case(port, path, expected, baseline_rss, max_seconds):
    code, out, err, seconds, rss = run_top(f"http://127.0.0.1:{port}{path}")
    print(f"case {path:17s} exit {code}  {seconds:5.2f} s  peak RSS {rss // 1024:4d} MiB  "
          f"stderr: {err.strip()[:110]}")
    check(path, code == 1, f"exit code {code}, stderr {err!r}")
    check(path, err.count("\n") == 1 and err.startswith("netif_rx_exporter: error: "),
          f"not one error line: {err!r}")
    check(path, expected in err, f"{expected!r} not in {err!r}")
    check(path, "\x1b" not in err and "\x1b" not in out, "raw escape in the output")
    check(path, seconds <= max_seconds, f"took {seconds:.2f} s, more than {max_seconds} s")
    check(path, rss <= baseline_rss + RSS_MARGIN_KIB,
          f"peak RSS {rss} KiB, more than {baseline_rss} + {RSS_MARGIN_KIB} KiB")


def good_case(port):
    code, out, err, seconds, rss = run_top(f"http://127.0.0.1:{port}/good")
    print(f"case /good (text)        exit {code}  {seconds:5.2f} s  peak RSS {rss // 1024:4d} MiB")
    check("/good", code == 0, f"exit {code}: {err!r}")
    check("/good", "\x1b" not in out and "\x07" not in out, f"raw control bytes: {out!r}")
    check("/good", "ev\\\\il\\x1b[2J\\x07\\x7f\\xc2\\x9b: " in out, f"device not escaped: {out!r}")
    code, out, err, _, _ = run_top(f"http://127.0.0.1:{port}/good", output="json")
    check("/good json", code == 0, f"exit {code}: {err!r}")
    check("/good json", '"device":"ev\\\\il\\u001b[2J\\u0007\\u007f\\u009b"' in out,
          f"device not escaped in JSON: {out!r}")
    import json
    try:
        json.loads(out)
    except ValueError as e:
        failures.append(f"/good json: not JSON: {e}")
    return rss


def make_certificates(directory):
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    ca_key, ca_crt = f"{directory}/ca.key", f"{directory}/ca.crt"
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", ca_key, "-out", ca_crt, "-days", "2", "-subj", "/CN=top test CA")
    key, csr, crt = f"{directory}/s.key", f"{directory}/s.csr", f"{directory}/s.crt"
    run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
        "-out", csr, "-subj", "/CN=localhost")
    with open(f"{directory}/ext", "w") as ext:
        ext.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial", "-out",
        crt, "-days", "2", "-extfile", f"{directory}/ext")
    other_key, other_crt = f"{directory}/o.key", f"{directory}/o.crt"
    run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", other_key, "-out", other_crt, "-days", "2", "-subj", "/CN=other CA")
    return ca_crt, crt, key, other_crt


def tls_cases(directory):
    ca_crt, crt, key, other_crt = make_certificates(directory)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(crt, key)
    listener, port = start_server(context)
    password_file = f"{directory}/password"
    with open(password_file, "w") as f:
        f.write(PASSWORD + "\n")
    cases = [
        ("https, CA file, password file", [f"--from.ca-file={ca_crt}", f"--from.user={USER}",
                                           f"--from.password-file={password_file}"], {}, 0, ""),
        ("https, CA file, password env", [f"--from.ca-file={ca_crt}", f"--from.user={USER}"],
         {"NETIF_RX_TOP_PASSWORD": PASSWORD}, 0, ""),
        ("https, wrong password", [f"--from.ca-file={ca_crt}", f"--from.user={USER}"],
         {"NETIF_RX_TOP_PASSWORD": "wrong"}, 1, "the server answered 401"),
        ("https, untrusted CA", [f"--from.ca-file={other_crt}"], {}, 1,
         "certificate is not trusted"),
        ("https, no password", [f"--from.ca-file={ca_crt}", f"--from.user={USER}"], {}, 2,
         "--from.user needs a password"),
    ]
    for name, flags, env, expected_code, expected_text in cases:
        env = {"NETIF_RX_TOP_PASSWORD": "", **env}
        code, out, err, seconds, _ = run_top(f"https://127.0.0.1:{port}/auth", *flags, env=env)
        print(f"case {name:30s} exit {code}  {seconds:5.2f} s  {err.strip()[:100]}")
        check(name, code == expected_code, f"exit {code}, stderr {err!r}")
        if expected_code == 0:
            check(name, "\nlo: 10 packets" in out, f"no table: {out!r}")
        else:
            check(name, expected_text in err and err.count("\n") == 1, f"stderr {err!r}")
    code, out, err, seconds, _ = run_top(f"https://localhost:{port}/auth",
                                         f"--from.ca-file={ca_crt}", f"--from.user={USER}",
                                         env={"NETIF_RX_TOP_PASSWORD": PASSWORD})
    print(f"case https by name               exit {code}  {seconds:5.2f} s")
    check("https by name", code == 0, f"exit {code}, stderr {err!r}")
    listener.close()


def main():
    listener, port = start_server()
    baseline = good_case(port)
    limit = TIMEOUT_S + 3  # ASan start-up included
    for path, expected in [
        ("/wrap", "exceeds the body limit (chunk size 'fffffffffffffffe')"),
        ("/wrap-open", "exceeds 1048576 bytes"),
        ("/endless-headers", "the headers exceed 65536 bytes"),
        ("/endless-body", "the body exceeds 1048576 bytes"),
        ("/endless-chunks", "the body exceeds 1048576 bytes"),
        ("/huge-length", "exceeds 1048576 bytes"),
        ("/slow", f"no complete answer within {TIMEOUT_S * 1000}ms"),
        ("/evil-reason", "the server answered 500 \\x1b[31mred"),
    ]:
        hostile_case(port, path, expected, baseline, limit)
    listener.close()
    with tempfile.TemporaryDirectory() as directory:
        tls_cases(directory)
    for failure in failures:
        print("FAIL", failure)
    print(f"top_hostile_server: {0 if failures else 1} passed, {1 if failures else 0} failed")
    return 1 if failures else 0


sys.exit(main())
