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

With --assert, the figures are then checked: wrong credentials are always
refused (every refusal on the quiet server and every random credential
answered 401, none accepted), the right ones always accepted (no failed
authorised scrape, quiet, under attack or after the change), the authorised
scrape's p99, quiet and under attack, at most --max-scrape-p99 (1 s: loose
enough for a busy machine and a sanitizer build), and at the end the
exporter still running, accepting the scraper, refusing a client without
credentials, and exiting 0 on SIGTERM. --max-failed (0) loosens the counts
of failed scrapes and of random credentials neither refused nor accepted.
One line per check, then "N passed, M failed"; the exit status is 1 when a
check failed. make test runs a short version with --assert; make stress
runs the long one without: it only prints the table.
Usage: auth_stress.py BINARY [--seconds N] [--clients N] [--assert]
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

from stress_common import (Checks, Exporter, cpu_seconds, fetch, fetch_status, ms, percentile,
                           process_figures)

SCRAPER = ("scraper", "correct horse battery staple")
CHEAP = ("cheap", "cheap password")
QUIET_TRIES = 7  # refusals timed per kind on the quiet server


def bcrypt(password, cost):
    if shutil.which("htpasswd") is None:
        sys.exit("auth_stress: htpasswd is missing (apache2-utils; scripts/install-deps.sh)")
    out = subprocess.run(["htpasswd", "-nbBC", str(cost), "x", password], check=True,
                         capture_output=True, text=True).stdout
    return out.strip().split(":", 1)[1]


def random_text(n):
    return "".join(random.choices(string.ascii_letters + string.digits, k=n))


def refusals(port, credentials, times):
    """(median ms of the refusals, how many of `times` tries were refused)."""
    values = []
    for _ in range(times):
        took = fetch(port, "/metrics", 30, credentials, want=b"HTTP/1.1 401")
        if took is not None:
            values.append(took)
    median = statistics.median(values) * 1000 if values else float("nan")
    return median, len(values)


class RandomCredentials(threading.Thread):
    """Random credentials until stopped; counts the answers by status."""

    def __init__(self, port, stop):
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.refused = self.accepted = self.other = 0  # other: no answer, or another status

    def run(self):
        while not self.stop.is_set():
            user = random.choice([random_text(8), SCRAPER[0], CHEAP[0]])
            status = fetch_status(self.port, "/metrics", 60, (user, random_text(12)))
            if status == 401:
                self.refused += 1
            elif status == 200:
                self.accepted += 1
            else:
                self.other += 1


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
            "cpu_peak": cpu_peak, "refused": sum(c.refused for c in clients),
            "accepted": sum(c.accepted for c in clients),
            "other": sum(c.other for c in clients),
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
    args = parse_args()
    work = tempfile.mkdtemp(prefix="auth_stress.")
    try:
        web_yml = os.path.join(work, "web.yml")
        with open(web_yml, "w") as f:
            f.write("basic_auth_users:\n"
                    f"  {SCRAPER[0]}: '{bcrypt(SCRAPER[1], 12)}'\n"
                    f"  {CHEAP[0]}: '{bcrypt(CHEAP[1], 5)}'\n")
        with Exporter(args.binary, [f"--web.config.file={web_yml}"], SCRAPER) as exporter:
            figures = run_phases(args, exporter, web_yml)
            figures["end"] = end_state(exporter)
        figures["exit_status"] = exporter.exit_status
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_table(args, figures)
    if args.check:
        check_figures(args, figures)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--assert", dest="check", action="store_true",
                        help="check the figures (see the module's docstring)")
    parser.add_argument("--max-scrape-p99", type=float, default=1.0, metavar="SECONDS")
    parser.add_argument("--max-failed", type=int, default=0, metavar="REQUESTS")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 600)
    args.clients = min(args.clients, 256)
    return args


def run_phases(args, exporter, web_yml):
    port = exporter.port
    quiet = {
        "known user (cost 12), wrong password": refusals(port, (SCRAPER[0], "x"), QUIET_TRIES),
        "known user (cost 5), wrong password": refusals(port, (CHEAP[0], "x"), QUIET_TRIES),
        "unknown user": refusals(port, ("nobody", "x"), QUIET_TRIES),
    }
    fetch(port, "/metrics", 60, SCRAPER)  # verified once, then remembered
    cached = [fetch(port, "/metrics", 5, SCRAPER) for _ in range(20)]
    figures = attack(port, exporter.pid, args)
    first, later = after_change(port, web_yml)
    figures.update(quiet=quiet, cached=cached, first=first, later=later)
    return figures


def end_state(exporter):
    """Whether the exporter still runs, and the status it answers the scraper
    and a client without credentials, after the phases."""
    return {"running": exporter.running(),
            "scraper": fetch_status(exporter.port, "/metrics", 60, SCRAPER),
            "anonymous": fetch_status(exporter.port, "/metrics", 60)}


def print_table(args, figures):
    quiet, cached, first, later = (figures[k] for k in ("quiet", "cached", "first", "later"))
    scrapes = figures["scrapes"]
    print(f"auth_stress: {args.clients} clients with random basic auth credentials for "
          f"{args.seconds:.0f} s ({figures['refused']} refused); bcrypt cost 12")
    print("| figure | value |")
    print("|---|---|")
    for name, (median, _) in quiet.items():
        print(f"| refusal on a quiet server, {name} (median ms) | {median:.1f} |")
    print(f"| authorised scrape, cached, quiet server: p50 / p99 ms | "
          f"{ms(percentile(answered(cached), 0.5))} / {ms(percentile(answered(cached), 0.99))} |")
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
          f"{ms(percentile(answered(later), 0.5))} |")


def answered(values):
    return [v for v in values if v is not None]


def check_figures(args, figures):
    checks = Checks("auth_stress")
    for name, (_, refused) in figures["quiet"].items():
        checks.count_equals(f"quiet server, {name}: refused", refused, QUIET_TRIES)
    checks.count_equals("random credentials accepted", figures["accepted"], 0)
    checks.count_at_most("random credentials neither refused nor accepted",
                         figures["other"], args.max_failed, "--max-failed")
    cached = figures["cached"]
    checks.count_at_most("authorised scrapes failed, cached, quiet server",
                         len(cached) - len(answered(cached)), args.max_failed, "--max-failed")
    checks.seconds_at_most("authorised scrape p99, cached, quiet server",
                           percentile(answered(cached), 0.99), args.max_scrape_p99,
                           "--max-scrape-p99")
    checks.count_at_most("authorised scrapes failed under attack", figures["failures"],
                         args.max_failed, "--max-failed")
    checks.seconds_at_most("authorised scrape p99 under attack",
                           percentile(figures["scrapes"], 0.99), args.max_scrape_p99,
                           "--max-scrape-p99")
    checks.expect(figures["first"] is not None,
                  "the first authorised scrape after the change is accepted")
    later = figures["later"]
    checks.count_at_most("authorised scrapes failed after the change",
                         len(later) - len(answered(later)), args.max_failed, "--max-failed")
    check_end(checks, figures)
    checks.finish()


def check_end(checks, figures):
    end = figures["end"]
    checks.expect(end["running"], "the exporter still runs at the end")
    checks.expect(end["scraper"] == 200,
                  f"the exporter accepts the scraper at the end (status {end['scraper']})")
    checks.expect(end["anonymous"] == 401, f"the exporter refuses a client without credentials "
                                           f"at the end (status {end['anonymous']})")
    checks.expect(figures["exit_status"] == 0,
                  f"the exporter exits 0 on SIGTERM (exit status {figures['exit_status']})")


if __name__ == "__main__":
    main()
