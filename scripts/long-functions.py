#!/usr/bin/env python3
"""Lists every `fn` in src/ longer than 80 lines (from the `fn` line to its closing brace, both counted; test code not counted)."""

# Usage: scripts/long-functions.py [--limit N] [--summary] [ROOT]
#
# The rule: a function's length is the number of lines from the line holding its `fn` keyword to the
# line holding the brace that closes its body, both included (attributes and doc comments above it
# are not counted). Code under `#[cfg(test)]` is not counted: inline `#[cfg(test)] mod … { … }`
# blocks are skipped, and so are the files that `#[cfg(test)] mod name;` pulls in. A function nested
# inside another is listed on its own as well (and its lines also count towards the outer one).
# Comments, strings, raw strings and character literals are skipped when matching braces.

import argparse
import os
import re
import sys


def strip_code(text):
    """Returns text with comments, strings and char literals blanked out (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r'b?r#*"', text[i:i + 40]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'(b?r)(#*)"', text[i:])
            hashes = m.group(2)
            end = text.find('"' + hashes, i + len(m.group(0)))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'])'", text[i:i + 16])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime or label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def matching_brace(code, open_at):
    """Index of the brace that closes the one at open_at."""
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])")
FN = re.compile(r"\bfn\s+(\w+)")


def test_module_files(path, code):
    """The files that `#[cfg(test)] mod name;` in path pulls in."""
    stem, _ = os.path.splitext(path)
    base = os.path.dirname(path) if os.path.basename(stem) in ("lib", "main", "mod") else stem
    files = []
    for m in TEST_MOD.finditer(code):
        if m.group(2) == ";":
            name = m.group(1)
            files += [os.path.join(base, name + ".rs"), os.path.join(base, name, "mod.rs")]
            files.append(os.path.join(base, name))  # a folder of test files under it
    return files


def long_functions(path, code, limit):
    """(line, name, length) of every function in code over limit lines, test modules excluded."""
    skipped = []
    for m in TEST_MOD.finditer(code):
        if m.group(2) == "{":
            skipped.append((m.start(), matching_brace(code, m.end() - 1)))
    found = []
    for m in FN.finditer(code):
        if any(a <= m.start() <= b for a, b in skipped):
            continue
        # The body opens at the first `{` after the signature; a `;` first means no body.
        j, depth = m.end(), 0
        while j < len(code):
            ch = code[j]
            if ch in "(<[":
                depth += 1
            elif ch in ")>]":
                depth -= 1 if not (ch == ">" and code[j - 1] == "-") else 0
            elif ch == ";" and depth <= 0:
                j = -1
                break
            elif ch == "{" and depth <= 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        close = matching_brace(code, j)
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, close) + 1
        length = last - first + 1
        if length > limit:
            found.append((first, m.group(1), length))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", nargs="?", default="src")
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--summary", action="store_true", help="only the counts")
    args = parser.parse_args()

    sources = {}
    for dirpath, _, names in os.walk(args.root):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    sources[path] = strip_code(f.read())
    excluded = set()
    for path, code in sources.items():
        excluded.update(os.path.normpath(p) for p in test_module_files(path, code))

    def is_test_file(path):
        p = os.path.normpath(path)
        return any(p == e or p.startswith(e + os.sep) for e in excluded)

    rows = []
    for path in sorted(sources):
        if is_test_file(path):
            continue
        for line, name, length in long_functions(path, sources[path], args.limit):
            rows.append((length, path, line, name))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    if not args.summary:
        for length, path, line, name in rows:
            print(f"{length:5}  {path}:{line}  {name}")
    root = os.path.normpath(args.root)
    def area(path):
        rel = os.path.relpath(path, root).split(os.sep)[0]
        rel = rel[:-3] if rel.endswith(".rs") else rel
        return rel if rel in ("tui", "cli", "main") else "engine"
    counts = {}
    for _, path, _, _ in rows:
        counts[area(path)] = counts.get(area(path), 0) + 1
    detail = ", ".join(f"{k} {counts.get(k, 0)}" for k in ("tui", "cli", "main", "engine"))
    print(f"{len(rows)} functions over {args.limit} lines ({detail})")


if __name__ == "__main__":
    sys.exit(main())
