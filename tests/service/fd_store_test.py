"""systemd's file-descriptor store (--bpf.fd-store) without a running systemd:
this script plays the service manager. It starts the exporter with
$NOTIFY_SOCKET, keeps the descriptors it stores (FDSTORE=1, FDNAME=; dropped
on FDSTOREREMOVE=1) and starts the next exporter with them in $LISTEN_FDS and
$LISTEN_FDNAMES, after a listening socket named as a .socket unit's, as systemd
does. Checks: what is stored and how (FDPOLL=0, one descriptor per name), the
adoption (adopted 1, the same attach time, no counter down, the socket served
beside the probe's descriptors, the counting handed over to the new program), with
NEXT_LAYOUT_BINARY an exporter of the next layout carrying the counts over and
replacing the stored layout, an exporter without --bpf.fd-store dropping
the stored probe, the program detached once the store is closed, and the
flag's error outside systemd. One line per check; exit 1 on any failure.
Usage: fd_store_test.py BINARY [NEXT_LAYOUT_BINARY]"""
import array
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

binary = sys.argv[1]
next_layout_binary = sys.argv[2] if len(sys.argv) > 2 else None
if os.geteuid() != 0 or shutil.which("bpftool") is None:
    print("FAIL: needs root (to load the probe) and bpftool (scripts/install-deps.sh installs it)")
    sys.exit(1)
work = tempfile.mkdtemp(prefix="netif_rx_fd_store.")
running = set()  # exporters started and not yet waited for
notify_path = os.path.join(work, "notify.sock")
failures = []


def check(name, ok):
    print(("ok: " if ok else "FAIL: ") + name, flush=True)
    if not ok:
        failures.append(name)


notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
notify.bind(notify_path)
stored = {}  # FDNAME -> descriptors kept, as systemd's store
messages = []  # every message of the current exporter, as a dict


