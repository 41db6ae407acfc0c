#!/usr/bin/env python3
"""Starves the exporter's HTTP front with silent and slowloris connections
and measures what a fresh client sees.

Starts the exporter on a loopback port, then:
  1. baseline: fresh requests to /-/healthy and /metrics, one at a time;
  2. attack: holds --silent connections that never send a byte and
     --slowloris connections that send one header byte per second (each
     reopened when the server closes it), while a fresh client keeps
     asking /-/healthy and /metrics; samples the exporter's RSS and threads;
  3. recovery: drops the attackers, measures how long until a fresh
     request answers quickly again, then fresh requests as in 1.
Prints one table. Loopback only; bounded in connections and time.

With --assert, the figures are then checked against bounds loose enough for
a busy machine and a sanitizer build (each has its flag): /-/healthy p99 in
every phase at most --max-health-p99 (1 s), failed requests in every phase
at most --max-failed (0), threads at most --max-threads (300: the workers
are bounded), recovery at most --max-recovery (10 s), the exporter still
running and answering /-/healthy and /metrics at the end, and exiting 0 on
SIGTERM. One line per check, then "N passed, M failed"; the exit status is 1
when a check failed. make test runs a short version with --assert; make
stress runs the long one without: it only prints the table.

With --own-netns (as root) the whole run happens in a network namespace the
script creates (its own loopback, deleted at the end, also on failure) with
net.core.somaxconn and net.ipv4.tcp_max_syn_backlog raised to 16384 there: a
listening socket's queue holds at most somaxconn connections (4096 by
default), and more silent connections than that leave fresh clients
unanswered (see docs/security.md, "Hostile clients"). make stress runs 10,000
silent connections that way.
Usage: web_stress.py BINARY [--seconds N] [--silent N] [--slowloris N] [--own-netns] [--assert]
"""
import argparse
import os
import selectors
import socket
import subprocess
import sys
import threading
import time

from stress_common import (PROBE_TIMEOUT, Checks, Exporter, fetch, ms, percentile,
                           process_figures, raise_open_files)

