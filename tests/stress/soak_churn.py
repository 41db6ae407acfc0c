"""The soak's load on the kernel side: named network namespaces and veth pairs
that it makes, moves and deletes (all named with one prefix, all removed by
cleanup()), raw Ethernet frames through them, and sockets opened inside a
namespace. Every loop ends when its stop event is set."""
import ctypes
import os
import subprocess
import threading
import time

CLONE_NEWNET = 0x40000000
ETH_P_LOCAL = 0x88B5  # IEEE local experimental: no protocol handler takes it
FRAME = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + ETH_P_LOCAL.to_bytes(2, "big") + bytes(46)

_libc = ctypes.CDLL(None, use_errno=True)


def ip(*argv, check=False):
    """Runs `ip ARGV...`; True when it worked. check: raise when it did not."""
    result = subprocess.run(["ip", *argv], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(argv)}: {result.stderr.strip()}")
    return result.returncode == 0


def enter_netns(name):
    """Moves the calling thread (only it) into the named namespace."""
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns into {name}")
    finally:
        os.close(fd)


def packet_socket_in(netns):
    """An AF_PACKET socket of the named namespace ("" = this one), opened by a
    short-lived thread that enters it: interface names given to sendto() are
    looked up in that namespace."""
    import socket
    if not netns:
        return socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    result = {}

    def run():
        try:
            enter_netns(netns)
            result["socket"] = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        except OSError as e:
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["socket"]


def send_frames(sock, device, count):
    """Sends `count` frames out of `device`; how many the kernel took."""
    sent = 0
    for _ in range(count):
        try:
            sock.sendto(FRAME, (device, ETH_P_LOCAL))
            sent += 1
        except OSError:  # the device went, or is down, a moment before
            break
    return sent


