#!/usr/bin/env python3
"""Replaces the generated block of a Markdown file with a run's output.

    update-doc-block.py NAME FILE [OUTPUT]

The block is everything between the lines `<!-- NAME -->` and
`<!-- end NAME -->` of FILE; it becomes OUTPUT (or standard input), below a
line that says when and where it was measured. `make bench` and `make stress`
keep the tables of docs/performance.md this way: a figure in the docs is the
one a run printed, never typed by hand.
"""
import datetime
import os
import platform
import sys


def describe_machine():
    cpus = os.cpu_count() or 0
    load = os.getloadavg()[0]
    return (f"Generated on {datetime.date.today().isoformat()} on a {cpus}-CPU machine, "
            f"kernel {platform.release()}, load average {load:.1f} at the end of the run.")


def as_markdown(body):
    """The run's lines, each table with a blank line around it and each other
    line a paragraph of its own, so that Markdown renders them as printed."""
    out = []
    for line in body.strip("\n").split("\n"):
        is_table = line.startswith("|")
        was_table = bool(out) and out[-1].startswith("|")
        if out and out[-1] != "" and not (is_table and was_table):
            out.append("")
        out.append(line)
    return "\n".join(out)


def replace_block(text, name, body):
    start = f"<!-- {name} -->"
    end = f"<!-- end {name} -->"
    lines = text.split("\n")
    try:
        first = lines.index(start)
        last = lines.index(end, first + 1)
    except ValueError:
        raise SystemExit(f"update-doc-block: no '{start}' ... '{end}' block in the file")
    block = ["", describe_machine(), "", as_markdown(body), ""]
    return "\n".join(lines[:first + 1] + block + lines[last:])


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__.strip().split("\n\n")[1])
    name, path = sys.argv[1], sys.argv[2]
    body = open(sys.argv[3]).read() if len(sys.argv) == 4 else sys.stdin.read()
    if not body.strip():
        raise SystemExit("update-doc-block: the run printed nothing; the file is left as it was")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(replace_block(text, name, body))
    print(f"update-doc-block: {path}: the {name} block is this run's")


if __name__ == "__main__":
    main()
