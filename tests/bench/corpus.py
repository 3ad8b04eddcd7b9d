#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make corpus: timerconv on real old-API driver files, a lint of what
it wrote, and a build of what it changed with linux 4.14's own kbuild.

The corpus (../shared/corpus next to this repository, or --corpus DIR) is
third-party code: it is read from there and copied to a temporary git
tree at run time, never into this repository.  Each mode converts a
fresh copy of its own:

    timerconv convert -C TREE --in-place --report REPORT [--keep-data]

default first, then --keep-data (--mode runs one alone).  For each, under
a header line (== default ==, == --keep-data ==), this prints the
old-API sites found, converted, refused by reason (most frequent first),
files changed, spatch time-outs and failures, wall time and peak RSS.
Then it lints that mode's output (what #if 0 hides aside):

  - a converted callback keeps no old prototype and no old-API setup;
  - from_timer()'s field is the field of every timer_setup() and
    .function assignment of that callback;
  - no callback still takes unsigned long while a timer_setup() names it;
  - no timer_setup() carries data in its flags argument.

Then (unless --no-build) it compiles every changed .c file before and
after with the kbuild of the real linux 4.14 tree of ../shared/kbuild,
set up from the tarball in a temporary directory (--kbuild-cache DIR
keeps it for the next run).  Each file goes into the kernel tree at its
corpus path less the first component, with the headers of its corpus
directory beside it, and its object is built with make O=DIR path/file.o;
the tree is put back as it was afterwards.  The corpus has no timer.h, so
it is converted to v4.15's forms, which 4.14 does not have: the build
check converts a copy of its own with --target v4.14, as timerconv would
inside a 4.14 tree.  Most corpus files come from 3.x kernels and do not
build against 4.14 at all; they are counted, not judged.  A file that
built before and fails after is listed with its first errors.

It takes about two and a half minutes on two cores: some 10 s a
conversion, 25 s to extract and prepare the kbuild (none with a prepared
--kbuild-cache) and 30 to 40 s a mode to build; with --no-build, about
25 s.  The last two lines sum the modes up: converted/sites, percent.