def receive(until, seconds=60):
    """Reads notify messages, keeping stored descriptors, until `until(fields)` holds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        notify.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            # Close-on-exec, as systemd holds them: no exporter inherits the
            # store but through $LISTEN_FDS.
            data, ancillary, _, _ = notify.recvmsg(4096, socket.CMSG_SPACE(16 * 4),
                                                   socket.MSG_CMSG_CLOEXEC)
        except socket.timeout:
            return False
        fds = array.array("i")
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(payload[: len(payload) - len(payload) % fds.itemsize])
        fields = dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line)
        fields["fds"] = list(fds)
        messages.append(fields)
        if fields.get("FDSTORE") == "1":
            stored.setdefault(fields.get("FDNAME", "stored"), []).extend(fds)
        elif fds:
            for fd in fds:
                os.close(fd)
        if fields.get("FDSTOREREMOVE") == "1":
            for fd in stored.pop(fields.get("FDNAME", ""), []):
                os.close(fd)
        if until(fields):
            return True
    return False


def start(name, args, passed=(), with_notify=True, program=None):
    """Starts the exporter (`program`: another build) with `passed` ((name, fd)
    pairs) from fd 3 on."""
    program = program or binary
    messages.clear()
    log = open(os.path.join(work, name + ".log"), "wb")
    pid = os.fork()
    if pid == 0:
        try:
            high = [os.dup2(fd, 200 + i) for i, (_, fd) in enumerate(passed)]
            for i, fd in enumerate(high):
                os.dup2(fd, 3 + i)  # dup2 clears close-on-exec
            for fd in high:
                os.close(fd)
            os.dup2(log.fileno(), 1)
            os.dup2(log.fileno(), 2)
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            if with_notify:
                env["NOTIFY_SOCKET"] = notify_path
            if passed:
                env["LISTEN_PID"] = str(os.getpid())
                env["LISTEN_FDS"] = str(len(passed))
                env["LISTEN_FDNAMES"] = ":".join(n for n, _ in passed)
            os.execve(program, [program] + args, env)
        finally:
            os._exit(127)
    log.close()
    running.add(pid)
    return pid


def stop(pid, sig=signal.SIGTERM):
    if sig is not None:
        os.kill(pid, sig)
    _, status = os.waitpid(pid, 0)
    running.discard(pid)
    return os.waitstatus_to_exitcode(status)


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            series, value = line.rsplit(" ", 1)
            values[series] = float(value)
    return values


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_log(name):
    try:
        with open(os.path.join(work, name + ".log"), errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def program_id(fd):
    with open(f"/proc/self/fdinfo/{fd}") as f:
        for line in f:
            if line.startswith("prog_id:"):
                return int(line.split()[1])
    return None


def program_loaded(prog_id):
    return subprocess.run(["bpftool", "prog", "show", "id", str(prog_id)],
                          capture_output=True).returncode == 0


def program_gone(prog_id):
    """True once the program `prog_id` is unloaded (5 s at most)."""
    for _ in range(50):
        if prog_id is not None and not program_loaded(prog_id):
            return True
        time.sleep(0.1)
    return False


def ready(fields):
    return fields.get("READY") == "1"


base_args = ["--config.file=/dev/null", "--bpf.fd-store"]


def run():
    # 1. The first exporter attaches the probe and stores it.
    port = free_port()
    pid = start("first", base_args + [f"--web.listen-address=127.0.0.1:{port}"])
    check("the first exporter says READY=1", receive(ready))
    names = sorted(stored)
    print("stored: " + " ".join(f"{n}({len(stored[n])})" for n in names))
    store_messages = [m for m in messages if m.get("FDSTORE") == "1"]
    check("every descriptor stored with FDPOLL=0, one per message",
          bool(store_messages) and all(m.get("FDPOLL") == "0" and len(m["fds"]) == 1
                                       for m in store_messages))
    layout_names = [n for n in names if n != "probe.control"]
    layout = layout_names[0].split(".")[1] if layout_names else "?"
    check(f"the link, the program and the maps stored as probe.{layout}.*, the control map as "
          "probe.control",
          all(n.startswith(f"probe.{layout}.") for n in layout_names)
          and {f"probe.{layout}.link", f"probe.{layout}.program",
               f"probe.{layout}.device_counters", "probe.control"} <= set(names))
    # Traffic on the loopback, so that there are packet counters to carry over.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        for _ in range(20):
            sender.sendto(b"x", ("127.0.0.1", 9))
    time.sleep(1.5)  # a poll (1 s by default) after the datagrams
    first = scrape(port)
    attach = first.get("netif_rx_exporter_probe_attach_time_seconds")
    check("the first exporter attached the probe (adopted 0)",
          first.get("netif_rx_exporter_probe_adopted") == 0 and bool(attach))
    check("SIGTERM: exit 0", stop(pid) == 0)
    check("the exporter left the probe in the store",
          "leaving the probe in systemd's file-descriptor store" in read_log("first"))
    prog = program_id(stored.get(f"probe.{layout}.program", [-1])[0]) if names else None

    # 2. The next one gets them back after a .socket unit's socket, adopts the
    # maps and hands the counting over to its own program.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    socket_port = listener.getsockname()[1]
    passed = [("netif_rx_exporter.socket", listener.fileno())]
    passed += [(n, fd) for n in names for fd in stored[n]]
    pid = start("second", base_args + ["--web.systemd-socket"], passed)
    check("the adopting exporter says READY=1", receive(ready))
    replaced = sorted(m.get("FDNAME", "") for m in messages if m.get("FDSTORE") == "1")
    check(f"it stores its own program, link and read-only data in their place ({replaced})",
          f"probe.{layout}.link" in replaced and f"probe.{layout}.program" in replaced
          and all(n.endswith((".link", ".program", "rodata")) for n in replaced)
          and sorted(stored) == names and all(len(fds) == 1 for fds in stored.values()))
    new_prog = program_id(stored.get(f"probe.{layout}.program", [-1])[0])
    check(f"the counting handed over: program {prog} -> {new_prog}, the first one detached",
          new_prog != prog and program_gone(prog))
    prog = new_prog
    second = scrape(socket_port)
    check("it serves the .socket unit's socket among the passed descriptors", bool(second))
    check("it adopted the probe (adopted 1)", second.get("netif_rx_exporter_probe_adopted") == 1)
    # The kernel keeps the load time in boot time: converted by each process, within 10 ms.
    again = second.get("netif_rx_exporter_probe_attach_time_seconds", 0)
    check(f"the attach time stayed ({attach} -> {again})", abs(again - attach) < 0.01)
    counters = [s for s in first if s.startswith("netif_rx_packets_total{")]
    check(f"the first exporter exported packet counters ({len(counters)})", bool(counters))
    missing = [s for s in counters if s not in second]
    check(f"every packet counter is still exported{(' (' + ', '.join(missing[:3]) + ')') if missing else ''}",
          not missing)
    down = [s for s in counters if s in second and second[s] < first[s]]
    check(f"no packet counter went down{(' (' + ', '.join(down[:3]) + ')') if down else ''}", not down)
    check("SIGTERM: exit 0", stop(pid) == 0)
    listener.close()

    # 2b. An exporter of the next layout hands the counting over and carries the counts.
    if next_layout_binary:
        port = free_port()
        passed = [(n, fd) for n in sorted(stored) for fd in stored[n]]
        pid = start("next_layout", base_args + [f"--web.listen-address=127.0.0.1:{port}"], passed,
                    program=next_layout_binary)
        check("the next layout's exporter says READY=1", receive(ready))
        now = [n for n in sorted(stored) if n != "probe.control"]
        new_layout = now[0].split(".")[1] if now else "?"
        check(f"it stores its probe as probe.{new_layout}.* and drops probe.{layout}.*",
              new_layout != layout and all(n.startswith(f"probe.{new_layout}.") for n in now)
              and f"probe.{new_layout}.carried_counters" in now and "probe.control" in stored)
        third = scrape(port)
        check("it carried the counts over (adopted 1)",
              third.get("netif_rx_exporter_probe_adopted") == 1
              and "its counts are carried over" in read_log("next_layout"))
        again = third.get("netif_rx_exporter_probe_attach_time_seconds", 0)
        check(f"the attach time stayed ({attach} -> {again})", abs(again - attach) < 0.01)
        down = [s for s in counters if third.get(s, -1) < second.get(s, 0)]
        check(f"no packet counter went down or away{(' (' + ', '.join(down[:3]) + ')') if down else ''}",
              not down)
        check(f"the previous layout's program (id {prog}) detached", program_gone(prog))
        prog = program_id(stored.get(f"probe.{new_layout}.program", [-1])[0])
        check("SIGTERM: exit 0", stop(pid) == 0)
        names = sorted(stored)

    # 3. Without --bpf.fd-store the stored probe is dropped from the store.
    port = free_port()
    passed = [(n, fd) for n in names for fd in stored[n]]
    pid = start("without", ["--config.file=/dev/null", f"--web.listen-address=127.0.0.1:{port}"],
                passed)
    check("an exporter without --bpf.fd-store says READY=1", receive(ready))
    check("... and drops every stored descriptor (FDSTOREREMOVE=1)", not stored)
    check("... attaching its own probe (adopted 0)",
          scrape(port).get("netif_rx_exporter_probe_adopted") == 0)
    check("SIGTERM: exit 0", stop(pid) == 0)
    for fds in stored.values():
        for fd in fds:
            os.close(fd)
    stored.clear()
    check(f"the store closed, the program (id {prog}) is gone", program_gone(prog))

    # 4. Outside systemd the flag fails at once, saying what to do.
    pid = start("outside", base_args + [f"--web.listen-address=127.0.0.1:{free_port()}"],
                with_notify=False)
    code = stop(pid, None)
    log = read_log("outside")
    check(f"without $NOTIFY_SOCKET: exit {code}, one line naming the fix",
          code != 0 and "$NOTIFY_SOCKET is not set" in log and "--bpf.pin-path" in log)


try:
    run()
finally:
    for leftover in list(running):
        stop(leftover, signal.SIGKILL)
    for kept in stored.values():
        for kept_fd in kept:
            os.close(kept_fd)
    stored.clear()
    notify.close()
    print(f"{len(failures)} failed")
    if failures:
        for name in ("first", "second", "next_layout", "without"):
            print(f"--- {name}.log (last 10 lines)")
            print("\n".join(read_log(name).splitlines()[-10:]))
    shutil.rmtree(work, ignore_errors=True)

sys.exit(1 if failures else 0)
