#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: timerconv against plain baselines, on linux-source-6.12.

Three trees, a line each:

  workload  6.12 turned back to the old API by tests/bench/workload.py
            (built once and cached; its first commit is 6.12 as shipped)
  collide   the workload plus the units whose callback's name is used
            elsewhere and helpers that take their callback as a parameter
            (workload.py --collide): callback names that collide with
            members, locals and other files' functions, as in a real tree
  no-op     6.12 as shipped: nothing to convert

Parts (--only, comma-separated; default all but v6.16):

  convert  timerconv convert -j N          vs  spatch --dir TREE -j N
           --sp-file tests/bench/forward_timer.cocci (two rules); on the
           workload also the restored fraction: workload files whose
           converted text equals the shipped 6.12 file, whitespace aside
  check    timerconv check -j N            vs  git grep -n -w -E '<old
           names>' and vs cat of every .c/.h (reading each once: the floor)
  scan     timerconv convert --scan-only   vs  git grep -l -w -E '<names>'
  series   timerconv series on a 50-file PATH list of whole workload units
  v6.16    convert --target v6.16 on the shipped tree (what would move)

Every command is timed --runs times (median; baseline and timerconv
alternate) after a warm-up read of the tree.  Peak RSS is the largest
single process (the kernel's ru_maxrss of the command and what it waited
for) and, for the long runs, the sampled sum over the process tree.  "cpu s" is
user + system time of the command and its children: on a machine shared
with other work it moves less than the wall-clock seconds.
The table goes to stdout, progress to stderr, --json writes the figures.
--before-bin OLD also times another timerconv's convert and scan, in the
same run.  Exit status 1 when a target of issue 26 is missed.
"""

import argparse
import collections
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, ROOT, ensure_tree, git, log  # noqa: E402
from workload import ensure_collide, ensure_workload  # noqa: E402

TC = Path(os.environ.get("TIMERCONV_BIN", ROOT / "build" / "timerconv"))
FORWARD = BENCH / "forward_timer.cocci"
TIME = "/usr/bin/time"
NAMES = ("setup_timer|setup_timer_on_stack|setup_deferrable_timer|"
         "setup_deferrable_timer_on_stack|setup_pinned_timer|"
         "setup_pinned_deferrable_timer|__setup_timer|__setup_timer_on_stack|"
         "init_timer|init_timer_deferrable|init_timer_pinned|"
         "init_timer_pinned_deferrable|init_timer_on_stack|DEFINE_TIMER|"
         "TIMER_INITIALIZER|TIMER_PINNED_INITIALIZER|"
         "TIMER_DEFERRED_INITIALIZER|__TIMER_INITIALIZER")
PARTS = ("convert", "check", "scan", "series", "v6.16")
TREES = ("workload", "collide", "no-op")
DEFAULT_PARTS = ("convert", "check", "scan", "series")
MiB = 1 << 20
GiB = 1 << 30
PAGE = os.sysconf("SC_PAGE_SIZE")


# ------------------------------------------------------------- measuring

def tree_rss(root):
    """Summed RSS of root and all its descendants, from /proc."""
    kids = collections.defaultdict(list)
    rss = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rfind(")") + 2:].split()
        kids[int(fields[1])].append(int(d))
        rss[int(d)] = int(fields[21]) * PAGE
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total


class Run:
    """One command: seconds, peak RSS, exit status, output."""

    def __init__(self, cmd, cwd=None, env=None, stdin=None, sample=False,
                 discard=False):
        self.cmd = cmd
        with tempfile.TemporaryFile() as out, \
                tempfile.TemporaryFile() as err, \
                tempfile.NamedTemporaryFile("r") as tm:
            # A child forked from this process starts with its peak RSS;
            # GNU time's child does not, so its %M is the command's own.
            if os.access(TIME, os.X_OK):
                cmd = [TIME, "-f", "%M %U %S", "-o", tm.name, *cmd]
            start = time.monotonic()
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=stdin,
                                    stdout=subprocess.DEVNULL if discard
                                    else out, stderr=err)
            self.tree_peak = None
            stop = threading.Event()
            if sample:
                self.tree_peak = 0
                t = threading.Thread(target=self._sample,
                                     args=(proc.pid, stop))
                t.start()
            _, status, usage = os.wait4(proc.pid, 0)
            self.secs = time.monotonic() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            stop.set()
            if sample:
                t.join()
            self.rc = proc.returncode
            self.maxrss = usage.ru_maxrss * 1024
            self.cpu = usage.ru_utime + usage.ru_stime
            last = (tm.read().strip().splitlines() or [""])[-1].split()
            if len(last) == 3:
                self.maxrss = int(last[0]) * 1024
                self.cpu = float(last[1]) + float(last[2])
            out.seek(0)
            err.seek(0)
            self.out = out.read().decode(errors="replace")
            self.err = err.read().decode(errors="replace")

    def _sample(self, pid, stop):
        while not stop.wait(0.25):
            try:
                self.tree_peak = max(self.tree_peak, tree_rss(pid))
            except (OSError, ValueError, IndexError):
                pass


def timed(label, cmds, runs, **kw):
    """Run each of cmds runs times, alternating; median seconds each."""
    res = {name: [] for name in cmds}
    for i in range(runs):
        for name, cmd in cmds.items():
            log("bench: %s: %s (run %d/%d)" % (label, name, i + 1, runs))
            res[name].append(Run(cmd, **kw.get(name, {})))
    out = {}
    for name, rs in res.items():
        last = rs[-1]
        log("bench: %s: %s: %.2fs, cpu %.2fs, peak %s, exit %d" % (
            label, name, statistics.median(r.secs for r in rs),
            statistics.median(r.cpu for r in rs), mib(last.maxrss),
            last.rc))
        out[name] = {
            "seconds": round(statistics.median(r.secs for r in rs), 3),
            "cpu": round(statistics.median(r.cpu for r in rs), 3),
            "peak_rss": max(r.maxrss for r in rs),
            "exit": last.rc,
        }
        if last.tree_peak is not None:
            out[name]["tree_rss"] = max(r.tree_peak for r in rs)
        out[name]["_last"] = last
    return out


def warm(tree, files):
    with open(files, "rb") as f:
        Run(["xargs", "-0", "cat"], cwd=tree, stdin=f, discard=True)


def source_list(tree, work):
    """Every .c and .h of the tree, NUL-separated, for the cat floor."""
    path = Path(work) / ("%s.files" % Path(tree).name)
    with open(path, "wb") as f:
        subprocess.run(["git", "-C", str(tree), "ls-files", "-z", "--",
                        "*.c", "*.h"], stdout=f, check=True)
    return path


# -------------------------------------------------------------- restored

def apply_to_tree(tree, diff, work):
    """The git tree of HEAD with diff applied, never touching the work
    tree; a file whose hunks do not apply is left as it was."""
    env = dict(os.environ, GIT_INDEX_FILE=str(Path(work) / "index"))
    g = ["git", "-C", str(tree)]
    subprocess.run(g + ["read-tree", "HEAD"], env=env, check=True)
    failed = []
    p = subprocess.run(g + ["apply", "--cached", "-"], env=env, input=diff,
                       text=True, capture_output=True)
    if p.returncode:
        for part in split_diff(diff):
            q = subprocess.run(g + ["apply", "--cached", "-"], env=env,
                               input=part, text=True, capture_output=True)
            if q.returncode:
                failed.append(part_name(part))
    tree_id = subprocess.run(g + ["write-tree"], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
    return tree_id, failed


def split_diff(diff):
    """One part per file: a part ends where a `diff --git` line or a
    `--- `/`+++ ` pair follows a hunk."""
    lines = diff.splitlines(keepends=True)
    parts, cur, hunk = [], [], False
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if cur and hunk and (line.startswith("diff --git ") or
                             (line.startswith("--- ") and
                              nxt.startswith("+++ "))):
            parts.append("".join(cur))
            cur, hunk = [], False
        cur.append(line)
        hunk = hunk or line.startswith("@@")
    if cur:
        parts.append("".join(cur))
    return parts


def part_name(part):
    for line in part.splitlines():
        if line.startswith("+++ "):
            return line[4:].strip().split("\t")[0].removeprefix("b/")
    return "?"


def blobs(tree, specs):
    """Contents of rev:path specs (None when missing), one cat-file."""
    p = subprocess.run(["git", "-C", str(tree), "cat-file", "--batch"],
                       input="".join(s + "\n" for s in specs).encode(),
                       capture_output=True, check=True)
    out, pos, res = p.stdout, 0, []
    for _ in specs:
        nl = out.index(b"\n", pos)
        head = out[pos:nl].split()
        pos = nl + 1
        if head[-1] == b"missing":
            res.append(None)
            continue
        size = int(head[2])
        res.append(out[pos:pos + size].decode(errors="replace"))
        pos += size + 1
    return res


TIMER_PARAM = re.compile(r"(structtimer_list\*)\w+\)")
FROM_TIMER = re.compile(r"\b(from_timer|timer_container_of)\((\w+),\w+,")


def names_aside(text):
    """The text without whitespace, with a timer callback's parameter
    called T where it is declared and handed to from_timer(): what is
    left when its name (t, timer, tlp ...: the reversal to the old API
    lost it) is set aside."""
    flat = re.sub(rb"\s+", b"", text).decode("latin-1")
    flat = TIMER_PARAM.sub(r"\1T)", flat)
    return FROM_TIMER.sub(r"\1(\2,T,", flat)


def restored(tree, diff, work, base="HEAD~1"):
    files = git(tree, "diff", "--name-only", base, "HEAD").split()
    tree_id, failed = apply_to_tree(tree, diff, work)
    touched = set(git(tree, "diff", "--name-only", "HEAD", tree_id).split())
    shipped = blobs(tree, ["%s:%s" % (base, f) for f in files])
    ours = blobs(tree, ["%s:%s" % (tree_id, f) for f in files])
    same, differs, untouched, named = [], [], [], []
    for f, a, b in zip(files, shipped, ours):
        if f not in touched:
            untouched.append(f)
        elif a is not None and b is not None and a.split() == b.split():
            same.append(f)
        else:
            differs.append(f)
            if a is not None and b is not None and \
                    names_aside(a) == names_aside(b):
                named.append(f)
    return {
        "files": len(files), "restored": len(same),
        "fraction": round(len(same) / len(files), 4) if files else None,
        "changed_but_differs": len(differs),
        "differ_only_in_param_names": len(named),
        "left_untouched": len(untouched),
        "changed_outside_workload": len(touched - set(files)),
        "diff_failed_to_apply": failed,
        "examples_differs": differs[:10],
        "examples_untouched": untouched[:10],
    }


def refusals(report):
    reasons = collections.Counter()
    for s in report.get("sites", []):
        if s.get("outcome") != "converted":
            reasons[s.get("reason") or s.get("outcome")] += 1
    return dict(reasons.most_common(15))


# ------------------------------------------------------------- the parts

def timings(err):
    """What TIMERCONV_TIMINGS=1 printed: the refs phase's seconds and
    MiB, candidates, names, bytes blanked."""
    out = {}
    for line in err.splitlines():
        m = re.match(r"timerconv: timing: (\w+) +([\d.]+) s, (\d+) MiB",
                     line)
        if m:
            out["%s_seconds" % m.group(1)] = float(m.group(2))
            out["%s_mib" % m.group(1)] = int(m.group(3))
        m = re.search(r"(\d+) of \d+ files are candidates", line)
        if m:
            out["candidates"] = int(m.group(1))
        m = re.search(r"(\d+) KiB of function bodies blanked", line)
        if m:
            out["blanked_kib"] = int(m.group(1))
        m = re.search(r"(\d+) files spell an external one, (\d+) may use",
                      line)
        if m:
            out["spell_external"] = int(m.group(1))
            out["use_external"] = int(m.group(2))
    return out


def part_convert(tree, n, runs, work, args, base=None):
    """base: the commit the tree's old-API version was made from (the
    restored fraction compares with it), None for the no-op tree."""
    cmds, kw = {}, {}
    env = dict(os.environ, TIMERCONV_TIMINGS="1")
    bins = [("timerconv", TC)]
    if args.before_bin and base:
        bins.append(("before", Path(args.before_bin)))
    for name, tc in bins:
        cmds[name] = [str(tc), "convert", "-j", str(n), "-C", str(tree),
                      "--report", str(Path(work) / ("%s-%s-report.json" %
                                                    (tree.name, name)))]
        kw[name] = {"sample": True, "env": env}
    if not args.skip_spatch:
        cmds["spatch"] = ["spatch", "--very-quiet", "--no-includes",
                          "--include-headers", "--sp-file", str(FORWARD),
                          "--dir", str(tree), "-j", str(n),
                          "--tmp-dir", str(Path(work) / "sp")]
        kw["spatch"] = {"sample": True}
    if args.skip_convert and base:
        for name, _ in bins:
            del cmds[name]
    if not cmds:
        return None
    r = timed("convert (%s)" % tree.name, cmds, runs, **kw)
    for name, _ in bins:
        if name not in r:
            continue
        last = r[name]["_last"]
        report = Path(work) / ("%s-%s-report.json" % (tree.name, name))
        rep = json.loads(report.read_text()) if report.exists() else {}
        r[name]["summary"] = rep.get("summary")
        r[name]["refusals"] = refusals(rep)
        r[name]["diff_bytes"] = len(last.out)
        r[name]["timings"] = timings(last.err)
        r[name]["stderr_tail"] = last.err.strip().splitlines()[-3:]
        if base:
            log("bench: measuring the restored fraction (%s)" % name)
            r[name]["restored"] = restored(tree, last.out, work, base)
    if "timerconv" in r and "restored" in r["timerconv"]:
        r["restored"] = r["timerconv"]["restored"]
    if "spatch" in r:
        r["spatch"]["diff_bytes"] = len(r["spatch"]["_last"].out)
    return r


def part_check(tree, n, runs, work, files):
    r = timed("check (%s)" % tree.name, {
        "git_grep": ["git", "-C", str(tree), "grep", "-n", "-w", "-E",
                     NAMES],
        "cat": ["xargs", "-0", "-a", str(files), "cat"],
        "timerconv": [str(TC), "check", "-j", str(n), "-C", str(tree),
                      "--format", "json"]}, runs,
        cat={"cwd": str(tree), "discard": True})
    try:
        r["timerconv"]["findings"] = len(json.loads(
            r["timerconv"]["_last"].out))
    except ValueError:
        r["timerconv"]["findings"] = None
    r["git_grep"]["lines"] = r["git_grep"]["_last"].out.count("\n")
    return r


def part_scan(tree, n, runs, args):
    cmds = {"git_grep": ["git", "-C", str(tree), "grep", "-l", "-w", "-E",
                         NAMES]}
    bins = [("timerconv", TC)]
    if args.before_bin:
        bins.append(("before", Path(args.before_bin)))
    env = dict(os.environ, TIMERCONV_TIMINGS="1")
    for name, tc in bins:
        cmds[name] = [str(tc), "convert", "--scan-only", "-j", str(n),
                      "-C", str(tree)]
    r = timed("scan (%s)" % tree.name, cmds, runs,
              **{name: {"env": env} for name, _ in bins})
    for name, _ in bins:
        r[name]["candidates"] = len(r[name]["_last"].out.split())
        r[name]["timings"] = timings(r[name]["_last"].err)
    r["git_grep"]["files"] = len(r["git_grep"]["_last"].out.split())
    return r


def series_paths(manifest, count):
    """count files made of whole workload units, spread over the tree."""
    units = sorted(manifest["reversed"], key=lambda u: hashlib.sha1(
        ("%s:%s" % (u["file"], u["callback"])).encode()).hexdigest())
    chosen = set()
    for u in units:
        fs = set(u["files"])
        if len(chosen | fs) <= count:
            chosen |= fs
        if len(chosen) == count:
            break
    return sorted(chosen)


def part_series(tree, n, runs, work, paths):
    out = Path(work) / ("series-%s" % tree.name)
    times = []
    for i in range(runs):
        log("bench: series (%s): %d paths (run %d/%d)" %
            (tree.name, len(paths), i + 1, runs))
        subprocess.run(["rm", "-rf", str(out)])
        times.append(Run([str(TC), "series", "-j", str(n), "-C", str(tree),
                          "--out", str(out), *paths], sample=True))
    last = times[-1]
    log("bench: series (%s): %.2fs, exit %d" % (tree.name, last.secs,
                                                last.rc))
    patches = sorted(p.name for p in out.glob("*.patch")) \
        if out.exists() else []
    return {"timerconv": {
        "seconds": round(statistics.median(r.secs for r in times), 3),
        "cpu": round(statistics.median(r.cpu for r in times), 3),
        "peak_rss": max(r.maxrss for r in times),
        "tree_rss": max(r.tree_peak for r in times),
        "exit": last.rc, "patches": len(patches),
        "stderr_tail": last.err.strip().splitlines()[-3:],
        "_last": last}}


def part_v616(tree, n, work):
    rep = Path(work) / "r16.json"
    log("bench: v6.16 (%s)" % tree.name)
    r = Run([str(TC), "convert", "-j", str(n), "-C", str(tree), "--target",
             "v6.16", "--report", str(rep)], sample=True)
    s = json.loads(rep.read_text())["summary"] if rep.exists() else {}
    return {"timerconv": {"seconds": round(r.secs, 3), "cpu": round(r.cpu, 3),
                          "peak_rss": r.maxrss,
                          "tree_rss": r.tree_peak, "exit": r.rc,
                          "summary": s, "diff_lines": r.out.count("\n")}}


# ---------------------------------------------------------------- report

def mib(b):
    if b is None:
        return "-"
    return "%.0f MiB" % (b / MiB)


def rss(m):
    s = mib(m.get("peak_rss"))
    if m.get("tree_rss"):
        s += " (tree %s)" % mib(m["tree_rss"])
    return s


def ratio(a, b):
    if not a or not b:
        return None
    return a["seconds"] / b["seconds"] if b["seconds"] else None


def fmt_ratio(r, what):
    return "%.2fx %s" % (r, what) if r is not None else ""


def table(res, before):
    rows = []

    def row(tree, part, cmd, m, rat="", note=""):
        b = before.get(tree, {}).get(part, {}).get(cmd, {}) \
            .get("seconds") if before else None
        rows.append((tree, part, cmd, "%.2f" % m["seconds"],
                     "%.2f" % m["cpu"],
                     "%.2f" % b if b is not None else "", rat, rss(m),
                     note))

    for tree in TREES:
        t = res.get(tree)
        if not t:
            continue
        c = t.get("convert")
        if c:
            for cmd in ("timerconv", "before"):
                if cmd not in c:
                    continue
                m = c[cmd]
                s = m.get("summary") or {}
                tm = m.get("timings") or {}
                note = "exit %d; %s sites, %s converted, %s refused; " \
                       "%s files changed" % (
                           m["exit"], s.get("sites"), s.get("converted"),
                           s.get("refused"), s.get("files_changed"))
                if tm.get("refs_mib") is not None:
                    note += "; refs %.2fs, %d MiB" % (tm["refs_seconds"],
                                                      tm["refs_mib"])
                if tm.get("candidates") is not None:
                    note += "; %d candidates" % tm["candidates"]
                if tm.get("blanked_kib") is not None:
                    note += "; %d KiB blanked" % tm["blanked_kib"]
                if m.get("restored"):
                    note += "; %.1f%% restored" % (
                        100 * m["restored"]["fraction"])
                row(tree, "convert", cmd, m,
                    fmt_ratio(ratio(m, c.get("spatch")), "spatch"), note)
            if "spatch" in c:
                row(tree, "convert", "spatch", c["spatch"], "",
                    "forward_timer.cocci, --dir, %d-byte diff" %
                    c["spatch"]["diff_bytes"])
        k = t.get("check")
        if k:
            m = k["timerconv"]
            row(tree, "check", "timerconv", m, "%s, %s" % (
                fmt_ratio(ratio(m, k["git_grep"]), "grep"),
                fmt_ratio(ratio(m, k["cat"]), "cat")),
                "exit %d, %s findings" % (m["exit"], m["findings"]))
            row(tree, "check", "git_grep", k["git_grep"], "",
                "-n -w -E, %d lines" % k["git_grep"]["lines"])
            row(tree, "check", "cat", k["cat"], "", "every .c/.h once")
        sc = t.get("scan")
        if sc:
            for cmd in ("timerconv", "before"):
                if cmd not in sc:
                    continue
                m = sc[cmd]
                tm = m.get("timings") or {}
                note = "%d candidates" % m["candidates"]
                if tm.get("spell_external") is not None:
                    note += " (%d files spell an external callback's " \
                            "name, %d may use one)" % (
                                tm["spell_external"], tm["use_external"])
                if tm.get("refs_mib") is not None:
                    note += "; refs %.2fs, %d MiB" % (tm["refs_seconds"],
                                                      tm["refs_mib"])
                row(tree, "scan", cmd, m,
                    fmt_ratio(ratio(m, sc["git_grep"]), "grep"), note)
            row(tree, "scan", "git_grep", sc["git_grep"], "",
                "-l -w -E, %d files" % sc["git_grep"]["files"])
        se = t.get("series")
        if se:
            m = se["timerconv"]
            row(tree, "series", "timerconv", m, "",
                "exit %d, %d patches, %d paths" % (
                    m["exit"], m["patches"], len(res["series_paths"])))
        v = t.get("v6.16")
        if v:
            m = v["timerconv"]
            s = m["summary"]
            row(tree, "v6.16", "timerconv", m, "",
                "%s sites, %s would move" % (s.get("sites"),
                                             s.get("converted")))
    head = ("tree", "part", "command", "seconds", "cpu s", "before",
            "ratio", "peak RSS", "")
    k = len(head) - 1
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(k)]
    lines = []
    for r in [head] + rows:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(k)) +
                     "  " + r[k])
    return "\n".join(l.rstrip() for l in lines)


def candidates(t):
    """The candidates of timerconv's convert on a tree (scan-only's when
    convert did not say)."""
    c = ((t.get("convert") or {}).get("timerconv") or {}).get("timings")
    if c and c.get("candidates") is not None:
        return c["candidates"]
    sc = (t.get("scan") or {}).get("timerconv")
    return sc["candidates"] if sc else None


def targets(res):
    """Issue 26's targets (issue 12's where 26 says nothing): (what,
    figure, met)."""
    out = []
    w = res.get("workload", {})
    c = w.get("convert") or {}
    if "timerconv" in c and "spatch" in c:
        r = ratio(c["timerconv"], c["spatch"])
        out.append(("convert <= 0.3x plain spatch (workload)",
                    "%.2fx" % r, r <= 0.3))
    if "timerconv" in c:
        peak = c["timerconv"].get("tree_rss") or c["timerconv"]["peak_rss"]
        out.append(("convert peak RSS < 1 GiB (workload, process tree)",
                    mib(peak), peak < GiB))
    for tree in ("workload", "collide"):
        t = res.get(tree, {})
        n, want = candidates(t), res.get("%s_manifest" % tree, {}) \
            .get("files_changed")
        if n is not None and want:
            out.append(("candidates within 10%% of the files to change "
                        "(%s)" % tree, "%d for %d" % (n, want),
                        abs(n - want) <= 0.1 * want))
    k = w.get("check")
    if k:
        r = ratio(k["timerconv"], k["git_grep"])
        out.append(("check <= 0.4x git grep (workload)", "%.2fx" % r,
                    r <= 0.4))
        r = ratio(k["timerconv"], k["cat"])
        out.append(("check <= 1.5x cat floor (workload)", "%.2fx" % r,
                    r <= 1.5))
    n = res.get("no-op", {})
    nc = (n.get("convert") or {}).get("timerconv")
    if nc:
        out.append(("no-op convert changes nothing, no error",
                    "exit %d, %d diff bytes" % (nc["exit"],
                                                nc["diff_bytes"]),
                    nc["exit"] == 0 and nc["diff_bytes"] == 0 and
                    not any("spatch failed" in r or "timed out" in r
                            for r in nc.get("refusals", {}))))
        b = res.get("_before_noop_convert")
        if b:
            out.append(("no-op convert no slower than before",
                        "%.2fs vs %.2fs" % (nc["seconds"], b),
                        nc["seconds"] <= b * 1.1))
    nk = n.get("check")
    if nk:
        out.append(("no-op check finds nothing",
                    "exit %d, %s findings" % (nk["timerconv"]["exit"],
                                              nk["timerconv"]["findings"]),
                    nk["timerconv"]["exit"] == 0 and
                    not nk["timerconv"]["findings"]))
    return out


def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if not k.startswith("_")}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--version", default="6.12")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=",".join(DEFAULT_PARTS),
                    help="parts to run, of: %s" % ", ".join(PARTS))
    ap.add_argument("--trees", default=",".join(TREES),
                    help="of: %s (default all)" % ", ".join(TREES))
    ap.add_argument("--before-bin", metavar="TIMERCONV",
                    help="also time this timerconv binary's convert and "
                    "scan (the figures before a change, in the same run)")
    ap.add_argument("--skip-convert", action="store_true",
                    help="skip timerconv convert on the workload (the slow "
                    "one); the baselines still run")
    ap.add_argument("--skip-spatch", action="store_true",
                    help="skip the plain spatch --dir baseline")
    ap.add_argument("--series-files", type=int, default=50)
    ap.add_argument("--rebuild-workload", action="store_true")
    ap.add_argument("--before", default=str(BENCH / "before.json"),
                    help="figures to show in the before column")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    parts = [p for p in args.only.split(",") if p]
    bad = set(parts) - set(PARTS)
    trees = [t for t in args.trees.split(",") if t]
    if bad or set(trees) - set(TREES):
        ap.error("unknown part or tree: %s" %
                 ", ".join(sorted(bad | (set(trees) - set(TREES)))))
    n = args.jobs

    shipped = ensure_tree(args.version)
    wl, manifest = ensure_workload(args.version, n, args.rebuild_workload)
    cl, cmanifest = None, None
    if "collide" in trees:
        cl, cmanifest = ensure_collide(args.version, n,
                                       args.rebuild_workload)
    for t in (wl, cl):
        if t and git(t, "status", "--porcelain",
                     "--untracked-files=no").strip():
            raise SystemExit("bench: %s has local changes; "
                             "git -C %s checkout -f HEAD" % (t, t))
    keys = ("files_changed", "units", "cross_file_units", "sites",
            "build_seconds")
    res = {"version": args.version, "jobs": n, "runs": args.runs,
           "binary": str(TC), "before_binary": args.before_bin,
           "parts": parts, "workload": {}, "collide": {}, "no-op": {},
           "workload_tree": str(wl), "noop_tree": str(shipped),
           "collide_tree": str(cl) if cl else None,
           "workload_manifest": {k: manifest[k] for k in keys},
           "collide_manifest": {k: cmanifest[k] for k in keys}
           if cmanifest else {}}
    paths = series_paths(manifest, args.series_files)
    res["series_paths"] = paths
    before = {}
    if args.before and Path(args.before).exists():
        before = json.loads(Path(args.before).read_text())
        b = before.get("no-op", {}).get("convert", {}).get("timerconv")
        if b:
            res["_before_noop_convert"] = b["seconds"]

    with tempfile.TemporaryDirectory(prefix="timerconv-bench-") as work:
        bases = {"workload": "HEAD~1", "collide": "HEAD~2"}
        for name, tree in (("workload", wl), ("collide", cl),
                           ("no-op", shipped)):
            if name not in trees:
                continue
            files = source_list(tree, work)
            log("bench: %s: %s, warming the page cache" % (name, tree))
            warm(tree, files)
            t = res[name]
            if "scan" in parts:
                t["scan"] = part_scan(tree, n, args.runs, args)
            if "check" in parts:
                t["check"] = part_check(tree, n, args.runs, work, files)
            if "series" in parts and name != "collide":
                t["series"] = part_series(tree, n, args.runs, work, paths)
            if "convert" in parts:
                t["convert"] = part_convert(tree, n, args.runs, work, args,
                                            bases.get(name))
            if "v6.16" in parts and name == "no-op":
                t["v6.16"] = part_v616(tree, n, work)

    m = manifest
    print("timerconv bench: linux-source-%s, %d jobs, %d run(s) each "
          "(median), %s" % (args.version, n, args.runs, TC))
    print("workload: %s\n  %d files changed, %d units (%d cross-file); "
          "sites: %s" % (wl, m["files_changed"], m["units"],
                         m["cross_file_units"],
                         ", ".join("%s %d" % kv for kv in
                                   m["sites"].items())))
    if cmanifest:
        print("collide:  %s\n  the workload and %d more units whose "
              "callback's name is used elsewhere, and %d helpers that "
              "hand a timer their caller's callback: %d files changed" % (
                  cl, cmanifest["units"], len(cmanifest.get("helpers", [])),
                  cmanifest["files_changed"]))
    print("no-op:    %s (6.12 as shipped)" % shipped)
    if "series" in parts:
        print("series:   a PATH list of %d files (whole workload units, "
              "first: %s)" % (len(paths), paths[0] if paths else "-"))
    print()
    print(table(res, before))
    for tree in ("workload", "collide"):
        c = res[tree].get("convert") or {}
        for cmd in ("timerconv", "before"):
            r = (c.get(cmd) or {}).get("restored")
            if not r:
                continue
            print("\nrestored (%s%s): %d of %d files equal 6.12 as shipped "
                  "(whitespace aside): %.1f%%; %d changed but differ, %d "
                  "left untouched, %d changed outside the workload" % (
                      tree, ", before" if cmd == "before" else "",
                      r["restored"], r["files"], 100 * r["fraction"],
                      r["changed_but_differs"], r["left_untouched"],
                      r["changed_outside_workload"]))
            if "differ_only_in_param_names" in r:
                print("  of those that differ, %d only in the callbacks' "
                      "parameter names and line breaks"
                      % r["differ_only_in_param_names"])
    c = (res["workload"].get("convert") or {}).get("timerconv")
    if c and c.get("refusals"):
        print("\nworkload: sites convert left alone, by reason:")
        for why, k in c["refusals"].items():
            print("  %5d  %s" % (k, why))
    tg = targets(res)
    if tg:
        print("\ntargets (issue 26):")
        for what, fig, met in tg:
            print("  %-4s %-60s %s" % ("ok" if met else "MISS", what, fig))
    res["targets"] = [{"what": w, "figure": f, "met": bool(ok)}
                      for w, f, ok in tg]
    if args.json:
        Path(args.json).write_text(json.dumps(strip(res), indent=1) + "\n")
    return 0 if all(ok for _, _, ok in tg) else 1


if __name__ == "__main__":
    sys.exit(main())
