#!/usr/bin/env python3
"""The host's side of the virtio-net GRO guest test (run-virtio-gro.sh).

Runs inside the test's network namespace (ip netns exec), where the guest's
taps live. Connects to the guest's second serial port (a unix socket of
qemu) and serves its requests, one line each:

  SEND tcp IP PORT[,PORT...] BYTES        one connection per port, BYTES each
  SEND udp IP PORT[,PORT...] COUNT SIZE   COUNT datagrams of SIZE bytes per port
  SEND warm IP PORT COUNT                 one datagram from each of COUNT sockets
                                          (COUNT flows: the tap spreads them over
                                          its queues)
  TOTAL                                   the last SEND's totals, once the guest
                                          saw its traffic end
  DONE                                    the guest is done

and answers each SEND and TOTAL with one line "SENT key=value ...", and a
REPEAT with the last answer again (one the guest read cut short): what
was sent, from this namespace's own counters (/proc/net/snmp: Tcp OutSegs
and RetransSegs count the segments of an offload send, the tap's tx_packets
only its skbs) and the L3 bytes that makes on the wire (a header per
segment).

  virtio-gro-host.py SOCKET SECONDS IP=TAP...

Everything is bounded: SECONDS for the whole run, and each connection's and
read's own timeout.
"""

import socket
import struct
import subprocess
import sys
import threading
import time

IPV4_HEADER = 20
TCP_HEADER = 20
UDP_HEADER = 8
TCP_TIMESTAMPS = 12  # the option's 10 bytes, padded
SYN_OPTIONS_BEYOND_TIMESTAMPS = 8  # MSS, SACK permitted, window scale (padded)
TCPI_OPT_TIMESTAMPS = 1
TCP_CLOSE = 7
# struct tcp_info (linux/tcp.h): offsets of tcpi_segs_out and tcpi_bytes_sent.
TCP_INFO_SIZE = 232
TCPI_SEGS_OUT = 136
TCPI_BYTES_SENT = 200


def snmp(proto):
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith(proto + ":")]
    return dict(zip(rows[0][1:], (int(v) for v in rows[1][1:])))


def tap_counter(tap, name):
    with open(f"/sys/class/net/{tap}/statistics/{name}") as f:
        return int(f.read())


def tap_feature(tap, feature):
    out = subprocess.run(["ethtool", "-k", tap], capture_output=True, text=True, timeout=10).stdout
    for line in out.splitlines():
        if line.startswith(feature + ":"):
            return line.split(":", 1)[1].split()[0]
    return "?"


