#!/usr/bin/env python3
"""Runs clang-tidy (.clang-tidy) on the sources under the given folders, with a
build's compile_commands.json, files in parallel. A file whose preprocessed
text, flags, .clang-tidy and clang-tidy version are unchanged since a clean
run is skipped: what clang-tidy would see is the same, so is its verdict. The
cache is the user's, beside ccache's ($NETIF_RX_TIDY_CACHE, else
$XDG_CACHE_HOME or ~/.cache, then netif_rx_exporter/clang-tidy), so that a new
clone or build directory reuses it as its compiles reuse ccache's. Exits 1 on
any finding."""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_commands(build):
    path = os.path.join(build, "compile_commands.json")
    with open(path, encoding="utf-8") as f:
        return {os.path.realpath(os.path.join(e["directory"], e["file"])): e for e in json.load(f)}


def preprocess_key(entry, config, build):
    """A hash of what clang-tidy would see: the file with its headers expanded."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    args = [a for a in args if a != "ccache"]
    out = []
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = a == "-o"
            continue
        out.append(a)
    result = subprocess.run([args[0], "-E", "-P", *out], cwd=entry["directory"],
                            capture_output=True, check=False)
    if result.returncode != 0:
        return None
    # The clone's and the build's paths (in __FILE__ and in the flags) are
    # left out, as ccache's base_dir does: another clone of the same text
    # gets the same verdict.
    digest = hashlib.sha256(without_paths(result.stdout, build))
    digest.update(config)
    digest.update(without_paths(" ".join(out).encode(), build))
    return digest.hexdigest()


def without_paths(text, build):
    return text.replace(build.encode(), b"<build>").replace(ROOT.encode(), b"<source>")


def tidy(path, entry, build, config, cache_dir):
    """(path, passed, cached, what to print when it did not pass)."""
    key = preprocess_key(entry, config, build)
    stamp = os.path.join(cache_dir, key) if key else None
    if stamp and os.path.exists(stamp):
        return path, True, True, ""
    result = subprocess.run(["clang-tidy", "--quiet", "-p", build, path], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    ok = result.returncode == 0 and "warning:" not in result.stdout
    if ok and stamp:
        open(stamp, "w", encoding="utf-8").close()
    # A failure that printed no finding (clang-tidy itself failed) says why.
    why = result.stdout + result.stderr if not ok else ""
    if not ok and not why.strip():
        why = f"{path}: clang-tidy exited with status {result.returncode}\n"
    return path, ok, False, why


def tidy_cache_dir():
    if os.environ.get("NETIF_RX_TIDY_CACHE"):
        return os.environ["NETIF_RX_TIDY_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "netif_rx_exporter", "clang-tidy")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/test")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("folders", nargs="+")
    options = parser.parse_args()
    build = os.path.abspath(options.build)
    with open(os.path.join(ROOT, ".clang-tidy"), "rb") as f:
        config = f.read()
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=False)
    config += version.stdout
    cache_dir = tidy_cache_dir()
    os.makedirs(cache_dir, exist_ok=True)
    commands = compile_commands(build)
    prefixes = [os.path.join(ROOT, folder.rstrip("/")) + os.sep for folder in options.folders]
    files = sorted(p for p in commands if any(p.startswith(prefix) for prefix in prefixes))
    if not files:
        print("clang-tidy: no files of " + " ".join(options.folders) + " in " + build)
        return 1
    started = time.monotonic()
    failed = []
    cached = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        jobs = [pool.submit(tidy, p, commands[p], build, config, cache_dir) for p in files]
        for job in concurrent.futures.as_completed(jobs):
            path, ok, was_cached, output = job.result()
            cached += was_cached
            if not ok:
                failed.append(path)
                sys.stdout.write(output)
    print(f"clang-tidy: {len(files)} files ({cached} unchanged since a clean run, in "
          f"{cache_dir}), {len(failed)} with findings or failures, {time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
