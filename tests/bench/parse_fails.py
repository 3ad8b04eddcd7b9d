#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Which functions can spatch not parse?  (cocci/kernel_macros.h)

Runs `spatch --parse-c` on files, as timerconv runs spatch (with its
default macro file, cocci/kernel_macros.h, unless --no-macros), and
counts the top-level definitions in which spatch reports a parse
error: each such function is one that timerconv cannot convert ("not
parsed: spatch could not parse the definition of f()").  The files are
those timerconv would run spatch on in --tree (its --scan-only list),
../shared/corpus (--corpus), or the ones named.

    tests/bench/parse_fails.py --corpus [--no-macros] [--list]
    tests/bench/parse_fails.py --tree TREE [--macro-file FILE] [--list]

Prints the count of bad functions and, with --list, each with the line
spatch stopped at.
"""

import argparse
import os
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TC = Path(os.environ.get("TIMERCONV_BIN", ROOT / "build" / "timerconv"))
MACROS = ROOT / "cocci" / "kernel_macros.h"
ERROR = re.compile(r'^ = File "(.*)", line (\d+), column \d+')
BATCH = 16


def scan_list(tree):
    out = subprocess.run([str(TC), "convert", "--scan-only", "-q", "-C",
                          str(tree)], capture_output=True, text=True,
                         check=True).stdout
    return [tree / line for line in out.splitlines() if line.strip()]


def corpus_list():
    corpus = ROOT.parent / "shared" / "corpus"
    return sorted(p for p in corpus.rglob("*")
                  if p.suffix in (".c", ".h") and p.is_file())


def strip(text):
    """The text with comments and strings blanked, newlines kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|'
                  r"'(?:\\.|[^'\\\n])*'", blank, text, flags=re.S)


NOT_NAMES = {"__attribute__", "__acquires", "__releases", "__must_hold",
             "__printf", "__aligned", "__section", "__attribute",
             "__scanf", "__cond_lock", "__cond_acquires", "__alloc_size",
             "__assume_aligned"}


def func_name(head):
    """The name a definition's head `type name(params) attrs {` gives,
    or None for what is not a function (an initializer, a struct)."""
    depth = 0
    for c in head:
        depth += c == "("
        depth -= c == ")"
        if c == "=" and depth == 0:
            return None
    for m in re.finditer(r"(\w+)\s*\(", head):
        if m.group(1) not in NOT_NAMES:
            return m.group(1)
    return None


def toplevel(text):
    """[(first line, last line, name)] of the top-level items with a
    brace body; name is the function's for a definition, else None."""
    items, depth, start, head = [], 0, None, []
    lines = strip(text).split("\n")
    in_define = False
    for no, line in enumerate(lines, 1):
        if in_define or line.lstrip().startswith("#"):
            in_define = line.rstrip().endswith("\\")
            continue
        for c in line:
            if depth == 0:
                head.append(c)
            if c == "{":
                if depth == 0:
                    start = no
                    name = func_name("".join(head))
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    items.append((start, no, name))
                    head = []
                if depth < 0:
                    depth = 0
            elif c == ";" and depth == 0:
                head = []
        if depth == 0:
            head.append("\n")
    return items


def run_batch(files, macro_args):
    out = subprocess.run(["spatch", "--parse-c", "--no-includes", *macro_args,
                          *map(str, files)], capture_output=True,
                         text=True, errors="replace")
    errors = []
    lines = (out.stdout + out.stderr).splitlines()
    for i, line in enumerate(lines):
        m = ERROR.match(line)
        if m and i and lines[i - 1].startswith("parse error"):
            content = ""
            for follow in lines[i + 1:i + 4]:
                if follow.startswith("  whole content = "):
                    content = follow[len("  whole content = "):]
            errors.append((m.group(1), int(m.group(2)), content))
    return errors


def bad_functions(files, macro_args, jobs):
    batches = [files[i:i + BATCH] for i in range(0, len(files), BATCH)]
    wanted = {str(f) for f in files}
    bad = {}
    with ThreadPoolExecutor(jobs) as ex:
        for errors in ex.map(lambda b: run_batch(b, macro_args), batches):
            for path, line, content in errors:
                if path not in wanted:
                    continue  # standard.h's own
                items = toplevel(Path(path).read_bytes().decode("latin-1"))
                hit = [it for it in items if it[0] <= line <= it[1]]
                if hit and hit[0][2]:
                    key = (path, hit[0][0], hit[0][2])
                else:
                    key = (path, line, None)
                bad.setdefault(key, (line, content.strip()))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path)
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--no-macros", action="store_true",
                    help="spatch's builtin macros only, not ours")
    ap.add_argument("--macro-file", type=Path, action="append",
                    default=[], help="also this macro file")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    files = list(args.files)
    if args.tree:
        files += scan_list(args.tree.resolve())
    if args.corpus:
        files += corpus_list()
    macro_args = [] if args.no_macros else ["--macro-file", str(MACROS)]
    for m in args.macro_file:
        macro_args += ["--macro-file", str(m)]
    bad = bad_functions(files, macro_args, args.jobs)
    funcs = [k for k in bad if k[2]]
    if args.list:
        for (path, _, name), (line, content) in sorted(bad.items()):
            print("%s:%d: %s: %s" % (path, line, name or
                                     "(outside a function)", content))
    print("files: %d; bad functions: %d; bad lines outside functions: %d"
          % (len(files), len(funcs), len(bad) - len(funcs)))


if __name__ == "__main__":
    sys.exit(main())
