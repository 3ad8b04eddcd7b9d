#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make corpus: timerconv on real old-API driver files, and a lint of what
it wrote.

The corpus (../shared/corpus next to this repository, or --corpus DIR) is
third-party code: it is read from there and copied to a temporary git
tree at run time, never into this repository.  The run is

    timerconv convert -C TREE --in-place --report REPORT

and this prints the old-API sites found, converted, refused by reason
(most frequent first), files changed, spatch time-outs, wall time and
peak RSS.  Then it lints its own output:

  - a converted callback keeps no old prototype and no old-API setup;
  - from_timer()'s field is the field of every timer_setup() and
    .function assignment of that callback;
  - no callback still takes unsigned long while a timer_setup() names it;
  - no timer_setup() carries data in its flags argument.

Exit status: 0 clean, 1 lint errors, 2 a crash, a time-out or an error.
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TC = Path(os.environ.get("TIMERCONV_BIN", ROOT / "build" / "timerconv"))
OLD_PARAM = r"(?:unsigned\s+long(?:\s+int)?|long(?:\s+int)?|ulong|u_long)"
OLD_SETUP = (r"\b(?:__)?setup_(?:pinned_|deferrable_|pinned_deferrable_)?"
             r"timer(?:_on_stack)?\s*\(")
FLAGS = re.compile(r"^\s*(?:0|TIMER_[A-Z_]+(?:\s*\|\s*TIMER_[A-Z_]+)*)\s*$")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def default_corpus():
    return ROOT.parent / "shared" / "corpus"


def make_tree(corpus, dst):
    shutil.copytree(corpus, dst,
                    ignore=shutil.ignore_patterns("MANIFEST.tsv", "*.md"))
    env = dict(os.environ, GIT_AUTHOR_NAME="corpus", GIT_COMMITTER_NAME="corpus",
               GIT_AUTHOR_EMAIL="corpus@example.org",
               GIT_COMMITTER_EMAIL="corpus@example.org")
    for cmd in (["init", "-q"], ["add", "-A"],
                ["commit", "-q", "-m", "corpus"]):
        subprocess.run(["git", *cmd], cwd=dst, check=True, env=env,
                       capture_output=True)


def read(path):
    return path.read_bytes().decode("latin-1")


def split_args(text, open_at):
    """The arguments of the call whose '(' is at text[open_at]."""
    depth, args, start = 0, [], open_at + 1
    for i in range(open_at, len(text)):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return args
        elif c == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
    return None


def calls(text, name):
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), text):
        args = split_args(text, m.end() - 1)
        if args is not None:
            yield text.count("\n", 0, m.start()) + 1, args


def last_field(timer):
    """&p->a.b[2] -> "b[2]" (from_timer()'s field is the part after the
    last ->, or after & for &s.a)."""
    t = re.sub(r"\s+", "", timer).lstrip("&").strip("()")
    if "->" in t:
        return t.rsplit("->", 1)[1]
    return t.split(".", 1)[1] if "." in t else None


def body_of(text, name):
    """The body of the definition of name(struct timer_list *...)."""
    m = re.search(r"\b%s\s*\(\s*struct\s+timer_list\s*\*\s*\w*\s*\)\s*\{"
                  % re.escape(name), text)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[m.end():i]
    return None


def own_static_old(text, name):
    """Does text define its own static name(unsigned long)?  Another
    file's function of that name is then not this one's: C links a static
    function only in its own file."""
    return re.search(r"\bstatic\s+(?:inline\s+)?void\s+%s\s*\(\s*%s\s*\w*"
                     r"\s*\)\s*\{" % (re.escape(name), OLD_PARAM),
                     text) is not None


