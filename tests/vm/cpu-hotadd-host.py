#!/usr/bin/env python3
"""The host's side of the CPU hot-add guest test (run-cpu-hotadd.sh).

Connects to the guest's second serial port (a unix socket of qemu) and to
qemu's QMP socket, and serves the guest's requests, one line each:

  ADD    hot-add the first CPU qemu offers (query-hotpluggable-cpus: the
         entry without a qom-path) with device_add, its type and its
         socket/core/thread ids as qemu gives them; answers
         "ADDED driver=... socket-id=... ..." or "ADDED error=..."
  DEL    hot-unplug that CPU: device_del, which asks the guest to eject it
         (ACPI); waits until query-hotpluggable-cpus offers its slot again,
         which qemu does once the guest's kernel ejected it; answers
         "DELETED events=... seconds=..." (the QMP events seen so far) or
         "DELETED error=..."
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
        self.events = []
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
                print(f"host: QMP event {answer['event']} {json.dumps(answer.get('data', {}))}",
                      flush=True)
                self.events.append(answer)
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


def hot_unplug(qmp, added, seconds):
    """device_del of the CPU hot_add added (`added`: its fields); done when
    query-hotpluggable-cpus offers its slot again (no qom-path), which qemu
    does once the guest ejected it, within `seconds`."""
    qmp.execute("device_del", id="hotadded-cpu")
    print("host: device_del hotadded-cpu", flush=True)
    props = {k: v for k, v in added.items() if k != "driver"}
    deadline = min(qmp.deadline, time.monotonic() + seconds)
    while True:
        cpus = qmp.execute("query-hotpluggable-cpus")
        slot = [c for c in cpus if c["props"] == props]
        if slot and "qom-path" not in slot[0]:
            print(f"host: query-hotpluggable-cpus: {json.dumps(cpus)}", flush=True)
            break
        if time.monotonic() > deadline:
            raise OSError(f"the CPU's slot still taken {seconds:.0f} s after device_del: "
                          "the guest did not eject it")
        time.sleep(0.2)
    events = [e["event"] for e in qmp.events if e["event"] in ("DEVICE_DELETED", "ACPI_DEVICE_OST")]
    return {"events": ",".join(events) or "none"}


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
    added = {}
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
            if words[0] not in ("ADD", "DEL"):
                continue
            started = time.monotonic()
            try:
                if words[0] == "ADD":
                    fields = hot_add(qmp)
                    added = dict(fields)
                else:
                    fields = hot_unplug(qmp, added, 40)
            except (OSError, ValueError) as e:
                fields = {"error": str(e).replace(" ", "_")}
            fields["seconds"] = f"{time.monotonic() - started:.2f}"
            answer = "ADDED " if words[0] == "ADD" else "DELETED "
            line = answer + " ".join(f"{k}={v}" for k, v in fields.items())
            print(f"host: {line}", flush=True)
            ctl.sendall(line.encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