def tcp_info(s):
    """state, options, segments sent (retransmits, SYN and FIN included),
    payload bytes sent (retransmits included) of a TCP socket."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_SIZE)
    segs_out = struct.unpack_from("I", info, TCPI_SEGS_OUT)[0]
    bytes_sent = struct.unpack_from("Q", info, TCPI_BYTES_SENT)[0]
    return info[0], info[5], segs_out, bytes_sent


def send_tcp(ip, ports, size, deadline):
    """One connection per port, size bytes each, in parallel; each waits
    until the guest acknowledged its FIN (TCP_CLOSE), so that its counts are
    final. Returns errors and, per connection, (segments, payload bytes,
    timestamps negotiated)."""
    chunk = b"\x5a" * 65536
    results = {}

    def one(port):
        try:
            s = socket.create_connection((ip, port), timeout=max(1.0, deadline - time.monotonic()))
            s.settimeout(max(1.0, deadline - time.monotonic()))
            left = size
            while left > 0:
                left -= s.send(chunk[: min(left, len(chunk))])
            s.shutdown(socket.SHUT_WR)
            # The guest's nc closes once it has read everything; the
            # connection is over once it acknowledged this end's FIN.
            while s.recv(4096):
                pass
            while True:
                state, options, segs, sent = tcp_info(s)
                if state == TCP_CLOSE:
                    break
                if time.monotonic() > deadline:
                    raise OSError(f"still in TCP state {state} at the deadline")
                time.sleep(0.05)
            s.close()
            results[port] = (None, segs, sent, bool(options & TCPI_OPT_TIMESTAMPS))
        except OSError as e:
            results[port] = (f"port {port}: {e}", 0, 0, False)

    threads = [threading.Thread(target=one, args=(p,)) for p in ports]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    errors = [r[0] for r in results.values() if r[0]]
    if len(results) < len(ports):
        errors.append("connections still running at the deadline")
    return errors, list(results.values())


def send_udp(ip, ports, count, size, deadline):
    payload = b"\xa5" * size
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = 0
    errors = []
    try:
        for i in range(count):
            for port in ports:
                s.sendto(payload, (ip, port))
                sent += 1
            # Paced: the guest under emulation drains its rings slowly.
            if i % 4 == 3:
                time.sleep(0.002)
            if time.monotonic() > deadline:
                errors.append("deadline")
                break
    except OSError as e:
        errors.append(str(e))
    s.close()
    return sent, errors


def send_warm(ip, port, count):
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    try:
        for s in sockets:
            s.sendto(b"warm", (ip, port))
            time.sleep(0.005)
    finally:
        for s in sockets:
            s.close()
    return count


def main():
    path, seconds = sys.argv[1], float(sys.argv[2])
    taps = dict(arg.split("=", 1) for arg in sys.argv[3:])
    deadline = time.monotonic() + seconds
    ctl = None
    while ctl is None:
        try:
            ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            ctl.connect(path)
        except OSError:
            ctl = None
            if time.monotonic() > deadline:
                print("host: no guest control socket", file=sys.stderr)
                return 1
            time.sleep(0.2)
    buffer = b""
    phase = None
    last_line = ""
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
                print("host: the guest is done")
                return 0
            if words[0] == "REPEAT" and last_line:
                # The guest read the last answer cut short: the same again.
                print(f"host: REPEAT -> {last_line}", flush=True)
                ctl.sendall(last_line.encode() + b"\n")
                continue
            if words[0] == "TOTAL" and phase:
                # The phase's totals, now that the guest saw the traffic
                # end: segments the namespace's TCP sent after its sockets'
                # last look (a reset to a late retransmit) included.
                fields = dict(final=1, **phase["fields"])
                started = phase["started"]
                errors = phase["errors"]
                if phase["proto"] == "tcp":
                    tcp_now = snmp("Tcp")
                    delta = {k: tcp_now[k] - phase["tcp_before"][k] for k in ("OutSegs", "RetransSegs", "OutRsts")}
                    segs = delta["OutSegs"] + delta["RetransSegs"]
                    fields.update(
                        segs=segs,
                        retrans_segs=delta["RetransSegs"],
                        rsts=delta["OutRsts"],
                        # Resets carry no timestamps.
                        l3_bytes=phase["payload"] + phase["header"] * segs
                        + SYN_OPTIONS_BEYOND_TIMESTAMPS * fields["conns"]
                        - (phase["header"] - IPV4_HEADER - TCP_HEADER) * delta["OutRsts"],
                    )
                tap = phase["tap"]
                tx_before, dropped_before = phase["tap_before"]
            elif words[0] != "SEND" or len(words) < 5:
                continue
            else:
                proto, ip, ports = words[1], words[2], [int(p) for p in words[3].split(",")]
                tap = taps.get(ip, "")
                fields = {}
                tcp_before, udp_before = snmp("Tcp"), snmp("Udp")
                tx_before = tap_counter(tap, "tx_packets") if tap else 0
                dropped_before = tap_counter(tap, "tx_dropped") if tap else 0
                started = time.monotonic()
                phase_deadline = min(deadline, started + 120)
                phase = dict(proto=proto, tap=tap, tcp_before=tcp_before, tap_before=(tx_before, dropped_before),
                             started=started, payload=0, header=0)
                if proto == "tcp":
                    size = int(words[4])
                    errors, connections = send_tcp(ip, ports, size, phase_deadline)
                    segs = sum(c[1] for c in connections)
                    payload = sum(c[2] for c in connections)
                    timestamps = bool(connections) and all(c[3] for c in connections)
                    header = IPV4_HEADER + TCP_HEADER + (TCP_TIMESTAMPS if timestamps else 0)
                    phase.update(payload=payload, header=header)
                    fields.update(
                        conns=len(ports),
                        # The sockets' own count (tcpi_segs_out, retransmits included).
                        socket_segs=segs,
                        payload=payload,
                        timestamps=int(timestamps),
                    )
                elif proto == "warm":
                    fields.update(datagrams=send_warm(ip, ports[0], int(words[4])))
                    errors = []
                else:
                    count, size = int(words[4]), int(words[5])
                    sent, errors = send_udp(ip, ports, count, size, phase_deadline)
                    fields.update(
                        datagrams=sent,
                        out_datagrams=snmp("Udp")["OutDatagrams"] - udp_before["OutDatagrams"],
                        l3_bytes=sent * (IPV4_HEADER + UDP_HEADER + size),
                    )
                phase.update(fields=dict(fields), errors=errors)
            if tap:
                fields.update(
                    tap=tap,
                    tap_tx_packets=tap_counter(tap, "tx_packets") - tx_before,
                    tap_tx_dropped=tap_counter(tap, "tx_dropped") - dropped_before,
                    tap_tso=tap_feature(tap, "tcp-segmentation-offload"),
                )
            fields["seconds"] = f"{time.monotonic() - started:.1f}"
            if errors:
                fields["error"] = "/".join(e.replace(" ", "_") for e in errors)
            line = "SENT " + " ".join(f"{k}={v}" for k, v in fields.items())
            print(f"host: {' '.join(words)} -> {line}", flush=True)
            ctl.sendall(line.encode() + b"\n")
            last_line = line


if __name__ == "__main__":
    sys.exit(main())
