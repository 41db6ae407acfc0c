#!/usr/bin/env python3
"""Prints what each part of make test took, and fails past the suite's time ceiling.

Reads the parts' wall times that scripts/test-suite.sh recorded (installing packages, building,
the format check, the tests), each test's time from ctest's JUnit file and each test's labels
from ctest itself, and prints:
  - the parts, in the order they ran;
  - the tests by label (the sum of the tests' own times: ctest runs one test per core, so these
    overlap and add up to more than the tests' wall time), with the longest test of each;
  - the longest tests;
  - the whole run's wall time against the ceiling;
  - last, 'tests: N passed, N failed' (and skipped).
Exit status 1 when the whole run took longer than the ceiling, 2 on unusable input.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree


def minutes_and_seconds(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def read_parts(path):
    parts = []
    for line in pathlib.Path(path).read_text().splitlines():
        name, _, seconds = line.rpartition("\t")
        if name:
            parts.append((name, float(seconds)))
    return parts


def read_test_times(junit):
    """{test name: (seconds, status)} from ctest's --output-junit file."""
    times = {}
    if not junit.is_file():
        return times
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        times[case.get("name")] = (float(case.get("time") or 0), case.get("status") or "")
    return times


def read_labels(build):
    """{test name: [labels]} from ctest --show-only=json-v1."""
    shown = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                           text=True, check=False)
    labels = {}
    try:
        tests = json.loads(shown.stdout).get("tests", [])
    except json.JSONDecodeError:
        return labels
    for test in tests:
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels[test["name"]] = list(prop.get("value", []))
    return labels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the test build's directory")
    parser.add_argument("--parts", required=True, help="NAME<TAB>SECONDS lines, in order")
    parser.add_argument("--start", type=float, required=True, help="when make test started (epoch)")
    parser.add_argument("--ceiling-minutes", type=float, required=True)
    parser.add_argument("--longest", type=int, default=10, help="how many longest tests to list")
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    if not build.is_dir():
        print(f"test-timings: no build directory {build}", file=sys.stderr)
        return 2

    parts = read_parts(args.parts)
    times = read_test_times(build / "ctest-junit.xml")
    labels = read_labels(build)
    total = time.time() - args.start

    print("\nmake test, part by part (wall time):")
    width = max([18] + [len(name) for name, _ in parts])
    for name, seconds in parts:
        print(f"  {name:<{width}} {minutes_and_seconds(seconds):>14}")

    by_label = {}
    for name, (seconds, _) in times.items():
        label = (labels.get(name) or ["(no label)"])[0]
        count, summed, longest = by_label.get(label, (0, 0.0, ("", 0.0)))
        if seconds > longest[1]:
            longest = (name, seconds)
        by_label[label] = (count + 1, summed + seconds, longest)
    if by_label:
        print("tests by label (each test's own time, summed; several run at once):")
        for label, (count, summed, longest) in sorted(by_label.items(), key=lambda i: -i[1][1]):
            print(f"  {label:<12} {count:>4} tests {minutes_and_seconds(summed):>14}"
                  f"   longest {longest[0]} {minutes_and_seconds(longest[1])}")
        print("longest tests:")
        for name, (seconds, _) in sorted(times.items(), key=lambda i: -i[1][0])[:args.longest]:
            print(f"  {name:<40} {minutes_and_seconds(seconds):>14}")

    ceiling = args.ceiling_minutes * 60
    verdict = 0
    if total > ceiling:
        print(f"make test: took {minutes_and_seconds(total)}, over its ceiling of "
              f"{minutes_and_seconds(ceiling)} (TEST_CEILING_MINUTES): the parts above say "
              f"which grew; docs/development.md says what each should cost", file=sys.stderr)
        verdict = 1
    else:
        print(f"make test: {minutes_and_seconds(total)} in all, within its ceiling of "
              f"{minutes_and_seconds(ceiling)}")
    passed = sum(1 for seconds, status in times.values() if status == "run")
    failed = sum(1 for seconds, status in times.values() if status == "fail")
    skipped = len(times) - passed - failed
    print(f"tests: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return verdict


if __name__ == "__main__":
    sys.exit(main())
