"""The soak's scrapers: /metrics over fresh connections with basic auth (some
asking for gzip, one of them now and then without credentials, which must be
refused), each answer checked against the exporter's invariant
(docs/metrics.md, "Nothing counted is hidden"): every packet the probe
counted is exported, untracked or removed."""
import base64
import gzip
import http.client
import threading
import time

TOTALS = ("netif_rx_packets_total", "netif_rx_untracked_packets_total",
          "netif_rx_removed_packets_total", "netif_rx_counted_packets_total")


def get(port, path, credentials=None, gzip_ok=False, timeout=10.0):
    """(status, body text, seconds) of one GET over a fresh connection;
    status None when there was no answer."""
    headers = {"Connection": "close"}
    if credentials:
        token = base64.b64encode(f"{credentials[0]}:{credentials[1]}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    if gzip_ok:
        headers["Accept-Encoding"] = "gzip"
    start = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        took = time.monotonic() - start
        if response.getheader("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        return response.status, body.decode("utf-8", "replace"), took
    except (OSError, http.client.HTTPException, EOFError):
        return None, "", time.monotonic() - start
    finally:
        connection.close()


def samples(text, name):
    """The values of every series of the family `name` (no histograms)."""
    values = []
    for line in text.splitlines():
        if line.startswith(name) and len(line) > len(name) and line[len(name)] in "{ ":
            raw = line.rsplit(" ", 1)[1]
            values.append(int(raw) if raw.isdigit() else float(raw))
    return values


def value(text, name, labels=""):
    """The value of the one series `name{labels}` (labels as exposed), or None."""
    wanted = name + ("{" + labels + "}" if labels else "")
    for line in text.splitlines():
        if line.startswith(wanted + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def series_keys(text, name="netif_rx_packets_total"):
    """The label sets (text between the braces) of a family's series."""
    keys = set()
    for line in text.splitlines():
        if line.startswith(name + "{"):
            keys.add(line[len(name) + 1:line.rindex("}")])
    return keys


def polls_below(polls):
    """The polls below the invariant, in order, of a {poll timestamp: deficit} map: none may be
    (docs/metrics.md: nothing counted is hidden, at every poll)."""
    return [p for p in sorted(p for p in polls if p is not None) if polls[p] > 0]


def invariant(text):
    """(exported + untracked + removed, counted, poll timestamp) of one answer."""
    packets, untracked, removed, counted = (sum(samples(text, n)) for n in TOTALS)
    return packets + untracked + removed, counted, value(
        text, "netif_rx_exporter_last_poll_timestamp_seconds")


class Scraper(threading.Thread):
    """GET /metrics every `period` seconds until `stop`; with `anonymous_every`
    > 0, every such request goes without credentials (and must be refused)."""

    def __init__(self, port, credentials, gzip_ok, period, stop, anonymous_every=0):
        super().__init__(daemon=True)
        self.port, self.credentials, self.gzip_ok = port, credentials, gzip_ok
        self.period, self.stop, self.anonymous_every = period, stop, anonymous_every
        self.lock = threading.Lock()
        self.durations = []  # seconds of the answered scrapes since the last take()
        self.scrapes = self.refused = self.failed = 0
        # Poll timestamp -> counted - (exported + untracked + removed) of its answers (the
        # largest): > 0 is a poll below the invariant.
        self.polls = {}

    def run(self):
        next_time = time.monotonic()
        n = 0
        while not self.stop.is_set():
            n += 1
            if self.anonymous_every and n % self.anonymous_every == 0:
                status, _, _ = get(self.port, "/metrics")
                with self.lock:
                    if status == 401:
                        self.refused += 1
                    else:
                        self.failed += 1
            else:
                self.scrape_once()
            next_time = max(next_time + self.period, time.monotonic())
            self.stop.wait(max(0.0, next_time - time.monotonic()))

    def scrape_once(self):
        status, text, took = get(self.port, "/metrics", self.credentials, self.gzip_ok)
        if status != 200:
            with self.lock:
                self.failed += 1
            return
        shown, counted, poll = invariant(text)
        with self.lock:
            self.scrapes += 1
            self.durations.append(took)
            self.polls[poll] = max(self.polls.get(poll, 0), counted - shown)

    def take_durations(self):
        with self.lock:
            durations, self.durations = self.durations, []
        return durations