class Prober(threading.Thread):
    """A fresh client asking both paths in turn until stopped."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port = port
        self.stop = threading.Event()
        self.results = {"/-/healthy": [], "/metrics": []}
        self.failures = {"/-/healthy": 0, "/metrics": 0}

    def run(self):
        while not self.stop.is_set():
            for path in self.results:
                took = fetch(self.port, path)
                if took is None:
                    self.failures[path] += 1
                    took = PROBE_TIMEOUT
                self.results[path].append(took)
            self.stop.wait(0.05)


class Attackers(threading.Thread):
    """Silent and slowloris connections, reopened when the server drops them."""

    def __init__(self, port, silent, slowloris):
        super().__init__(daemon=True)
        self.port, self.silent, self.slowloris = port, silent, slowloris
        self.stop = threading.Event()
        self.sel = selectors.DefaultSelector()
        self.reopened = 0
        self.open_failures = 0

    def open(self, kind):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect_ex(("127.0.0.1", self.port))
        except OSError:
            self.open_failures += 1
            s.close()
            return
        self.sel.register(s, selectors.EVENT_READ, kind)

    def run(self):
        for _ in range(self.silent):
            self.open("silent")
        for _ in range(self.slowloris):
            self.open("slow")
        header = b"GET /-/healthy HTTP/1.1\r\nX-Slow: " + b"a" * 1000000
        sent = 0
        next_byte = time.monotonic()
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.1):
                s = key.fileobj
                try:
                    gone = s.recv(4096) == b""
                except BlockingIOError:
                    gone = False
                except OSError:
                    gone = True
                if gone:
                    self.sel.unregister(s)
                    s.close()
                    self.reopened += 1
                    self.open(key.data)
            if time.monotonic() >= next_byte:
                next_byte += 1.0
                for key in list(self.sel.get_map().values()):
                    if key.data == "slow":
                        try:
                            key.fileobj.send(header[sent : sent + 1])
                        except OSError:
                            pass
                sent += 1
        for key in list(self.sel.get_map().values()):
            key.fileobj.close()


def sequential(port, count):
    out = {"/-/healthy": [], "/metrics": []}
    failures = {"/-/healthy": 0, "/metrics": 0}
    for _ in range(count):
        for path in out:
            took = fetch(port, path)
            if took is None:
                failures[path] += 1
                took = PROBE_TIMEOUT
            out[path].append(took)
    return out, failures


# The listen queues of the namespace --own-netns creates.
OWN_NETNS_QUEUE = 16384


def run_in_own_netns():
    """Runs this script again, without --own-netns, in a network namespace of
    its own; deletes the namespace whatever happens. Returns its exit status."""
    name = f"netif-rx-stress-{os.getpid()}"
    argv = [a for a in sys.argv[1:] if a != "--own-netns"]
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "-n", name, "link", "set", "lo", "up"], check=True)
        subprocess.run(["ip", "netns", "exec", name, "sysctl", "-q", "-w",
                        f"net.core.somaxconn={OWN_NETNS_QUEUE}",
                        f"net.ipv4.tcp_max_syn_backlog={OWN_NETNS_QUEUE}"], check=True)
        return subprocess.run(["ip", "netns", "exec", name, sys.executable, __file__, *argv],
                              timeout=900).returncode
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def main():
    args = parse_args()
    if args.own_netns:
        sys.exit(run_in_own_netns())
    raise_open_files(args.silent + args.slowloris + 256)
    with Exporter(args.binary, args.exporter_arg) as exporter:
        rows = run_phases(args, exporter.port, exporter.pid)
        rows["end"] = end_state(exporter)
    rows["exit_status"] = exporter.exit_status
    print_table(args, rows)
    if args.check:
        check_figures(args, rows)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--silent", type=int, default=1000)
    parser.add_argument("--slowloris", type=int, default=100)
    parser.add_argument("--exporter-arg", action="append", default=[])
    parser.add_argument("--own-netns", action="store_true",
                        help="run in a network namespace of its own with larger listen queues")
    parser.add_argument("--assert", dest="check", action="store_true",
                        help="check the figures against the bounds below")
    parser.add_argument("--max-health-p99", type=float, default=1.0, metavar="SECONDS")
    parser.add_argument("--max-failed", type=int, default=0, metavar="REQUESTS")
    parser.add_argument("--max-threads", type=int, default=300)
    parser.add_argument("--max-recovery", type=float, default=10.0, metavar="SECONDS")
    args = parser.parse_args()
    args.silent = min(args.silent, 10000)
    args.slowloris = min(args.slowloris, 1000)
    args.seconds = min(args.seconds, 600)
    return args


def end_state(exporter):
    """Whether the exporter still runs and answers each path, after the phases."""
    return {"running": exporter.running(),
            "/-/healthy": fetch(exporter.port, "/-/healthy") is not None,
            "/metrics": fetch(exporter.port, "/metrics") is not None}


def run_phases(args, port, pid):
    rows = {}
    base, base_failures = sequential(port, 50)
    rows["baseline"] = (base, base_failures, *process_figures(pid))

    attackers = Attackers(port, args.silent, args.slowloris)
    prober = Prober(port)
    attackers.start()
    time.sleep(1.0)  # every connection opened
    prober.start()
    peak_rss = peak_threads = 0
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        rss, threads = process_figures(pid)
        peak_rss, peak_threads = max(peak_rss, rss), max(peak_threads, threads)
        time.sleep(0.5)
    prober.stop.set()
    prober.join()
    held = len(attackers.sel.get_map())
    rows["attack"] = (prober.results, prober.failures, peak_rss, peak_threads)
    attackers.stop.set()
    attackers.join()
    rows["attack_info"] = (held, attackers.reopened, attackers.open_failures)

    start = time.monotonic()
    while True:
        took = fetch(port, "/-/healthy", PROBE_TIMEOUT)
        if (took is not None and took < 0.1) or time.monotonic() - start > 60:
            break
    rows["recovery_s"] = time.monotonic() - start
    after, after_failures = sequential(port, 50)
    rows["after"] = (after, after_failures, *process_figures(pid))
    return rows


def print_table(args, rows):
    held, reopened, open_failures = rows["attack_info"]
    print(f"web_stress: {args.silent} silent + {args.slowloris} slowloris (1 byte/s) "
          f"connections for {args.seconds:.0f} s; {held} held at the end, "
          f"{reopened} reopened after the server closed them, {open_failures} failed to open")
    print(f"| phase | path | requests | failed | p50 ms | p99 ms | max ms | RSS MiB | threads |")
    print(f"|---|---|---|---|---|---|---|---|---|")
    for phase in ("baseline", "attack", "after"):
        results, failures, rss_kib, threads = rows[phase]
        for path, values in results.items():
            print(f"| {phase} | {path} | {len(values)} | {failures[path]} | "
                  f"{ms(percentile(values, 0.5))} | {ms(percentile(values, 0.99))} | "
                  f"{ms(max(values) if values else float('nan'))} | "
                  f"{rss_kib / 1024:.1f} | {threads} |")
    print(f"recovery: a fresh /-/healthy under 100 ms {rows['recovery_s']:.2f} s "
          f"after the attackers left")
    print("(attack row: RSS and threads are the peaks sampled every 0.5 s; failed requests "
          f"count as {PROBE_TIMEOUT:.0f} s)")


def check_figures(args, rows):
    checks = Checks("web_stress")
    for phase in ("baseline", "attack", "after"):
        results, failures, _, threads = rows[phase]
        checks.seconds_at_most(f"{phase} /-/healthy p99", percentile(results["/-/healthy"], 0.99),
                               args.max_health_p99, "--max-health-p99")
        checks.count_at_most(f"{phase} failed requests", sum(failures.values()), args.max_failed,
                             "--max-failed")
        checks.count_at_most(f"{phase} threads", threads, args.max_threads, "--max-threads")
    checks.seconds_at_most("recovery", rows["recovery_s"], args.max_recovery, "--max-recovery")
    end = rows["end"]
    checks.expect(end["running"], "the exporter still runs at the end")
    for path in ("/-/healthy", "/metrics"):
        checks.expect(end[path], f"the exporter answers {path} at the end")
    checks.expect(rows["exit_status"] == 0,
                  f"the exporter exits 0 on SIGTERM (exit status {rows['exit_status']})")
    checks.finish()


if __name__ == "__main__":
    main()