Exit status, over both modes: 0 clean, 1 lint errors or a file that
stopped building, 2 a crash, a time-out or an error.
"""

import argparse
import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, namedtuple
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
# tests/oldkbuild.py: the old kbuild trees, as the tests set them up
import oldkbuild  # noqa: E402

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


COND = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)")
LITERAL = re.compile(r"^\s*([01])\s*(?:/[/*].*)?$")


def live_text(text):
    """text with the lines under #if 0 (and #else of #if 1) blanked, line
    numbers kept: timerconv leaves dead code as it was ("dead code
    (#if 0)"), and what the compiler never sees is not the lint's."""
    out, stack = [], []     # per open #if: [dead now, literal value]
    for line in text.split("\n"):
        m = COND.match(line)
        kw = m.group(1) if m else None
        frames = stack[:-1] if kw in ("elif", "else", "endif") else stack
        out.append("" if any(f[0] for f in frames) else line)
        if kw == "if":
            lit = LITERAL.match(m.group(2))
            value = int(lit.group(1)) if lit else None
            stack.append([value == 0, value])
        elif kw in ("ifdef", "ifndef"):
            stack.append([False, None])
        elif kw in ("elif", "else") and stack:
            # after #if 1 nothing else is compiled; after #if 0 it may be
            stack[-1][0] = stack[-1][1] == 1
        elif kw == "endif" and stack:
            stack.pop()
    return "\n".join(out)


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
    files = {p: live_text(read(p)) for p in tree.rglob("*")
             if p.suffix in (".c", ".h")}
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



# ---- the build check: linux 4.14's own kbuild, before and after ----

KVERSION = "4.14"
KLEVEL = "v4.14"  # its timer API, for timerconv --target
# A changed .c file of the corpus, and the files to put in the kernel
# tree for it: {path in the kernel tree: path in the corpus}.
Item = namedtuple("Item", "rel files")
Kernel = namedtuple("Kernel", "src out jobs")


def kbuild_ident():
    """What a prepared cache was made from: the tarball and the config."""
    tar = oldkbuild.tarball(KVERSION)
    st = tar.stat()
    return "%s %d %d %r\n" % (tar.name, st.st_size, int(st.st_mtime),
                              oldkbuild.OLD_KBUILDS[KVERSION])


def git_dirty(tree):
    return subprocess.run(["git", "status", "--porcelain"], cwd=tree,
                          check=True, capture_output=True,
                          text=True).stdout


def reuse_kbuild(cache):
    """The source tree of a cache prepared by an earlier run, put back to
    its commit if a run was killed while it had files placed; or None."""
    stamp = cache / "prepared"
    if not stamp.exists() or stamp.read_text() != kbuild_ident():
        return None
    (src,) = [p for p in (cache / "src").iterdir() if p.is_dir()]
    if git_dirty(src):
        log("corpus: %s was left changed; putting it back" % src)
        for cmd in (["checkout", "-q", "--", "."], ["clean", "-qfd"]):
            subprocess.run(["git", *cmd], cwd=src, check=True)
    return src


def setup_kbuild(cache, jobs):
    """The linux 4.14 tree and its prepared build directory in cache:
    extracted from ../shared/kbuild and prepared (make prepare, some
    25 s) unless an earlier run left them there."""
    src = reuse_kbuild(cache)
    if src is not None:
        log("corpus: reusing the prepared linux %s kbuild in %s"
            % (KVERSION, cache))
        return Kernel(src, cache / "o", jobs)
    log("corpus: preparing the linux %s kbuild in %s" % (KVERSION, cache))
    (cache / "prepared").unlink(missing_ok=True)
    for d in ("src", "o"):
        shutil.rmtree(cache / d, ignore_errors=True)
        (cache / d).mkdir()
    src = oldkbuild.extract(oldkbuild.tarball(KVERSION), cache / "src")
    proc = oldkbuild.prepare(src, KVERSION, cache / "o")
    if proc.returncode != 0:
        log(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise RuntimeError("make prepare failed in %s" % (cache / "o"))
    (cache / "prepared").write_text(kbuild_ident())
    return Kernel(src, cache / "o", jobs)


@contextlib.contextmanager
def locked(cache):
    """One run at a time in a cache."""
    with open(cache / "lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def changed_c_files(tree):
    """The .c files timerconv changed in the corpus copy, relative paths."""
    out = subprocess.run(["git", "diff", "--name-only", "-z"], cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    return sorted(p for p in out.split("\0") if p.endswith(".c"))


def item_of(tree, rel):
    """Where a corpus file goes in the kernel tree (its path after the
    first component, the corpus' own), with the headers beside it."""
    rel = PurePosixPath(rel)
    files = {}
    for p in [rel] + sorted(PurePosixPath(h.relative_to(tree)) for h in
                            (tree / rel).parent.glob("*.h")):
        files[PurePosixPath(*p.parts[1:])] = p
    return Item(rel, files)


def batches(items):
    """Split items into groups that can be in the kernel tree at once:
    no two files of different corpus trees in one directory (a header
    of one would be the other's)."""
    groups = []
    for item in items:
        top = item.rel.parts[0]
        dirs = {k.parent for k in item.files}
        for claims, group in groups:
            if all(claims.get(d, top) == top for d in dirs):
                break
        else:
            claims, group = {}, []
            groups.append((claims, group))
        claims.update(dict.fromkeys(dirs, top))
        group.append(item)
    return [group for _, group in groups]


@contextlib.contextmanager
def placed(src, files):
    """Write files ({path in src: bytes}) into the tree src; afterwards
    put back what was there byte for byte, remove what was not, and the
    directories made for them."""
    saved, made = {}, []
    try:
        for rel, data in files.items():
            dst = src / rel
            for d in reversed(dst.parents):
                if not d.exists():
                    d.mkdir()
                    made.append(d)
            if rel not in saved:
                saved[rel] = dst.read_bytes() if dst.exists() else None
            dst.write_bytes(data)
        yield
    finally:
        for rel, data in saved.items():
            if data is None:
                (src / rel).unlink(missing_ok=True)
            else:
                (src / rel).write_bytes(data)
        for d in reversed(made):
            d.rmdir()


def object_of(item):
    return str(PurePosixPath(*item.rel.parts[1:]).with_suffix(".o"))


def first_errors(kernel, obj, n=5):
    """The first compiler errors of obj, built alone, as kbuild says them
    (paths relative to the kernel tree)."""
    (kernel.out / obj).unlink(missing_ok=True)
    proc = subprocess.run(["make", "O=%s" % kernel.out,
                           *oldkbuild.make_vars(KVERSION), obj],
                          cwd=kernel.src, capture_output=True, text=True)
    lines = [line.replace(str(kernel.src) + "/", "")
             for line in (proc.stdout + proc.stderr).splitlines()]
    errors = [line for line in lines if re.search(r"\berror:", line)]
    return errors[:n] or lines[-n:]


def build_batch(kernel, items, corpus, tree):
    """Build the objects of items from the corpus' text, then from the
    converted text: (objects built before, built after, {object: first
    errors} of those that built before and fail after)."""
    objs = [object_of(i) for i in items]

    def texts(root):
        return {k: (root / c).read_bytes() for i in items
                for k, c in i.files.items()}

    def build():
        return oldkbuild.build_objects(kernel.src, kernel.out, KVERSION,
                                       objs, jobs=kernel.jobs)

    with placed(kernel.src, texts(corpus)):
        before = build()
    with placed(kernel.src, texts(tree)):
        after = build()
        errors = {o: first_errors(kernel, o) for o in sorted(before - after)}
    return before, after, errors


def build_check(kernel, corpus, tree):
    """Compile every changed .c file of tree, before and after, with the
    kernel's kbuild; print what built and what stopped building.  The
    number of files that built before and fail after."""
    start = time.monotonic()
    items = [item_of(tree, rel) for rel in changed_c_files(tree)]
    before, after, errors = set(), set(), {}
    for group in batches(items):
        b, a, e = build_batch(kernel, group, corpus, tree)
        before |= b
        after |= a
        errors.update(e)
    if git_dirty(kernel.src):
        raise RuntimeError("%s is not as it was after the build check"
                           % kernel.src)
    kept = before & after
    print("build (linux %s kbuild): %d changed .c files, %d built before, "
          "%d of them built after, %d now fail"
          % (KVERSION, len(items), len(before), len(kept),
             len(before) - len(kept)))
    for item in items:
        obj = object_of(item)
        if obj in errors:
            print("  %s: built before, fails after:" % item.rel)
            for line in errors[obj]:
                print("    " + line)
    print("build time: %.1f s" % (time.monotonic() - start))
    return len(before) - len(kept)


# ---- one mode: convert a fresh copy, print, lint, build ----

MODES = {"default": [], "keep-data": ["--keep-data"]}


def label_of(mode):
    return "--" + mode if MODES[mode] else mode


def run_measured(cmd, timeout, log_path):
    """Run cmd, its output to log_path: (exit status, or None when it did
    not finish in timeout seconds; wall time in s; peak RSS in KiB of it
    and its children, this run's alone)."""
    start = time.monotonic()
    with open(log_path, "wb") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                start_new_session=True)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        wall = time.monotonic() - start
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, wall, usage.ru_maxrss
        if wall > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return None, wall, 0
        time.sleep(0.05)


def print_summary(args, tree, s, reasons, wall, rss):
    timeouts = s.get("files_timed_out", [])
    failed = s.get("files_failed", [])
    print("corpus: %s (%d files)" % (args.corpus, sum(
        1 for p in tree.rglob("*") if p.suffix in (".c", ".h"))))
    print("old-API sites: %d found, %d converted (%.1f %%), %d refused"
          % (s["sites"], s["converted"],
             100.0 * s["converted"] / max(s["sites"], 1), s["refused"]))
    print("units: %d of %d converted; files changed: %d"
          % (s["units_converted"], s["units"], s["files_changed"]))
    print("spatch time-outs: %d%s; spatch failures: %d%s" % (
        len(timeouts), (" (%s)" % ", ".join(timeouts)) if timeouts else "",
        len(failed), (" (%s)" % ", ".join(failed)) if failed else ""))
    print("wall time: %.1f s; peak RSS: %.0f MiB" % (wall, rss / 1024.0))
    print("refused, by reason:")
    for reason, n in reasons.most_common():
        print("  %4d  %s" % (n, reason))


def timerconv(args, tree, options, echo=True):
    """Convert a fresh copy of the corpus in tree with options: (exit
    status, its report or None, having said why; wall time in s, peak
    RSS in KiB).  Timerconv's messages go to stderr (echo False: only
    when it fails)."""
    make_tree(args.corpus, tree)
    report = tree.parent / (tree.name + ".json")
    log_path = tree.parent / (tree.name + ".log")
    cmd = [str(TC), "convert", "-C", str(tree), "--in-place", "--jobs",
           str(args.jobs), "--report", str(report), *options]
    rc, wall, rss = run_measured(cmd, args.timeout, log_path)
    if echo or rc != 0:
        sys.stderr.write(read(log_path))
        sys.stderr.flush()
    if rc is None:
        print("timerconv did not finish in %d s" % args.timeout)
        return 2, None, wall, rss
    if rc != 0 or not report.exists():
        print("timerconv exited with %d" % rc)
        return 2, None, wall, rss
    rep = json.loads(report.read_text())
    s = rep["summary"]
    bad = s.get("files_timed_out") or s.get("files_failed")
    return (2 if bad else 0), rep, wall, rss


def convert_mode(args, mode, work):
    """Convert a fresh copy of the corpus in work as the mode says; print
    its numbers.  (exit status so far, its report or None)."""
    tree = work / "tree"
    status, rep, wall, rss = timerconv(args, tree, MODES[mode])
    if rep is not None:
        reasons = Counter(site["reason"] for site in rep["sites"]
                          if site["outcome"] != "converted")
        print_summary(args, tree, rep["summary"], reasons, wall, rss)
    return status, rep


def build_mode(args, mode, work, kernel):
    """The build check of a mode, on a copy converted at the level of the
    kernel it is built with: linux 4.14 has timer_setup() but none of
    the forms v4.15 brought around it (a .function of the new type,
    timer_setup_on_stack(), DEFINE_TIMER() of two arguments), which the
    corpus, having no timer.h, is converted to.  Timerconv writes what
    4.14 has when the tree's timer.h is 4.14's, or with --target v4.14,
    as here.  (exit status, number of files that stopped building)."""
    tree = work / ("tree-" + KLEVEL)
    status, rep, _, _ = timerconv(args, tree,
                                  MODES[mode] + ["--target", KLEVEL],
                                  echo=False)
    if rep is None:
        return status, 0
    print("build: a copy converted with --target %s: %d sites converted"
          % (KLEVEL, rep["summary"]["converted"]))
    return status, build_check(kernel, args.corpus, tree)


def run_mode(args, mode, kernel):
    """One mode's block; (exit status, its report's summary or None)."""
    print("== %s ==" % label_of(mode), flush=True)
    work = Path(tempfile.mkdtemp(prefix="timerconv-corpus.%s." % mode))
    try:
        status, rep = convert_mode(args, mode, work)
        if rep is not None:
            status = max(status, lint_mode(work / "tree", rep))
        if rep is not None and kernel is not None:
            rc, broken = build_mode(args, mode, work, kernel)
            status = max(status, rc, 1 if broken else 0)
    finally:
        if args.keep:
            for tree in sorted(work.glob("tree*/")):
                print("converted tree: %s" % tree)
        else:
            shutil.rmtree(work)
        sys.stdout.flush()
    return status, rep["summary"] if rep else None


def lint_mode(tree, rep):
    """Lint the converted tree; 1 on an error, else 0."""
    errors = lint(tree, rep)
    print("lint: %d error%s" % (len(errors), "" if len(errors) == 1 else "s"))
    for e in errors:
        print("  " + e)
    return 1 if errors else 0


def print_totals(results):
    for mode, summary in results:
        label = label_of(mode)
        if summary is None:
            print("summary: %-12s failed" % label)
            continue
        print("summary: %-12s %d/%d sites converted (%.1f %%)"
              % (label, summary["converted"], summary["sites"],
                 100.0 * summary["converted"] / max(summary["sites"], 1)))


def parse_args():
    ap = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--corpus", type=Path, default=default_corpus())
    ap.add_argument("--jobs", type=int, default=2,
                    help="spatch processes and make jobs (default 2)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the converted trees and print where they are")
    ap.add_argument("--timeout", type=int, default=1800,
                    help="seconds one mode's timerconv run may take")
    ap.add_argument("--mode", choices=("default", "keep-data", "both"),
                    default="both",
                    help="convert without options, with --keep-data, or "
                    "each on its own copy (default)")
    ap.add_argument("--no-build", action="store_true",
                    help="skip the build check with linux %s's kbuild"
                    % KVERSION)
    ap.add_argument("--kbuild-cache", type=Path, metavar="DIR",
                    help="prepare the linux %s kbuild in DIR and keep it "
                    "for the next run (default: a temporary directory)"
                    % KVERSION)
    return ap.parse_args()


def run_modes(args, modes, cache):
    kernel = None
    if cache is not None:
        start = time.monotonic()
        kernel = setup_kbuild(cache, args.jobs)
        print("kbuild: linux %s in %s, ready in %.1f s"
              % (KVERSION, kernel.src, time.monotonic() - start))
    results, status = [], 0
    for mode in modes:
        rc, summary = run_mode(args, mode, kernel)
        status = max(status, rc)
        results.append((mode, summary))
    print_totals(results)
    return status


def main():
    args = parse_args()
    if not args.corpus.is_dir():
        log("corpus: %s not found (give --corpus DIR)" % args.corpus)
        return 2
    modes = list(MODES) if args.mode == "both" else [args.mode]
    if args.no_build:
        return run_modes(args, modes, None)
    if not oldkbuild.tarball(KVERSION).exists():
        log("corpus: %s not found (or give --no-build)"
            % oldkbuild.tarball(KVERSION))
        return 2
    cache = args.kbuild_cache
    if cache is None:
        cache = Path(tempfile.mkdtemp(prefix="timerconv-kbuild."))
    cache.mkdir(parents=True, exist_ok=True)
    try:
        with locked(cache):
            return run_modes(args, modes, cache)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        log("corpus: build check: %s" % e)
        return 2
    finally:
        if args.kbuild_cache is None:
            shutil.rmtree(cache)


if __name__ == "__main__":
    sys.exit(main())
