#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: timerconv against the plain baselines, on linux-source-6.12.

Each measurement is taken --runs times (default 3), the baseline and
timerconv alternating, after a warm-up read of the tree; the median is
reported, with the ratio timerconv / baseline:

  scan      convert --scan-only   vs  git grep -l -w -E '<old API names>'
  check     check                 vs  git grep -n -w -E '<old API names>'
  convert   convert               vs  spatch --dir TREE -j N --sp-file <rules>
  v6.16     convert --target v6.16 (how many 4.15-era sites would move)

It also checks what must hold on this fully converted tree: check finds
nothing, convert changes nothing and refuses nothing as an error, and
timerconv's peak memory stays under 2 GiB.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TC = ROOT / "build" / "timerconv"
NAMES = ("setup_timer|setup_timer_on_stack|setup_deferrable_timer|"
         "setup_deferrable_timer_on_stack|setup_pinned_timer|"
         "setup_pinned_deferrable_timer|__setup_timer|__setup_timer_on_stack|"
         "init_timer|init_timer_deferrable|init_timer_pinned|"
         "init_timer_pinned_deferrable|init_timer_on_stack|DEFINE_TIMER|"
         "TIMER_INITIALIZER|TIMER_PINNED_INITIALIZER|"
         "TIMER_DEFERRED_INITIALIZER|__TIMER_INITIALIZER")
GiB = 1 << 30


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "timerconv"


def ensure_tree(version):
    """Install linux-source-VERSION, unpack it once, commit it to git."""
    tree = cache_dir() / ("linux-source-%s" % version)
    if (tree / ".git").exists():
        return tree
    tarball = Path("/usr/src/linux-source-%s.tar.xz" % version)
    if not tarball.exists():
        log("bench: installing linux-source-%s" % version)
        subprocess.run(["apt-get", "install", "-y", "-q",
                        "linux-source-%s" % version], check=True,
                       env=dict(os.environ,
                                DEBIAN_FRONTEND="noninteractive"))
    cache_dir().mkdir(parents=True, exist_ok=True)
    if not tree.exists():
        log("bench: unpacking %s" % tarball)
        with tarfile.open(tarball) as tar:
            tar.extractall(cache_dir())
    log("bench: committing the tree to git (once)")
    g = ["git", "-C", str(tree)]
    subprocess.run(g + ["init", "-q"], check=True)
    # Debian's linux-source .gitignore ignores everything at the top
    subprocess.run(g + ["add", "-A", "-f"], check=True)
    subprocess.run(g + ["-c", "user.name=bench", "-c",
                        "user.email=bench@localhost", "commit", "-q", "-m",
                        "linux-source-%s" % version], check=True)
    return tree


def run(cmd, cwd=None, env=None):
    """Run cmd; return (seconds, peak RSS bytes, returncode, stdout, stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    secs = time.monotonic() - start
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return secs, rss, proc.returncode, out, err


def peak_rss(cmd, cwd=None):
    """Peak resident memory of one run of cmd (the process alone)."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss * 1024


def median_pair(base, ours, runs):
    """Alternate base and ours runs times; medians of each."""
    b, o = [], []
    last = {}
    for i in range(runs):
        for name, cmd, acc in (("base", base, b), ("ours", ours, o)):
            secs, _, rc, out, err = run(cmd)
            acc.append(secs)
            last[name] = (rc, out, err)
    return statistics.median(b), statistics.median(o), last


def warm(tree):
    subprocess.run(["git", "-C", str(tree), "grep", "-q", "-e",
                    "warm-the-page-cache", "--", "*.c", "*.h"])


