#!/usr/bin/env python3
"""Runs clang-tidy (.clang-tidy) on the sources under the given folders, with a
build's compile_commands.json, files in parallel. A file whose preprocessed
text, flags and .clang-tidy are unchanged since its last clean run is skipped
(the cache lives in the build directory). Exits 1 on any finding."""
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


def preprocess_key(entry, config):
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
    digest = hashlib.sha256(result.stdout)
    digest.update(config)
    digest.update(" ".join(out).encode())
    return digest.hexdigest()


def tidy(path, entry, build, config, cache_dir):
    key = preprocess_key(entry, config)
    stamp = os.path.join(cache_dir, key) if key else None
    if stamp and os.path.exists(stamp):
        return path, True, ""
    result = subprocess.run(["clang-tidy", "--quiet", "-p", build, path], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    ok = result.returncode == 0 and "warning:" not in result.stdout
    if ok and stamp:
        open(stamp, "w", encoding="utf-8").close()
    return path, ok, result.stdout if not ok else "checked"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build/test")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("folders", nargs="+")
    options = parser.parse_args()
    build = os.path.abspath(options.build)
    with open(os.path.join(ROOT, ".clang-tidy"), "rb") as f:
        config = f.read()
    cache_dir = os.path.join(build, "clang-tidy-cache")
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
            path, ok, output = job.result()
            cached += output == ""
            if not ok:
                failed.append(path)
                sys.stdout.write(output)
    print(f"clang-tidy: {len(files)} files, {len(failed)} with findings, "
          f"{time.monotonic() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
