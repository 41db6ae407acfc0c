"""Plays systemd's side of the notify protocol for a test: binds a unix
datagram socket and writes every message it receives as one line
("<seconds> <ready status> <fields separated by |>") to stdout. On each
message it also asks the exporter's /-/ready, so that the test can tell
what the exporter had done when it said READY=1.
Usage: notify_listener.py SOCKET_PATH PORT SECONDS"""
import os
import socket
import sys
import time
import urllib.request

path, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
os.chmod(path, 0o777)  # an exporter started as another user can send too
start = time.monotonic()
print("listening", flush=True)
while time.monotonic() - start < seconds:
    sock.settimeout(max(0.01, seconds - (time.monotonic() - start)))
    try:
        message = sock.recv(4096).decode()
    except socket.timeout:
        break
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2) as r:
            ready = r.status
    except urllib.error.HTTPError as e:
        ready = e.code
    except OSError:
        ready = 0
    fields = "|".join(line for line in message.split("\n") if line)
    print(f"{time.monotonic() - start:.3f} {ready} {fields}", flush=True)