def combined_rules(workdir):
    """The rules as timerconv combines them, for the plain spatch run."""
    log_dir = Path(workdir)
    env = dict(os.environ, TIMERCONV_KEEP_TMP="1")
    p = subprocess.run([str(TC), "convert", "-C", str(ROOT / "fixtures" /
                                                    "seed-tree")],
                       capture_output=True, text=True, env=env)
    kept = [l.split("kept ", 1)[1] for l in p.stderr.splitlines()
            if "timerconv: kept " in l]
    src = Path(kept[0]) / "timerconv.cocci"
    dst = log_dir / "timerconv.cocci"
    shutil.copy(src, dst)
    for k in kept:
        shutil.rmtree(k, ignore_errors=True)
    return dst


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--version", default="6.12")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--skip-spatch", action="store_true",
                    help="skip the (slow) plain spatch --dir baseline")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args()

    tree = ensure_tree(args.version)
    n = args.jobs
    log("bench: tree %s, %d jobs, %d runs each" % (tree, n, args.runs))
    warm(tree)
    res = {"tree": str(tree), "jobs": n, "runs": args.runs}
    ok = True

    # (a) candidate scan vs git grep -l
    gb, go, last = median_pair(
        ["git", "-C", str(tree), "grep", "-l", "-w", "-E", NAMES],
        [str(TC), "convert", "--scan-only", "-j", str(n), "-C", str(tree)],
        args.runs)
    res["scan"] = {"git_grep_l": gb, "timerconv": go, "ratio": go / gb,
                   "candidates": len(last["ours"][1].split())}
    log("scan:    git grep -l %.2fs  timerconv --scan-only %.2fs  ratio %.2f"
        "  (%d candidates)" % (gb, go, go / gb, res["scan"]["candidates"]))
    ok &= go / gb <= 1.5

    # check vs git grep -n
    gb, go, last = median_pair(
        ["git", "-C", str(tree), "grep", "-n", "-w", "-E", NAMES],
        [str(TC), "check", "-j", str(n), "-C", str(tree), "--format",
         "json"], args.runs)
    findings = json.loads(last["ours"][1])
    res["check"] = {"git_grep_n": gb, "timerconv": go, "ratio": go / gb,
                    "findings": len(findings),
                    "exit": last["ours"][0]}
    log("check:   git grep -n %.2fs  timerconv check %.2fs  ratio %.2f"
        "  (%d findings, exit %d)" % (gb, go, go / gb, len(findings),
                                      last["ours"][0]))
    ok &= go / gb <= 1.5 and not findings and last["ours"][0] == 0

    # (b) whole convert vs plain spatch --dir
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report.json"
        ours = [str(TC), "convert", "-j", str(n), "-C", str(tree),
                "--report", str(report)]
        times = []
        for _ in range(args.runs):
            secs, _, rc, out, err = run(ours)
            times.append(secs)
        conv = statistics.median(times)
        r = json.load(open(report))
        res["convert"] = {"timerconv": conv, "diff_bytes": len(out),
                          "exit": rc, "summary": r["summary"]}
        ok &= rc == 0 and out == ""
        errors = [s for s in r["sites"] if s["reason"] and
                  ("spatch failed" in s["reason"] or
                   "timed out" in s["reason"])]
        ok &= not errors
        res["convert"]["peak_rss"] = peak_rss(ours)
        ok &= res["convert"]["peak_rss"] < 2 * GiB
        log("convert: timerconv %.2fs, diff %d bytes, exit %d, %d sites, "
            "peak %.0f MiB" % (conv, len(out), rc, r["summary"]["sites"],
                               res["convert"]["peak_rss"] / (1 << 20)))
        if not args.skip_spatch:
            rules = combined_rules(work)
            env = dict(os.environ, TIMERCONV_COCCI_DIR=str(ROOT / "cocci"),
                       TIMERCONV_PLAN=str(Path(work) / "empty.json"))
            (Path(work) / "empty.json").write_text("{}")
            plain = ["spatch", "--very-quiet", "--no-includes",
                     "--include-headers", "-D", "patch", "--sp-file",
                     str(rules), "--dir", str(tree), "-j", str(n),
                     "--tmp-dir", work]
            secs, _, rc, out, err = run(plain, env=env)
            res["convert"]["plain_spatch"] = secs
            res["convert"]["ratio"] = conv / secs
            log("convert: plain spatch --dir %.2fs  ratio %.3f" %
                (secs, conv / secs))
            ok &= conv / secs <= 1.0

        # issue 7: what --target v6.16 would move on this tree
        report16 = Path(work) / "r16.json"
        secs, _, rc, out, err = run([str(TC), "convert", "-j", str(n), "-C",
                                     str(tree), "--target", "v6.16",
                                     "--report", str(report16)])
        r16 = json.load(open(report16))["summary"]
        res["v6.16"] = {"seconds": secs, "summary": r16,
                        "diff_lines": out.count("\n")}
        log("v6.16:   %.1fs, %d sites: %d would move, %d left alone; %d "
            "files" % (secs, r16["sites"], r16["converted"], r16["refused"],
                       r16["files_changed"]))

    res["ok"] = bool(ok)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    print(json.dumps(res, indent=2))
    log("bench: %s" % ("all targets met" if ok else "a target was MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
