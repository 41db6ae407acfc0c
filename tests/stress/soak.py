#!/usr/bin/env python3
"""Soak: the exporter for --duration seconds under every kind of churn at
once, with its resources sampled, then checked against its goals.

As root. Starts the exporter (namespaces: all, attribution on, stale_after
--stale-after, basic auth) and, while frames flow steadily through a veth
pair (about 1,000 a second each way):
  - device churn: --churn-rate operations a second, in turn creating a veth
    pair, renaming its host end, moving its peer to another namespace and
    deleting it; frames cross every churned pair each way every 100 ms;
  - namespace churn: a namespace a second, with frames through a veth pair
    inside it, deleted 3 s later;
  - --scrapes-per-minute scrapes from --clients clients, over fresh
    connections with basic auth, half of them asking for gzip; every 10th
    request of the first client goes without credentials and must be
    refused; every answer is checked against the invariant (exported +
    untracked + removed >= counted, docs/metrics.md);
  - SIGHUP every --reload-interval seconds.
Every --sample-interval seconds it writes a row of soak.csv (under --out):
RSS, open fds, threads, map entries (netif_rx_bpf_map_entries of the hash
maps), poll and scrape durations. At the end it stops the churn, deletes
what the churn made, waits stale_after and 3 polls, samples again, stops
the traffic and the exporter, and plots soak.csv into soak.png (gnuplot).
Prints the summary table (also soak.md under --out).

With --assert, the goals are then checked, one line each: RSS grows by less
than --max-rss-slope MiB an hour (a least-squares slope over the samples
after --warm-up), fds and threads are flat after the warm-up (no higher than
during it) and the same at the quiet end as at the quiet start, the map
entries return to their baseline (foreign devices that appeared meanwhile
excepted, listed), the invariant held at every scrape and the scrapes saw
every poll, every scrape answered and every reload worked, the steady pair's
count equals the kernel's, nothing was logged at warn or error, and the
exporter exits 0 on SIGTERM (in the sanitizer build: no leak). Exit status 1
when a goal is missed.

Everything it creates (namespaces and links named soak<pid>..., its
temporary directory, the exporter) is removed at the end, also on failure,
SIGINT or SIGTERM.
Usage: soak.py BINARY [--duration S] [--warm-up S] [--out DIR] [--assert]
"""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from soak_churn import Every, Lab, netns_inode, rx_packets, send_frames
from soak_scrape import Scraper, get, invariant, polls_below, series_keys, value
from stress_common import Checks, Exporter, process_figures

CREDENTIALS = ("soak", "soak password")
HASH_MAPS = ("device_counters", "device_names", "drop_counters", "drop_device_names",
             "napi_counters")
COLUMNS = ("seconds", "phase", "rss_kib", "open_fds", "threads", "map_entries",
           "poll_ms_mean", "scrape_ms_mean", "scrape_ms_max", "scrapes", "devices_live",
           "namespaces_live", "polls_below_invariant")


