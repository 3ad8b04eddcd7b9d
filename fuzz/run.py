#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run the libFuzzer targets in build-fuzz/ (make fuzz, make fuzz-ci).

Seed corpora are made here, at run time, from fixtures/ and from
../shared/corpus when it exists (third-party code: it is read, never
copied into the repository).  They go to build-fuzz/seeds/<target>/; what
a run adds goes to build-fuzz/corpus/<target>/ and is kept between runs.

First every saved regression input in tests/fuzz/regressions/<target>/
runs once; then each target fuzzes for --seconds (--ci: about 20).  A
crash leaves its input in build-fuzz/artifacts/<target>/ and makes the
run fail.  The executions per target are printed at the end and written
to build-fuzz/stats.tsv.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build-fuzz"
CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
REGRESSIONS = ROOT / "tests" / "fuzz" / "regressions"
TARGETS = ["lexer", "scan", "structs", "ppcond", "blank", "facts",
           "maintainers", "baseline", "diff", "respace", "plan", "names",
           "kbuild"]
C_TARGETS = {"lexer", "scan", "structs", "ppcond", "blank", "names"}
DICTS = {"lexer": "c.dict", "scan": "c.dict", "structs": "c.dict",
         "ppcond": "c.dict", "blank": "c.dict", "facts": "facts.dict",
         "maintainers": "maintainers.dict", "baseline": "baseline.dict",
         "diff": "c.dict", "respace": "c.dict", "plan": "plan.dict",
         "names": "c.dict", "kbuild": "kbuild.dict"}
# diff_lines() keeps every round's V: O(D * (N + M)) memory, 1 GB under
# ASan for two 3000-line texts with nothing in common.  4 kB inputs stay
# far below the RSS limit (timerconv's own diffs have a small D).
MAX_LEN = {"diff": 4096, "respace": 4096, "facts": 16384,
           "maintainers": 16384, "baseline": 16384, "plan": 12288,
           "kbuild": 8192}
C_MAX_LEN = 16384
CHUNK = 8192


def c_files():
    files = sorted(p for p in (ROOT / "fixtures").rglob("*")
                   if p.suffix in (".c", ".h") and p.is_file())
    if CORPUS.is_dir():
        files += sorted(p for p in CORPUS.rglob("*")
                        if p.suffix in (".c", ".h") and p.is_file())
    return files


def chunks(data):
    """Pieces of at most CHUNK bytes, cut after a line "}"."""
    if len(data) <= C_MAX_LEN:
        return [data]
    out, start = [], 0
    while start < len(data):
        end = min(start + CHUNK, len(data))
        if end < len(data):
            cut = data.rfind(b"\n}\n", start, end)
            if cut > start:
                end = cut + 3
        out.append(data[start:end])
        start = end
    return out


def write_seeds(target, seeds):
    d = BUILD / "seeds" / target
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    for i, data in enumerate(seeds):
        (d / ("seed-%04d" % i)).write_bytes(data)
    return d


def c_seeds():
    seeds = []
    for p in c_files():
        seeds += chunks(p.read_bytes())
    return seeds


def diff_seeds():
    """Old and new text joined by a NUL byte, as fuzz_diff.c splits."""
    seeds = []
    for case in sorted((ROOT / "fixtures" / "cases").iterdir()):
        a, b = case / "input.c", case / "expected.c"
        if a.exists() and b.exists():
            seeds.append(a.read_bytes() + b"\0" + b.read_bytes())
    exp = ROOT / "fixtures" / "seed-expected"
    for b in sorted(exp.rglob("*.[ch]")):
        a = ROOT / "fixtures" / "seed-tree" / b.relative_to(exp)
        if a.exists():
            seeds.append(a.read_bytes() + b"\0" + b.read_bytes())
    for p in c_files():
        for piece in chunks(p.read_bytes())[:2]:
            piece = piece[:CHUNK // 2]
            lines = piece.splitlines(keepends=True)
            edited = [l for i, l in enumerate(lines) if i % 7 != 3]
            seeds.append(piece + b"\0" + b"".join(edited).rstrip(b"\n"))
    return seeds


def timerconv_bin():
    env = os.environ.get("TIMERCONV_BIN")
    for cand in ([Path(env)] if env else []) + [
            ROOT / "build" / "timerconv", ROOT / "build-san" / "timerconv"]:
        if cand.exists():
            return cand
    return None


def facts_seeds():
    """spatch's own output on the fixture cases, captured by a wrapper.

    Made once per build directory (spatch takes a few seconds a file)."""
    cache = BUILD / "facts-capture"
    if cache.is_dir() and any(cache.iterdir()):
        return [p.read_bytes() for p in sorted(cache.iterdir())]
    tc, spatch = timerconv_bin(), shutil.which("spatch")
    if not tc or not spatch:
        print("fuzz: no timerconv or spatch: no facts seeds", file=sys.stderr)
        return []
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="timerconv-fuzz-") as tmp:
        wrap = Path(tmp) / "bin" / "spatch"
        wrap.parent.mkdir()
        wrap.write_text('#!/bin/bash\nset -o pipefail\n'
                        '"%s" "$@" | tee "%s/out-$$"\n' % (spatch, cache))
        wrap.chmod(0o755)
        env = dict(os.environ, PATH="%s:%s" % (wrap.parent,
                                                os.environ["PATH"]))
        env.pop("TIMERCONV_COCCI_DIR", None)
        for case in ("cases", "seed-tree", "sample-tree"):
            work = Path(tmp) / case
            shutil.copytree(ROOT / "fixtures" / case, work)
            subprocess.run([str(tc), "convert", "-C", str(work), "--jobs",
                            "2", "--timeout", "60"], env=env,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=900)
    return [p.read_bytes() for p in sorted(cache.iterdir())]


