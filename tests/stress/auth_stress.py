#!/usr/bin/env python3
"""Basic auth under random credentials: what an authorised scraper sees.

Starts the exporter with basic_auth_users (bcrypt cost 12 for the scraper, a
user with a cheap hash, cost 5) on a loopback port, then:
  1. refusal times on a quiet server: a known user's wrong password (both
     costs) and an unknown user, median of several;
  2. attack: --clients threads send random credentials (unknown users and
     known users with wrong passwords) for --seconds, while the scraper asks
     /metrics with the right password every 50 ms; the exporter's CPU use is
     sampled every second (bcrypt runs one at a time: at most one core);
  3. the web configuration file is rewritten (same content): the next
     authorised scrape verifies again (the cache was emptied), later ones not.
Prints one table. Loopback only; bounded in clients and time.
Usage: auth_stress.py BINARY [--seconds N] [--clients N]
"""
import argparse
import os
import random
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time

from stress_common import Exporter, cpu_seconds, fetch, ms, percentile, process_figures

SCRAPER = ("scraper", "correct horse battery staple")
CHEAP = ("cheap", "cheap password")


def bcrypt(password, cost):
    if shutil.which("htpasswd") is None:
        sys.exit("auth_stress: htpasswd is missing (apache2-utils; scripts/install-deps.sh)")
    out = subprocess.run(["htpasswd", "-nbBC", str(cost), "x", password], check=True,
                         capture_output=True, text=True).stdout
    return out.strip().split(":", 1)[1]


def random_text(n):
    return "".join(random.choices(string.ascii_letters + string.digits, k=n))


def refusal_ms(port, credentials, times):
    values = []
    for _ in range(times):
        took = fetch(port, "/metrics", 30, credentials, want=b"HTTP/1.1 401")
        if took is not None:
            values.append(took)
    return statistics.median(values) * 1000 if values else float("nan")


class RandomCredentials(threading.Thread):
    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop, self.sent = port, stop, 0

    def run(self):
        while not self.stop.is_set():
            user = random.choice([random_text(8), SCRAPER[0], CHEAP[0]])
            fetch(self.port, "/metrics", 60, (user, random_text(12)), want=b"HTTP/1.1 401")
            self.sent += 1


def attack(port, pid, args):
    stop = threading.Event()
    clients = [RandomCredentials(port, stop) for _ in range(args.clients)]
    for client in clients:
        client.start()
    scrapes, failures, cpu_peak = [], 0, 0.0
    cpu_start = cpu_last = cpu_seconds(pid)
    start = last = time.monotonic()
    peak_rss = peak_threads = 0
    while time.monotonic() - start < args.seconds:
        took = fetch(port, "/metrics", 5, SCRAPER)
        if took is None:
            failures += 1
            took = 5.0
        scrapes.append(took)
        time.sleep(0.05)
        now = time.monotonic()
        if now - last >= 1.0:
            cpu_now = cpu_seconds(pid)
            cpu_peak = max(cpu_peak, (cpu_now - cpu_last) / (now - last))
            cpu_last, last = cpu_now, now
            rss, threads = process_figures(pid)
            peak_rss, peak_threads = max(peak_rss, rss), max(peak_threads, threads)
    cpu_mean = (cpu_seconds(pid) - cpu_start) / (time.monotonic() - start)
    stop.set()
    # Each client finishes the request it has in the bcrypt queue.
    deadline = time.monotonic() + 90
    for client in clients:
        client.join(max(0.1, deadline - time.monotonic()))
    return {"scrapes": scrapes, "failures": failures, "cpu_mean": cpu_mean,
            "cpu_peak": cpu_peak, "refused": sum(c.sent for c in clients),
            "rss_mib": peak_rss / 1024, "threads": peak_threads}


def after_change(port, web_yml):
    with open(web_yml) as f:
        text = f.read()
    time.sleep(0.01)
    with open(web_yml + ".new", "w") as f:
        f.write(text)
    os.replace(web_yml + ".new", web_yml)
    first = fetch(port, "/metrics", 60, SCRAPER)
    later = [fetch(port, "/metrics", 5, SCRAPER) for _ in range(20)]
    return first, later


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=64)
    args = parser.parse_args()
    args.seconds = min(args.seconds, 600)
    args.clients = min(args.clients, 256)

    work = tempfile.mkdtemp(prefix="auth_stress.")
    try:
        web_yml = os.path.join(work, "web.yml")
        with open(web_yml, "w") as f:
            f.write("basic_auth_users:\n"
                    f"  {SCRAPER[0]}: '{bcrypt(SCRAPER[1], 12)}'\n"
                    f"  {CHEAP[0]}: '{bcrypt(CHEAP[1], 5)}'\n")
        with Exporter(args.binary, [f"--web.config.file={web_yml}"], SCRAPER) as exporter:
            port = exporter.port
            quiet = {
                "known user (cost 12), wrong password": refusal_ms(port, (SCRAPER[0], "x"), 7),
                "known user (cost 5), wrong password": refusal_ms(port, (CHEAP[0], "x"), 7),
                "unknown user": refusal_ms(port, ("nobody", "x"), 7),
            }
            fetch(port, "/metrics", 60, SCRAPER)  # verified once, then remembered
            cached = [fetch(port, "/metrics", 5, SCRAPER) for _ in range(20)]
            figures = attack(port, exporter.pid, args)
            first, later = after_change(port, web_yml)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_table(args, quiet, cached, figures, first, later)


def print_table(args, quiet, cached, figures, first, later):
    scrapes = figures["scrapes"]
    ok = lambda values: [v for v in values if v is not None]  # noqa: E731
    print(f"auth_stress: {args.clients} clients with random basic auth credentials for "
          f"{args.seconds:.0f} s ({figures['refused']} refused); bcrypt cost 12")
    print("| figure | value |")
    print("|---|---|")
    for name, value in quiet.items():
        print(f"| refusal on a quiet server, {name} (median ms) | {value:.1f} |")
    print(f"| authorised scrape, cached, quiet server: p50 / p99 ms | "
          f"{ms(percentile(ok(cached), 0.5))} / {ms(percentile(ok(cached), 0.99))} |")
    print(f"| authorised scrape under attack: requests / failed | {len(scrapes)} / "
          f"{figures['failures']} |")
    print(f"| authorised scrape under attack: p50 / p99 / max ms | "
          f"{ms(percentile(scrapes, 0.5))} / {ms(percentile(scrapes, 0.99))} / "
          f"{ms(max(scrapes))} |")
    print(f"| exporter CPU under attack: mean / peak 1 s (cores) | "
          f"{figures['cpu_mean']:.2f} / {figures['cpu_peak']:.2f} |")
    print(f"| exporter RSS MiB / threads under attack (peak) | {figures['rss_mib']:.1f} / "
          f"{figures['threads']} |")
    first_text = "failed" if first is None else ms(first)
    print(f"| after the web configuration changed: first authorised scrape ms "
          f"(bcrypt again) | {first_text} |")
    print(f"| after the change: next 20 scrapes p50 ms (cached again) | "
          f"{ms(percentile(ok(later), 0.5))} |")


if __name__ == "__main__":
    main()
