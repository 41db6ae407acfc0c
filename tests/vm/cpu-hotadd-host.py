#!/usr/bin/env python3
"""The host's side of the CPU hot-add guest test (run-cpu-hotadd.sh).

Connects to the guest's second serial port (a unix socket of qemu) and to
qemu's QMP socket, and serves the guest's requests, one line each:

  ADD    hot-add the first CPU qemu offers (query-hotpluggable-cpus: the
         entry without a qom-path) with device_add, its type and its
         socket/core/thread ids as qemu gives them; answers
         "ADDED driver=... socket-id=... ..." or "ADDED error=..."
  DONE   the guest is done

  cpu-hotadd-host.py CONTROL_SOCKET QMP_SOCKET SECONDS

Everything is bounded by SECONDS.
"""

import json
import socket
import sys
import time


def connect(path, deadline):
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


class Qmp:
    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = connect(path, deadline)
        self.buffer = b""
        self.message()  # the greeting
        self.execute("qmp_capabilities")

    def message(self):
        while b"\n" not in self.buffer:
            self.sock.settimeout(max(0.1, self.deadline - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                raise OSError("QMP closed")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            answer = self.message()
            if "event" in answer:
                print(f"host: QMP event {answer['event']}", flush=True)
                continue
            if "error" in answer:
                raise OSError(f"{command}: {answer['error'].get('desc', answer['error'])}")
            return answer.get("return")


def hot_add(qmp):
    cpus = qmp.execute("query-hotpluggable-cpus")
    print(f"host: query-hotpluggable-cpus: {json.dumps(cpus)}", flush=True)
    free = [c for c in cpus if "qom-path" not in c]
    if not free:
        raise OSError("no hotpluggable CPU left")
    # The lowest ids first (qemu lists them highest first).
    cpu = min(free, key=lambda c: sorted(c["props"].items()))
    props = dict(cpu["props"])
    qmp.execute("device_add", driver=cpu["type"], id="hotadded-cpu", **props)
    print(f"host: device_add {cpu['type']} {props}", flush=True)
    return {"driver": cpu["type"], **props}


def main():
    control_path, qmp_path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    deadline = time.monotonic() + seconds
    try:
        qmp = Qmp(qmp_path, deadline)
        ctl = connect(control_path, deadline)
    except OSError as e:
        print(f"host: cannot connect: {e}", file=sys.stderr)
        return 1
    buffer = b""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            print("host: deadline passed", file=sys.stderr)
            return 1
        ctl.settimeout(remaining)
        try:
            data = ctl.recv(4096)
        except socket.timeout:
            print("host: deadline passed waiting for the guest", file=sys.stderr)
            return 1
        if not data:
            print("host: the guest's control line closed", file=sys.stderr)
            return 1
        buffer += data
        while b"\n" in buffer:
            raw, buffer = buffer.split(b"\n", 1)
            words = raw.decode(errors="replace").strip().split()
            if not words:
                continue
            if words[0] == "DONE":
                print("host: the guest is done", flush=True)
                return 0
            if words[0] != "ADD":
                continue
            started = time.monotonic()
            try:
                fields = hot_add(qmp)
            except (OSError, ValueError) as e:
                fields = {"error": str(e).replace(" ", "_")}
            fields["seconds"] = f"{time.monotonic() - started:.2f}"
            line = "ADDED " + " ".join(f"{k}={v}" for k, v in fields.items())
            print(f"host: {line}", flush=True)
            ctl.sendall(line.encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