class Lab:
    """The namespaces and links of one soak, all named PREFIX...: two fixed
    namespaces A and B, a steady veth pair (host end PREFIXs0, peer PREFIXs1
    in A), churned pairs (host end PREFIXh<n>, renamed PREFIXr<n>; peer
    PREFIXq<n> in A, then moved to B) and churned namespaces PREFIXn<k>."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.ns_a, self.ns_b = prefix + "a", prefix + "b"
        self.steady_host, self.steady_peer = prefix + "s0", prefix + "s1"
        self.lock = threading.Lock()
        self.devices = []  # dicts: n, host (its name now), peer, peer_ns, stage
        self.namespaces = []  # (name, socket)
        self.sockets = {}
        self.next_device = self.next_namespace = 0
        self.device_ops = self.namespace_ops = self.failed_ops = 0

    def set_up(self):
        self.cleanup()  # leftovers of a run that was killed
        for ns in (self.ns_a, self.ns_b):
            ip("netns", "add", ns, check=True)
            ip("-n", ns, "link", "set", "lo", "up", check=True)
            # No IPv6 chatter on the links made there: the steady pair carries only the frames
            # sent, so that its count can be compared with the kernel's.
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w",
                            "net.ipv6.conf.default.disable_ipv6=1"], check=True)
        ip("link", "add", self.steady_host, "type", "veth", "peer", "name", self.steady_peer,
           "netns", self.ns_a, check=True)
        subprocess.run(["sysctl", "-q", "-w",
                        f"net.ipv6.conf.{self.steady_host}.disable_ipv6=1"], check=True)
        ip("link", "set", self.steady_host, "up", check=True)
        ip("-n", self.ns_a, "link", "set", self.steady_peer, "up", check=True)
        self.sockets = {"": packet_socket_in(""), self.ns_a: packet_socket_in(self.ns_a),
                        self.ns_b: packet_socket_in(self.ns_b)}

    # Device churn: one operation per call, in the order create, rename, move
    # to the other namespace, delete; each stage keeps a few devices so that
    # a device lives a few seconds (a few polls) and receives frames meanwhile.
    STAGE_DEPTH = 4
    MAX_DEVICES = 40

    def churn_device_once(self):
        with self.lock:
            stages = [[d for d in self.devices if d["stage"] == s] for s in range(3)]
        op = self.device_ops % 4
        self.device_ops += 1
        if len(self.devices) >= self.MAX_DEVICES or (op == 3 and
                                                     len(stages[2]) > self.STAGE_DEPTH):
            self._delete(stages[2][0] if stages[2] else self.devices[0])
        elif op == 1 and len(stages[0]) > self.STAGE_DEPTH:
            self._rename(stages[0][0])
        elif op == 2 and len(stages[1]) > self.STAGE_DEPTH:
            self._move(stages[1][0])
        else:
            self._create()

    def _create(self):
        n = self.next_device
        self.next_device += 1
        device = {"n": n, "host": f"{self.prefix}h{n}", "peer": f"{self.prefix}q{n}",
                  "peer_ns": self.ns_a, "stage": 0}
        ok = ip("link", "add", device["host"], "type", "veth", "peer", "name", device["peer"],
                "netns", self.ns_a)
        ok = ok and ip("link", "set", device["host"], "up")
        ok = ok and ip("-n", self.ns_a, "link", "set", device["peer"], "up")
        self._record(ok)
        with self.lock:
            self.devices.append(device)

    def _rename(self, device):
        renamed = f"{self.prefix}r{device['n']}"
        ok = ip("link", "set", device["host"], "down")
        ok = ok and ip("link", "set", device["host"], "name", renamed)
        with self.lock:
            if ok:
                device["host"] = renamed
            device["stage"] = 1
        self._record(ok and ip("link", "set", renamed, "up"))

    def _move(self, device):
        with self.lock:
            device["stage"] = 2
            device["peer_ns"] = None  # no frames from the peer while it moves
        ok = ip("-n", self.ns_a, "link", "set", device["peer"], "netns", self.ns_b)
        ok = ok and ip("-n", self.ns_b, "link", "set", device["peer"], "up")
        with self.lock:
            device["peer_ns"] = self.ns_b
        self._record(ok)

    def _delete(self, device):
        with self.lock:
            self.devices.remove(device)
        self._record(ip("link", "del", device["host"]))

    def _record(self, ok):
        if not ok:
            self.failed_ops += 1

    # Namespace churn: a new namespace with a veth pair inside, frames through
    # it, deleted once LIVE_NAMESPACES newer ones exist. The pair's names
    # (PREFIXn<k>x and y, k in base 36) tell its series apart from another
    # namespace's that got the same number after this one's end.
    LIVE_NAMESPACES = 3

    def churn_namespace_once(self):
        k = base36(self.next_namespace)
        name = f"{self.prefix}n{k}"
        self.next_namespace += 1
        self.namespace_ops += 1
        x, y = f"{self.prefix}n{k}x", f"{self.prefix}n{k}y"
        ok = ip("netns", "add", name) and ip("-n", name, "link", "set", "lo", "up")
        ok = ok and ip("-n", name, "link", "add", x, "type", "veth", "peer", "name", y)
        ok = ok and ip("-n", name, "link", "set", x, "up") and ip("-n", name, "link", "set", y,
                                                                   "up")
        if ok:
            with self.lock:
                self.namespaces.append((name, x, packet_socket_in(name)))
        else:
            self.failed_ops += 1
        while True:
            with self.lock:
                if len(self.namespaces) <= self.LIVE_NAMESPACES:
                    break
                old, _, sock = self.namespaces.pop(0)
            sock.close()  # a socket keeps its namespace alive
            self._record(ip("netns", "del", old))

    def send_churn_frames(self):
        """One frame each way through every churned pair, one through the pair
        of every churned namespace."""
        with self.lock:
            devices = [dict(d) for d in self.devices]
            namespaces = list(self.namespaces)
        for d in devices:
            send_frames(self.sockets[""], d["host"], 1)
            if d["peer_ns"]:
                send_frames(self.sockets[d["peer_ns"]], d["peer"], 1)
        for _, device, sock in namespaces:
            send_frames(sock, device, 1)

    def stop_churn(self):
        """Deletes every churned device and namespace (the fixed ones stay)."""
        with self.lock:
            devices, self.devices = self.devices, []
            namespaces, self.namespaces = self.namespaces, []
        for d in devices:
            ip("link", "del", d["host"])
        for name, _, sock in namespaces:
            sock.close()
            ip("netns", "del", name)

    def live_counts(self):
        with self.lock:
            return len(self.devices), len(self.namespaces)

    def cleanup(self):
        """Removes everything named with the prefix: links of this namespace,
        then namespaces (their links go with them)."""
        for sock in self.sockets.values():
            sock.close()
        self.sockets = {}
        with self.lock:
            for _, _, sock in self.namespaces:
                sock.close()
            self.namespaces, self.devices = [], []
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True,
                               text=True).stdout
        for line in links.splitlines():
            name = line.split(":", 2)[1].strip().split("@", 1)[0]
            if name.startswith(self.prefix):
                ip("link", "del", name)
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        for line in listed.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(self.prefix):
                ip("netns", "del", name)


def base36(n):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if n == 0:
            return out


def rx_packets(netns, device):
    """The kernel's own count of what `device` received (-1: unreadable)."""
    result = subprocess.run(["ip", "netns", "exec", netns, "cat",
                             f"/sys/class/net/{device}/statistics/rx_packets"],
                            capture_output=True, text=True)
    return int(result.stdout) if result.returncode == 0 else -1


def netns_inode(netns):
    return os.stat(f"/run/netns/{netns}").st_ino


class Every(threading.Thread):
    """Calls `action` every `period` seconds until `stop` is set (missed
    periods are skipped, not caught up); counts the calls that raised."""

    def __init__(self, period, action, stop, delay=0.0):
        super().__init__(daemon=True)
        self.period, self.action, self.stop, self.delay = period, action, stop, delay
        self.errors = []

    def run(self):
        next_time = time.monotonic() + self.delay
        self.stop.wait(self.delay)
        while not self.stop.is_set():
            try:
                self.action()
            except Exception as e:  # reported with the figures
                self.errors.append(repr(e))
            next_time = max(next_time + self.period, time.monotonic())
            self.stop.wait(max(0.0, next_time - time.monotonic()))
