#!/usr/bin/env python3
"""Counts the lines of code of each Rust file, and names those over a cap.

usage: code-lines.py MAX DIR...   exits 1 if a file under a DIR has more than MAX lines of code.

A line of code is a line with something on it once comments are taken out: blank lines, comment lines and doc
comments do not count (a cap must not push out the comments that say why), and neither do the items under
`#[cfg(test)]` (tests beside the code are wanted, however long).
"""

import importlib.util
import sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("import_cycles", Path(__file__).with_name("import-cycles.py"))
rust = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rust)


def code_lines(text):
    """How many lines of `text` have code on them, comments and test items aside (a line inside a string counts)."""
    kept = rust.drop_tests(rust.strip(text, literal="x"))
    return sum(1 for line in kept.splitlines() if line.strip())


def main(args):
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cap = int(args[0])
    over = []
    for src in args[1:]:
        for file in sorted(Path(src).rglob("*.rs")):
            n = code_lines(file.read_text())
            if n > cap:
                over.append((n, file))
    for n, file in over:
        print(f"{file} has {n} lines of code, tests and comments aside (at most {cap})")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