def main():
    args = parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("soak: stopped by SIGTERM"))
    lab = Lab(f"soak{os.getpid() % 100000}")
    work = tempfile.mkdtemp(prefix="soak.")
    os.makedirs(args.out, exist_ok=True)
    exporter = None
    try:
        lab.set_up()
        exporter = start_exporter(args, work)
        try:
            figures = Soak(args, lab, exporter).run()
        except BaseException:
            print_log_tail(exporter)
            raise
        exporter.stop()
        figures["exit_status"] = exporter.exit_status
        figures["log_lines"] = logged_warnings(exporter.log.name)
    finally:
        if exporter is not None:
            exporter.stop()
        lab.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    plot(args, figures["marks"])
    table = summary(args, figures)
    with open(os.path.join(args.out, "soak.md"), "w") as f:
        f.write(table + "\n")
    print(table, flush=True)
    if args.check:
        check_goals(args, figures)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--duration", type=float, default=3600, help="seconds of churn")
    parser.add_argument("--warm-up", type=float, default=None,
                        help="seconds (default 300, or a third of a shorter run)")
    parser.add_argument("--sample-interval", type=float, default=10)
    parser.add_argument("--stale-after", type=int, default=10, metavar="SECONDS")
    parser.add_argument("--churn-rate", type=float, default=10, help="device operations/s")
    parser.add_argument("--scrapes-per-minute", type=float, default=1000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--reload-interval", type=float, default=30)
    parser.add_argument("--out", default="soak")
    parser.add_argument("--assert", dest="check", action="store_true")
    parser.add_argument("--max-rss-slope", type=float, default=1.0, metavar="MIB_PER_HOUR",
                        help="0: reported, not checked")
    args = parser.parse_args()
    args.duration = min(max(args.duration, 30), 7 * 24 * 3600)
    if args.warm_up is None:
        args.warm_up = 300 if args.duration >= 1200 else args.duration / 3
    args.clients = min(max(args.clients, 2), 32)
    return args


def start_exporter(args, work):
    config = os.path.join(work, "soak.yaml")
    with open(config, "w") as f:
        f.write("poll_interval: 1s\nnamespaces: all\n"
                f"stale_after: {args.stale_after}s\n"
                "attribution:\n  enabled: true\n  refresh_interval: 10s\n")
    web = os.path.join(work, "web.yml")
    hashed = subprocess.run(["htpasswd", "-nbBC", "5", "x", CREDENTIALS[1]], check=True,
                            capture_output=True, text=True).stdout.strip().split(":", 1)[1]
    with open(web, "w") as f:
        f.write(f"basic_auth_users:\n  {CREDENTIALS[0]}: '{hashed}'\n")
    # The sanitizer build keeps freed memory in a quarantine (256 MiB): off, so that RSS is the
    # exporter's own; LeakSanitizer still checks for leaks at the exit.
    os.environ["ASAN_OPTIONS"] = ":".join(
        o for o in (os.environ.get("ASAN_OPTIONS", ""), "quarantine_size_mb=0",
                    "thread_local_quarantine_size_kb=0") if o)
    return Exporter(args.binary, [f"--config.file={config}", f"--web.config.file={web}"],
                    log_dir=work, ready_seconds=60)


class Soak:
    def __init__(self, args, lab, exporter):
        self.args, self.lab, self.exporter = args, lab, exporter
        self.port, self.pid = exporter.port, exporter.pid
        self.rows = []
        self.start = time.monotonic()
        self.poll_sum = self.poll_count = None
        self.reloads = self.reloads_failed = 0
        self.sent_steady = 0
        self.polls = {}  # the sampler's own checks of the invariant, as Scraper.polls
        # Written as the samples come, so that a long run can be followed (tail -f).
        self.csv_file = open(os.path.join(args.out, "soak.csv"), "w", newline="")
        self.csv = csv.DictWriter(self.csv_file, fieldnames=COLUMNS)
        self.csv.writeheader()

    def run(self):
        a = self.args
        traffic_stop, churn_stop = threading.Event(), threading.Event()
        traffic = Every(0.05, self.steady_frames, traffic_stop)
        traffic.start()
        try:
            self.wait_polls(3)
            quiet_start = self.quiet_sample()
            self.sample("baseline")
            scrapers, churn = self.start_churn(churn_stop)
            try:
                churn_start = time.monotonic()
                end = churn_start + a.duration
                self.warm_end_at = churn_start - self.start + a.warm_up
                while time.monotonic() < end:
                    time.sleep(max(0.0, min(a.sample_interval, end - time.monotonic())))
                    phase = "warm-up" if time.monotonic() - churn_start < a.warm_up else "churn"
                    self.sample(phase, scrapers)
            finally:
                churn_stop.set()
                for thread in scrapers + churn:
                    thread.join(30)
            self.churn_end_at = time.monotonic() - self.start
            self.lab.stop_churn()
            drain_end = time.monotonic() + a.stale_after + 3 + 2
            while time.monotonic() < drain_end:
                time.sleep(min(a.sample_interval, max(0.0, drain_end - time.monotonic())))
                self.sample("after churn", scrapers)
            quiet_end = self.quiet_sample()
        finally:
            traffic_stop.set()
            traffic.join(10)
        self.wait_polls(2)
        steady = self.steady_counts()
        self.csv_file.close()
        return {"rows": self.rows, "quiet_start": quiet_start, "quiet_end": quiet_end,
                "scrapers": scrapers, "churn_threads": churn, "traffic_errors": traffic.errors,
                "reloads": self.reloads, "reloads_failed": self.reloads_failed,
                "device_ops": self.lab.device_ops, "namespace_ops": self.lab.namespace_ops,
                "failed_ops": self.lab.failed_ops, "steady": steady,
                "churn_seconds": a.duration, "poll_interval": 1.0, "polls": merged_polls([self] + scrapers),
                "prefix": self.lab.prefix,
                "marks": (self.warm_end_at, self.churn_end_at)}

    def start_churn(self, stop):
        a = self.args
        period = 60.0 * a.clients / a.scrapes_per_minute
        scrapers = [Scraper(self.port, CREDENTIALS, i % 2 == 1, period, stop,
                            anonymous_every=10 if i == 0 else 0) for i in range(a.clients)]
        churn = [Every(1.0 / a.churn_rate, self.lab.churn_device_once, stop),
                 Every(1.0, self.lab.churn_namespace_once, stop),
                 Every(0.1, self.lab.send_churn_frames, stop),
                 Every(a.reload_interval, self.reload, stop, delay=a.reload_interval)]
        for thread in scrapers + churn:
            thread.start()
        return scrapers, churn

    def steady_frames(self):
        self.sent_steady += send_frames(self.lab.sockets[""], self.lab.steady_host, 50)
        send_frames(self.lab.sockets[self.lab.ns_a], self.lab.steady_peer, 50)

    def reload(self):
        os.kill(self.pid, signal.SIGHUP)
        self.reloads += 1

    def scrape(self):
        status, text, _ = get(self.port, "/metrics", CREDENTIALS)
        if status != 200:
            raise RuntimeError(f"soak: the sampler's scrape failed (status {status})")
        return text

    def wait_polls(self, polls):
        first = value(self.scrape(), "netif_rx_exporter_last_poll_timestamp_seconds")
        deadline = time.monotonic() + 10 * polls
        while time.monotonic() < deadline:
            now = value(self.scrape(), "netif_rx_exporter_last_poll_timestamp_seconds")
            if now is not None and first is not None and now >= first + polls:
                return
            time.sleep(0.2)

    def quiet_sample(self):
        """Open fds, threads and the device series with no request in flight."""
        text = self.scrape()
        time.sleep(0.5)
        rss, threads = process_figures(self.pid)
        return {"fds": len(os.listdir(f"/proc/{self.pid}/fd")), "threads": threads,
                "map_entries": map_entries(text), "series": series_keys(text), "rss_kib": rss,
                "maps": {m: map_entries(text, (m,)) for m in HASH_MAPS},
                "receive_path_series": series_keys(text, "netif_rx_drops_total")
                | series_keys(text, "netif_rx_napi_polls_total")}

    def sample(self, phase, scrapers=()):
        text = self.scrape()
        rss, threads = process_figures(self.pid)
        fds = len(os.listdir(f"/proc/{self.pid}/fd"))
        poll_sum = value(text, "netif_rx_exporter_poll_duration_seconds_sum") or 0.0
        poll_count = value(text, "netif_rx_exporter_poll_duration_seconds_count") or 0.0
        poll_ms = float("nan")
        if self.poll_count is not None and poll_count > self.poll_count:
            poll_ms = 1000 * (poll_sum - self.poll_sum) / (poll_count - self.poll_count)
        self.poll_sum, self.poll_count = poll_sum, poll_count
        if value(text, "netif_rx_exporter_config_last_reload_successful") != 1:
            self.reloads_failed += 1
        durations = [d for s in scrapers for d in s.take_durations()]
        devices, namespaces = self.lab.live_counts()
        shown, counted, poll = invariant(text)
        self.polls[poll] = max(self.polls.get(poll, 0), counted - shown)
        violations = len(polls_below(merged_polls([self] + list(scrapers))))
        self.rows.append({
            "seconds": round(time.monotonic() - self.start, 1), "phase": phase, "rss_kib": rss,
            "open_fds": fds, "threads": threads, "map_entries": map_entries(text),
            "poll_ms_mean": round(poll_ms, 3),
            "scrape_ms_mean": round(1000 * sum(durations) / len(durations), 2)
            if durations else float("nan"),
            "scrape_ms_max": round(1000 * max(durations), 2) if durations else float("nan"),
            "scrapes": len(durations), "devices_live": devices, "namespaces_live": namespaces,
            "polls_below_invariant": violations})
        self.csv.writerow(self.rows[-1])
        self.csv_file.flush()

    def steady_counts(self):
        """(exported packets of the steady peer, the kernel's rx_packets of it)."""
        labels = f'device="{self.lab.steady_peer}",netns="{netns_inode(self.lab.ns_a)}"'
        text = self.scrape()
        exported = value(text, "netif_rx_packets_total", labels)
        if exported is None:  # another label order
            for key in series_keys(text):
                if f'device="{self.lab.steady_peer}"' in key:
                    exported = value(text, "netif_rx_packets_total", key)
        return exported, rx_packets(self.lab.ns_a, self.lab.steady_peer)


def merged_polls(checkers):
    polls = {}
    for checker in checkers:
        for poll, deficit in list(checker.polls.items()):
            polls[poll] = max(polls.get(poll, 0), deficit)
    polls.pop(None, None)
    return polls


def map_entries(text, maps=HASH_MAPS):
    return int(sum(value(text, "netif_rx_bpf_map_entries", f'map="{m}"') or 0 for m in maps))


def print_log_tail(exporter):
    exporter.stop()
    with open(exporter.log.name, errors="replace") as f:
        tail = f.readlines()[-30:]
    print(f"soak: the run failed; the exporter's last log lines (exit status "
          f"{exporter.exit_status}):\n" + "".join(tail), file=sys.stderr, flush=True)


def logged_warnings(path):
    with open(path, errors="replace") as f:
        return [line.rstrip("\n") for line in f
                if re.search(r'level=(warn|error)|"level":"(warn|error)"|ERROR: ', line)]


def plot(args, marks):
    """soak.png from soak.csv: one panel per figure over time, dashed lines at the end of the
    warm-up and of the churn."""
    data = os.path.join(args.out, "soak.csv")
    panels = [("rss_kib", "RSS (KiB)", 3), ("open_fds", "open fds", 4),
              ("threads", "threads", 5), ("map_entries", "map entries", 6),
              ("poll_ms_mean", "poll (ms, mean)", 7), ("scrape_ms_mean", "scrape (ms, mean)", 8)]
    script = [f"set terminal pngcairo size 1200,1400 font ',9'",
              f"set output '{os.path.join(args.out, 'soak.png')}'",
              "set datafile separator ','", "set key off", "set grid",
              "set xlabel 'seconds'"]
    script += [f"set arrow from {x:.1f}, graph 0 to {x:.1f}, graph 1 nohead dt 2" for x in marks]
    script += ["set multiplot layout 3,2 title "
              f"'soak: {args.duration:.0f} s of churn, warm-up {args.warm_up:.0f} s'"]
    for _, title, column in panels:
        script += [f"set title '{title}'",
                   f"plot '{data}' every ::1 using 1:{column} with linespoints pt 7 ps 0.4"]
    script.append("unset multiplot")
    result = subprocess.run(["gnuplot"], input="\n".join(script), capture_output=True, text=True)
    if result.returncode != 0:
        print(f"soak: gnuplot failed: {result.stderr.strip()}", file=sys.stderr)


def slope_per_hour(points):
    """Least-squares slope of (seconds, value) points, per hour."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return 3600 * sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else float("nan")


def derived(figures):
    rows = figures["rows"]
    warm = [r for r in rows if r["phase"] == "warm-up"]
    after = [r for r in rows if r["phase"] == "churn"]
    d = {"rss_slope_mib_h": slope_per_hour([(r["seconds"], r["rss_kib"] / 1024) for r in after])}
    for key in ("open_fds", "threads", "rss_kib", "map_entries"):
        d[key] = ((min(r[key] for r in after), max(r[key] for r in after)) if after
                  else (0, 0))
        d[key + "_warm_max"] = max((r[key] for r in warm + rows[:1]), default=0)
    scrapers = figures["scrapers"]
    d["scrapes"] = sum(s.scrapes for s in scrapers)
    d["gzip_scrapes"] = sum(s.scrapes for s in scrapers if s.gzip_ok)
    d["refused"] = sum(s.refused for s in scrapers)
    d["failed"] = sum(s.failed for s in scrapers)
    d["below"] = polls_below(figures["polls"])
    d["deficits"] = [figures["polls"][p] for p in d["below"]]
    # The polls while the scrapers ran (the sampler alone checks one poll in ten after).
    scraped = set().union(*(set(s.polls) for s in scrapers)) - {None}
    first, last = (min(scraped), max(scraped)) if scraped else (0, -1)
    d["polls_checked"] = sum(1 for p in figures["polls"] if first <= p <= last)
    d["polls_span"] = int(round((last - first) / figures["poll_interval"])) + 1 if scraped else 0
    poll_values = [r["poll_ms_mean"] for r in rows if r["poll_ms_mean"] == r["poll_ms_mean"]]
    d["poll_ms"] = (sum(poll_values) / len(poll_values), max(poll_values)) if poll_values \
        else (float("nan"), float("nan"))
    scrape_values = [r["scrape_ms_mean"] for r in rows if r["scrapes"]]
    d["scrape_ms"] = (sum(scrape_values) / len(scrape_values) if scrape_values else float("nan"),
                      max((r["scrape_ms_max"] for r in rows if r["scrapes"]),
                          default=float("nan")))
    start, end = figures["quiet_start"], figures["quiet_end"]
    ours = [k for k in end["series"] if churned_device(k, figures["prefix"])]
    foreign_new = [k for k in end["series"] - start["series"] if k not in ours]
    d["ours_left"], d["foreign_new"] = ours, foreign_new
    # Drops and NAPI polls of a device that was there all along (the host's own
    # traffic: a first drop reason, a first poll) add entries of their own.
    d["foreign_receive_path_new"] = [
        k for k in end["receive_path_series"] - start["receive_path_series"]
        if not churned_device(k, figures["prefix"])]
    return d


def churned_device(key, prefix):
    """Whether a series' labels name a device of this run's device or namespace churn."""
    return re.search(f'device="{prefix}([hrq]\\d|n[0-9a-z]+[xy]")', key) is not None


def summary(args, figures):
    d = derived(figures)
    figures["derived"] = d
    start, end = figures["quiet_start"], figures["quiet_end"]
    seconds = figures["churn_seconds"]
    exported, kernel = figures["steady"]
    lines = [
        f"soak: {seconds:.0f} s of churn, warm-up {args.warm_up:.0f} s"
        + (" (scaled down from 300 s for a short run)" if args.warm_up < 300 else "")
        + f", a sample every {args.sample_interval:.0f} s ({len(figures['rows'])} samples), "
        f"stale_after {args.stale_after} s",
        "",
        "| figure | measured | goal |",
        "|---|---|---|",
        f"| device operations (create, rename, move, delete) | {figures['device_ops']} "
        f"({figures['device_ops'] / seconds:.1f}/s), {figures['failed_ops']} failed | "
        f"{args.churn_rate:g}/s |",
        f"| namespaces created and deleted | {figures['namespace_ops']} | |",
        f"| scrapes (gzip / refused without credentials / failed) | {d['scrapes']} "
        f"({60 * d['scrapes'] / seconds:.0f}/min; {d['gzip_scrapes']} / {d['refused']} / "
        f"{d['failed']}) | {args.scrapes_per_minute:g}/min, none failed |",
        f"| reloads (SIGHUP) | {figures['reloads']}, {figures['reloads_failed']} samples "
        "saw a failed one | all work |",
        f"| RSS after the warm-up | {d['rss_kib'][0] / 1024:.1f} to {d['rss_kib'][1] / 1024:.1f} "
        f"MiB, slope {d['rss_slope_mib_h']:+.2f} MiB/h | "
        + (f"< {args.max_rss_slope:g} MiB/h |" if args.max_rss_slope > 0
           else "not checked (--max-rss-slope 0) |"),
        f"| open fds: after the warm-up (during it); quiet start, end | {d['open_fds'][0]} to "
        f"{d['open_fds'][1]} ({d['open_fds_warm_max']}); {start['fds']}, {end['fds']} | flat |",
        f"| threads: after the warm-up (during it); quiet start, end | {d['threads'][0]} to "
        f"{d['threads'][1]} ({d['threads_warm_max']}); {start['threads']}, {end['threads']} | "
        "flat |",
        f"| map entries: baseline, peak, after the churn | {start['map_entries']}, "
        f"{max(r['map_entries'] for r in figures['rows'])}, {end['map_entries']} "
        f"(foreign devices new meanwhile: {len(d['foreign_new'])}) | back to the baseline |",
        f"| invariant: polls checked (of the polls in the run) / below it, by at most | "
        f"{d['polls_checked']} ({d['polls_span']}) / "
        f"{len(d['below'])}, {max(d['deficits'], default=0)} packets | every poll / 0 |",
        f"| poll duration: mean / highest 10 s mean | {d['poll_ms'][0]:.2f} / "
        f"{d['poll_ms'][1]:.2f} ms | |",
        f"| scrape duration: mean / max | {d['scrape_ms'][0]:.1f} / {d['scrape_ms'][1]:.1f} ms | |",
        f"| steady pair: exported / kernel's rx_packets | {exported} / {kernel} | equal |",
        f"| lines logged at warn or error | {len(figures['log_lines'])} | 0 |",
        f"| exit status on SIGTERM | {figures['exit_status']} | 0 |",
    ]
    return "\n".join(lines)


def check_goals(args, figures):
    d = figures["derived"]
    start, end = figures["quiet_start"], figures["quiet_end"]
    checks = Checks("soak")
    slope = d["rss_slope_mib_h"]
    if args.max_rss_slope > 0:
        checks.expect(slope < args.max_rss_slope,
                      f"RSS slope after the warm-up {slope:+.2f} MiB/h < {args.max_rss_slope:g} "
                      "(--max-rss-slope)")
    else:
        print(f"soak: RSS slope after the warm-up {slope:+.2f} MiB/h, not checked "
              "(--max-rss-slope 0); leaks: the exit status below (LeakSanitizer in the "
              "sanitizer build)", flush=True)
    fd_slack = args.clients + 2  # connections in flight when a sample is taken
    checks.expect(d["open_fds"][1] <= max(d["open_fds_warm_max"], start["fds"] + fd_slack),
                  f"open fds after the warm-up at most {d['open_fds'][1]} (during it at most "
                  f"{d['open_fds_warm_max']}, quiet start {start['fds']} + {fd_slack})")
    checks.count_equals("open fds at the quiet end (the quiet start's)", end["fds"],
                        start["fds"])
    checks.expect(d["threads"][1] <= d["threads_warm_max"],
                  f"threads after the warm-up at most {d['threads'][1]} (during it at most "
                  f"{d['threads_warm_max']})")
    checks.count_equals("threads at the quiet end (the quiet start's)", end["threads"],
                        start["threads"])
    checks.count_equals("series of the soak's churned devices left", len(d["ours_left"]), 0)
    for key in sorted(d["ours_left"])[:5]:
        print(f"soak:   {key}")
    # A device of another test has up to one entry in each hash map.
    allowed = (start["map_entries"] + len(HASH_MAPS) * len(d["foreign_new"])
               + len(d["foreign_receive_path_new"]))
    checks.expect(end["map_entries"] <= allowed,
                  f"map entries after the churn {end['map_entries']} <= baseline "
                  f"{start['map_entries']} + {len(HASH_MAPS)} x foreign devices new meanwhile "
                  f"{len(d['foreign_new'])} {sorted(d['foreign_new'])[:5]} + their drop and NAPI "
                  f"series new meanwhile {len(d['foreign_receive_path_new'])} "
                  f"{sorted(d['foreign_receive_path_new'])[:5]}; by map "
                  f"{start['maps']} -> {end['maps']}")
    checks.count_equals("polls below the invariant", len(d["below"]), 0)
    for poll in d["below"][:10]:
        print(f"soak:   poll {poll:.3f}: counted - (exported + untracked + removed) = "
              f"{figures['polls'][poll]}")
    checks.expect(d["polls_checked"] >= 0.9 * d["polls_span"] and d["polls_checked"] > 0,
                  f"polls checked {d['polls_checked']} of {d['polls_span']} (at least 90%: "
                  "a slow scrape can serve one poll twice)")
    checks.count_equals("scrapes failed (not 200, or an anonymous one not 401)", d["failed"], 0)
    checks.expect(figures["reloads"] > 0 and figures["reloads_failed"] == 0,
                  f"reloads {figures['reloads']}, samples that saw a failed one "
                  f"{figures['reloads_failed']}")
    checks.count_equals("device and namespace operations failed", figures["failed_ops"], 0)
    errors = [e for t in figures["churn_threads"] for e in t.errors] + figures["traffic_errors"]
    checks.count_equals("errors in the churn, traffic and reload threads", len(errors), 0)
    for e in errors[:5]:
        print(f"soak:   {e}")
    exported, kernel = figures["steady"]
    checks.expect(exported is not None and exported == kernel,
                  f"steady pair: exported {exported} == the kernel's rx_packets {kernel}")
    checks.count_equals("lines logged at warn or error", len(figures["log_lines"]), 0)
    for line in figures["log_lines"][:10]:
        print(f"soak:   {line}")
    checks.count_equals("exit status on SIGTERM", figures["exit_status"], 0)
    checks.finish()


if __name__ == "__main__":
    main()