def maintainers_seeds():
    seeds = [(ROOT / "fixtures" / "sample-tree" / "MAINTAINERS").read_bytes()]
    for p in sorted(CORPUS.rglob("MAINTAINERS")) if CORPUS.is_dir() else []:
        seeds += chunks(p.read_bytes())
    return seeds


def baseline_seeds():
    tc = timerconv_bin()
    if not tc:
        print("fuzz: no timerconv: no baseline seeds", file=sys.stderr)
        return []
    seeds = []
    trees = [ROOT / "fixtures" / "check" / "findings",
             ROOT / "fixtures" / "cases", ROOT / "fixtures" / "seed-tree"]
    if CORPUS.is_dir():
        trees.append(CORPUS)
    with tempfile.TemporaryDirectory(prefix="timerconv-fuzz-") as tmp:
        for i, tree in enumerate(trees):
            out = Path(tmp) / ("b%d.json" % i)
            subprocess.run([str(tc), "check", "-C", str(tree),
                            "--write-baseline", str(out)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=300)
            if out.exists():
                data = out.read_bytes()
                seeds += [data] if len(data) <= 16384 else []
                # a short one: the first findings only
                seeds.append(re.sub(rb"\},\s*\{.*\}", b"}", data,
                                    flags=re.S))
    return seeds


def plan_seeds():
    """What the planner consumed in real runs: each file's text and the
    records spatch printed about it, recorded by timerconv itself
    (TIMERCONV_FACTS_DUMP, tool/facts/facts_dump.h) on the fixtures and
    ../shared/corpus, with PATHs and without.  Made once per build
    directory, in it (the corpus is never copied into the repository)."""
    cache = BUILD / "plan-capture"
    if cache.is_dir() and any(cache.iterdir()):
        return [p.read_bytes() for p in sorted(cache.iterdir())]
    tc = timerconv_bin()
    if not tc or not shutil.which("spatch"):
        print("fuzz: no timerconv or spatch: no plan seeds", file=sys.stderr)
        return []
    cache.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TIMERCONV_FACTS_DUMP=str(cache))
    env.pop("TIMERCONV_COCCI_DIR", None)
    trees = [ROOT / "fixtures" / t for t in
             ("cases", "seed-tree", "sample-tree", "check", "wrong",
              "trees", "compat-module")]
    if CORPUS.is_dir():
        trees.append(CORPUS)
    with tempfile.TemporaryDirectory(prefix="timerconv-fuzz-") as tmp:
        for i, tree in enumerate(t for t in trees if t.is_dir()):
            work = Path(tmp) / ("t%d" % i)
            shutil.copytree(tree, work, symlinks=True)
            runs = [[], ["--target", "v4.14"], ["--target", "v6.16"]]
            # a PATH run too: units reaching outside it are refused
            subdirs = sorted(d.name for d in work.iterdir() if d.is_dir())
            if subdirs:
                runs.append([subdirs[0]])
            for extra in runs:
                subprocess.run([str(tc), "convert", "-C", str(work),
                                "--jobs", "2", "--timeout", "60", *extra],
                               env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=1800)
    return [p.read_bytes() for p in sorted(cache.iterdir())]


