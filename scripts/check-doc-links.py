#!/usr/bin/env python3
"""Fails when a relative link or image of the Markdown documentation points nowhere.

Checks README.md, docs/**/*.md and every other *.md file tracked in git (all of
them when the tree is not a git checkout). For each inline link or image
([text](target), ![alt](target)) and each reference definition ([id]: target):

- a relative target must name a file or folder that exists (relative to the
  Markdown file; a leading / is the repository's root);
- an #anchor, alone (this file) or after a Markdown file's name, must be the
  anchor of one of that file's headings, by GitHub's rules: lowercase, spaces
  to '-', every other character but letters, digits, '-' and '_' removed, and
  -1, -2, ... appended to repeated headings.

External links (http:, https:, mailto: and any other scheme) are not fetched.
Text inside code (fenced blocks and `code spans`) holds no links.
Prints one line per broken link, file:line: target (why), and exits 1 if there
is any; else prints a one-line summary and exits 0.

Usage: check-doc-links.py [REPOSITORY_ROOT]
"""
import os
import pathlib
import re
import subprocess
import sys
import unicodedata
from urllib.parse import unquote

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
HTML_ANCHOR = re.compile(r"""<a\s+[^>]*(?:name|id)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:[ \t]*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.DOTALL)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def markdown_files(root):
    """README.md, docs/**/*.md and the other tracked *.md files, sorted."""
    files = set()
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", "*.md"],
                                check=True, capture_output=True, text=True).stdout
        files.update(root / name for name in listed.split("\0") if name)
    except (OSError, subprocess.CalledProcessError):
        files.update(path for path in root.rglob("*.md")
                     if ".git" not in path.relative_to(root).parts
                     and not path.relative_to(root).parts[0].startswith("build"))
    if (root / "README.md").is_file():
        files.add(root / "README.md")
    if (root / "docs").is_dir():
        files.update((root / "docs").rglob("*.md"))
    return sorted(path for path in files if path.is_file())


def strip_code_spans(line):
    """The line with the text of `code spans` blanked (kept the same length)."""
    return CODE_SPAN.sub(lambda match: " " * len(match.group(0)), line)


def prose_lines(text):
    """(line number, text) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence:
            # A fence closes with the same character, at least as long, and nothing after it.
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence) \
                    and not line.strip()[len(match.group(1)):].strip():
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield number, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"<[^>]+>", "", heading)                       # inline HTML
    text = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", text)        # images: their alt text
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)         # links: their text
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = text.lower()
    kept = []
    for char in text:
        if char in "-_" or char == " ":
            kept.append(char)
        elif unicodedata.category(char)[0] in "LNM":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors(text):
    """Every anchor a file's headings (and explicit <a name/id>) define."""
    found = set()
    seen = {}
    previous = None
    for _, line in prose_lines(text):
        for name in HTML_ANCHOR.findall(line):
            found.add(name)
        heading = None
        match = ATX_HEADING.match(line)
        if match:
            heading = match.group(2) or ""
        elif previous is not None and previous.strip() and SETEXT_UNDERLINE.match(line) \
                and not previous.lstrip().startswith(("-", "*", "+", "|", ">")):
            heading = previous.strip()
        previous = line
        if heading is None:
            continue
        base = slug(heading.strip())
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def link_targets(line):
    """The targets of the inline links, images and reference definitions of a line."""
    prose = strip_code_spans(line)
    definition = REFERENCE_DEFINITION.match(prose)
    if definition:
        yield definition.group(2).strip("<>")
        return
    index = 0
    while True:
        start = prose.find("](", index)
        if start < 0:
            return
        # The target runs to the ')' that balances the '(' (targets may hold parentheses).
        depth = 0
        end = start + 1
        while end < len(prose):
            char = prose[end]
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
            end += 1
        if end >= len(prose):
            return
        target = line[start + 2:end].strip()
        if target.startswith("<") and ">" in target:
            target = target[1:target.index(">")]
        else:
            target = target.split()[0] if target.split() else ""
        yield target
        index = end + 1


class Checker:
    def __init__(self, root):
        self.root = pathlib.Path(os.path.abspath(root))
        self.anchor_cache = {}

    def anchors_of(self, path):
        if path not in self.anchor_cache:
            self.anchor_cache[path] = anchors(path.read_text(encoding="utf-8", errors="replace"))
        return self.anchor_cache[path]

    def problem(self, source, target):
        """Why `target`, linked from `source`, is broken; None when it resolves."""
        if not target or SCHEME.match(target) or target.startswith("//"):
            return None
        address, _, fragment = target.partition("#")
        address = unquote(address.split("?", 1)[0])
        if address:
            base = self.root if address.startswith("/") else source.parent
            # Lexically, so that a link through a symbolic link stays inside the tree.
            path = pathlib.Path(os.path.normpath(base / address.lstrip("/")))
            if not path.exists():
                return "no such file"
            try:
                path.relative_to(self.root)
            except ValueError:
                return "outside the repository"
        else:
            path = source
        if not fragment:
            return None
        if path.is_dir() or path.suffix.lower() not in (".md", ".markdown"):
            return None  # anchors of source files (#L10) and folders are GitHub's views
        if unquote(fragment) not in self.anchors_of(path):
            return f"no heading with anchor #{fragment} in {path.relative_to(self.root)}"
        return None

    def check(self, path):
        broken = []
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in prose_lines(text):
            for target in link_targets(line):
                why = self.problem(path, target)
                if why:
                    broken.append(f"{path.relative_to(self.root)}:{number}: {target} ({why})")
        return broken


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    if not root.is_dir():
        print(f"check-doc-links: no folder {root}", file=sys.stderr)
        return 2
    checker = Checker(root)
    files = markdown_files(checker.root)
    broken = []
    links = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        links += sum(1 for _, line in prose_lines(text) for _ in link_targets(line))
        broken.extend(checker.check(path))
    for line in broken:
        print(line)
    if broken:
        print(f"check-doc-links: {len(broken)} broken link(s) in {len(files)} Markdown files",
              file=sys.stderr)
        return 1
    print(f"check-doc-links: {links} links in {len(files)} Markdown files, every relative "
          f"target and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
