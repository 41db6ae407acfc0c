#!/usr/bin/env python3
"""Fails when an #include of daemon/ runs back up the layers.

The folders of daemon/ are layers, lowest first. A file may include headers of
its own folder and of the folders below it, never of a folder above: so the
lower layers build and test without the upper ones, and there are no circles.
"""
import pathlib
import re
import sys

# Lowest first: each may include only itself and what comes before it.
LAYERS = ["util", "sys", "cli", "config", "counters", "bpf_stats", "continuity", "probe", "devices",
          "owners", "drops", "napi", "routes", "pipeline", "metrics", "web", "top", "app"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"')


def violations(root):
    rank = {name: i for i, name in enumerate(LAYERS)}
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in (".h", ".cpp", ".in") or not path.is_file():
            continue
        layer = path.relative_to(root).parts[0]
        if layer not in rank:
            found.append(f"{path}: folder '{layer}' is not in the layer list of {__file__}")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or match.group(1) not in rank:
                continue
            target = match.group(1)
            if rank[target] > rank[layer]:
                found.append(f"{path}:{number}: {layer}/ includes {target}/, a layer above it")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "daemon")
    if not root.is_dir():
        print(f"check-layers: no folder {root}", file=sys.stderr)
        return 2
    found = violations(root)
    for line in found:
        print(f"check-layers: {line}", file=sys.stderr)
    if found:
        print(f"check-layers: {len(found)} include(s) run up the layers "
              f"({' < '.join(LAYERS)})", file=sys.stderr)
        return 1
    print(f"check-layers: every include of {root}/ points down ({' < '.join(LAYERS)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