def kbuild_seeds():
    """The fixtures' Makefiles and Kbuild files."""
    return [p.read_bytes() for p in sorted((ROOT / "fixtures").rglob("*"))
            if p.name in ("Makefile", "Kbuild") and p.is_file()]


SEEDERS = {"diff": diff_seeds, "respace": diff_seeds, "facts": facts_seeds,
           "maintainers": maintainers_seeds, "baseline": baseline_seeds,
           "plan": plan_seeds, "kbuild": kbuild_seeds}


def make_seeds(target, cache):
    if target in C_TARGETS:
        if "c" not in cache:
            cache["c"] = write_seeds("c", c_seeds())
        return cache["c"]
    seeds = SEEDERS[target]()
    if target == "plan":
        # cut to -max_len, a seed would lose its records: the planner's
        # speed falls with the input's size, small real seeds go further
        seeds = [s for s in seeds if len(s) <= MAX_LEN["plan"]]
    return write_seeds(target, seeds)


def fuzz_env():
    env = dict(os.environ)
    env["G_SLICE"] = "always-malloc"
    env["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % (
        ROOT / "tests" / "lsan.supp")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    return env


def run_regressions(target):
    d = REGRESSIONS / target
    inputs = sorted(p for p in d.iterdir() if p.is_file()) if d.is_dir() \
        else []
    if not inputs:
        return True, 0
    proc = subprocess.run([str(BUILD / ("fuzz_" + target)),
                           "-timeout=30", "-rss_limit_mb=2048",
                           *map(str, inputs)], env=fuzz_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    if proc.returncode != 0:
        print(proc.stdout[-6000:])
        print("fuzz: %s: a regression input fails" % target)
    return proc.returncode == 0, len(inputs)


def run_fuzzer(target, seconds, seeds):
    corpus = BUILD / "corpus" / target
    artifacts = BUILD / "artifacts" / target
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    cmd = [str(BUILD / ("fuzz_" + target)),
           "-max_total_time=%d" % seconds,
           "-max_len=%d" % MAX_LEN.get(target, C_MAX_LEN),
           "-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1",
           "-dict=%s" % (ROOT / "fuzz" / DICTS[target]),
           "-artifact_prefix=%s/" % artifacts,
           str(corpus), str(seeds)]
    proc = subprocess.run(cmd, env=fuzz_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    out = proc.stdout
    stats = dict(re.findall(r"stat::(\w+):\s*(\d+)", out))
    if proc.returncode != 0:
        print(out[-8000:])
        crash = re.findall(r"Test unit written to (\S+)", out)
        print("fuzz: %s FAILED (exit %d)%s" % (
            target, proc.returncode,
            ": input in " + crash[-1] if crash else ""))
        print("fuzz: replay it with ASAN_OPTIONS=fast_unwind_on_malloc=0 "
              "for whole leak stacks")
    return proc.returncode == 0, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--ci", action="store_true",
                    help="regression inputs, then each target ~20 s")
    ap.add_argument("--regressions-only", action="store_true")
    ap.add_argument("targets", nargs="*", default=TARGETS)
    args = ap.parse_args()
    seconds = 20 if args.ci else args.seconds
    if not CORPUS.is_dir():
        print("fuzz: %s not found: seeding from fixtures/ only" % CORPUS,
              file=sys.stderr)
    ok = True
    rows = []
    for t in args.targets:
        good, n = run_regressions(t)
        ok &= good
        print("fuzz: %-12s %d regression inputs %s" % (
            t, n, "pass" if good else "FAIL"), flush=True)
    if not args.regressions_only:
        cache = {}
        for t in args.targets:
            seeds = make_seeds(t, cache)
            good, stats = run_fuzzer(t, seconds, seeds)
            ok &= good
            runs = stats.get("number_of_executed_units", "?")
            rate = stats.get("average_exec_per_sec", "?")
            rows.append((t, seconds, runs, rate,
                         stats.get("peak_rss_mb", "?"),
                         "ok" if good else "FAILED"))
            print("fuzz: %-12s %3d s %10s runs %8s exec/s %s" % (
                t, seconds, runs, rate, "ok" if good else "FAILED"),
                flush=True)
        with open(BUILD / "stats.tsv", "w") as f:
            f.write("target\tseconds\truns\texec_per_s\tpeak_rss_mb\t"
                    "result\n")
            for r in rows:
                f.write("\t".join(map(str, r)) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