def lint(tree, report):
    errors = []
    files = {p: read(p) for p in tree.rglob("*") if p.suffix in (".c", ".h")}
    converted = set()
    for unit in report["units"]:
        if unit.get("outcome") == "converted":
            converted.update(unit.get("callbacks", []))
    for path, text in files.items():
        rel = path.relative_to(tree)
        for line, args in calls(text, "timer_setup"):
            if len(args) != 3:
                continue
            if not FLAGS.match(args[2]):
                errors.append("%s:%d: timer_setup() flags are not flags: %s"
                              % (rel, line, args[2].strip()))
            fn = re.sub(r"^\s*&?\s*", "", args[1]).strip()
            if not re.match(r"^\w+$", fn) or fn == "NULL":
                continue
            for p2, t2 in files.items():
                if p2 != path and own_static_old(t2, fn):
                    continue
                if re.search(r"\b%s\s*\(\s*%s\s*\w*\s*\)\s*\{"
                             % (re.escape(fn), OLD_PARAM), t2):
                    errors.append("%s:%d: timer_setup() names %s(), which "
                                  "still takes unsigned long (%s)"
                                  % (rel, line, fn, p2.relative_to(tree)))
        for name in converted:
            if not re.search(r"\b%s\b" % re.escape(name), text):
                continue
            # a file with its own static function of that name, which it
            # does not hand to a new-API timer, keeps it as it was
            if own_static_old(text, name) and not any(
                    re.sub(r"[\s&]", "", a[1]) == name
                    for _, a in calls(text, "timer_setup") if len(a) == 3):
                continue
            if re.search(r"\b%s\s*\(\s*%s\s*\w*\s*\)\s*[;{]"
                         % (re.escape(name), OLD_PARAM), text):
                errors.append("%s: converted callback %s() keeps an old "
                              "prototype" % (rel, name))
            for m in re.finditer(OLD_SETUP, text):
                args = split_args(text, m.end() - 1)
                if args and len(args) > 1 and re.search(
                        r"\b%s\b" % re.escape(name), args[1]):
                    errors.append("%s:%d: converted callback %s() keeps "
                                  "an old-API setup" % (
                                      rel, text.count("\n", 0, m.start()) + 1,
                                      name))
            body = body_of(text, name)
            if body is None:
                continue
            fields = set()
            for _, a in calls(body, "from_timer"):
                if len(a) == 3:
                    fields.add(re.sub(r"\s+", "", a[2]))
            for _, a in calls(body, "timer_container_of"):
                if len(a) == 3:
                    fields.add(re.sub(r"\s+", "", a[2]))
            for p2, t2 in files.items():
                for line, args in calls(t2, "timer_setup"):
                    if len(args) == 3 and re.sub(r"[\s&]", "", args[1]) \
                            == name:
                        f = last_field(args[0])
                        for field in fields:
                            if f and f != field and not f.endswith(
                                    "." + field) and not field.endswith(f):
                                errors.append(
                                    "%s:%d: timer_setup() of %s on %s, but "
                                    "%s() recovers its container at %s"
                                    % (p2.relative_to(tree), line, name,
                                       f, name, field))
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=default_corpus())
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true",
                    help="keep the converted tree and print where it is")
    ap.add_argument("--timeout", type=int, default=1800,
                    help="seconds the whole run may take")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        log("corpus: %s not found (give --corpus DIR)" % args.corpus)
        return 2
    work = Path(tempfile.mkdtemp(prefix="timerconv-corpus."))
    tree = work / "tree"
    report = work / "report.json"
    make_tree(args.corpus, tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    try:
        proc = subprocess.run([str(TC), "convert", "-C", str(tree),
                               "--in-place", "--jobs", str(args.jobs),
                               "--report", str(report)],
                              capture_output=True, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        log("corpus: timerconv did not finish in %d s" % args.timeout)
        return 2
    wall = time.monotonic() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0 or not report.exists():
        log("corpus: timerconv exited with %d" % proc.returncode)
        return 2
    rep = json.loads(report.read_text())
    s = rep["summary"]
    reasons = Counter()
    for site in rep["sites"]:
        if site["outcome"] != "converted":
            reasons[site["reason"]] += 1
    timeouts = s.get("files_timed_out", [])
    print("corpus: %s (%d files)" % (args.corpus, sum(
        1 for p in tree.rglob("*") if p.suffix in (".c", ".h"))))
    print("old-API sites: %d found, %d converted (%.1f %%), %d refused"
          % (s["sites"], s["converted"],
             100.0 * s["converted"] / max(s["sites"], 1), s["refused"]))
    print("units: %d of %d converted; files changed: %d"
          % (s["units_converted"], s["units"], s["files_changed"]))
    print("spatch time-outs: %d%s" % (len(timeouts), (" (%s)" % ", ".join(
        timeouts)) if timeouts else ""))
    print("wall time: %.1f s; peak RSS: %.0f MiB"
          % (wall, max(rss, before) / 1024.0))
    print("refused, by reason:")
    for reason, n in reasons.most_common():
        print("  %4d  %s" % (n, reason))
    errors = lint(tree, rep)
    print("lint: %d error%s" % (len(errors), "" if len(errors) == 1 else "s"))
    for e in errors:
        print("  " + e)
    if args.keep:
        print("converted tree: %s" % tree)
    else:
        shutil.rmtree(work)
    if timeouts:
        return 2
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
