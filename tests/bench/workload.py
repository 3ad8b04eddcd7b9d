#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark workload: linux-source-VERSION turned back to the old API.

Built once and cached as a git repository next to the shipped tree
($XDG_CACHE_HOME/timerconv or ~/.cache/timerconv):

  linux-source-6.12-oldapi/            two commits: the tree as shipped,
                                       then the old-API version of it
  linux-source-6.12-oldapi.json        the manifest: every unit reversed,
                                       every one left alone and why

tests/bench/reverse_timer.cocci does the C; this script decides.  Pass 1
(facts) lists callbacks, setups, prototypes and DEFINE_TIMER()s; the units
are joined across files (a non-static callback, its setups elsewhere, its
prototype in a header); a unit is reversed only when every occurrence of
the callback's name in the tree is one of those sites, its setups name
the field its from_timer() names, their flags have an old-API name, and
the old parameter name `data` is free in the callback.  Pass 2 (rewrite)
edits the files in place; a unit whose rewrite is not complete is dropped
and its files are rewritten again without it.

The cache is rebuilt when the semantic patch or RECIPE below changes.

  workload.py [--version 6.12] [--jobs 2] [--rebuild]   prints the path
"""

import argparse
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, cache_dir, commit_all, ensure_tree, git, log  # noqa

COCCI = BENCH / "reverse_timer.cocci"
API_NAMES = "timer_setup|timer_setup_on_stack|from_timer|DEFINE_TIMER"
OLD_API = {
    ("timer_setup", "0"): "setup_timer",
    ("timer_setup", "TIMER_DEFERRABLE"): "setup_deferrable_timer",
    ("timer_setup", "TIMER_PINNED"): "setup_pinned_timer",
    ("timer_setup_on_stack", "0"): "setup_timer_on_stack",
    ("timer_setup_on_stack", "TIMER_DEFERRABLE"):
        "setup_deferrable_timer_on_stack",
    ("timer_setup_on_stack", "TIMER_PINNED"): "setup_pinned_timer_on_stack",
}
PARAM = "data"
SPATCH_TIMEOUT = 120
PYTHON = "/usr/bin/python3"
# Bump when a change here alters what is reversed; a change to the
# semantic patch is noticed by itself.
RECIPE = 2


def recipe_hash():
    h = hashlib.sha256(b"%d\n" % RECIPE)
    h.update(COCCI.read_bytes())
    return h.hexdigest()[:16]


def paths(version):
    base = cache_dir() / ("linux-source-%s-oldapi" % version)
    return base, base.with_name(base.name + ".json")


def spatch(tree, files, mode, jobs, plan=None, in_place=False):
    """Run the reverse rules on files (one group each); its records."""
    with tempfile.TemporaryDirectory(prefix="bench-rev-") as tmp:
        groups = Path(tmp) / "groups"
        groups.write_text("".join("%s\n\n" % f for f in files))
        cmd = ["spatch", "--very-quiet", "--no-includes", "-D", mode,
               "--sp-file", str(COCCI), "--file-groups", str(groups),
               "-j", str(jobs), "--timeout", str(SPATCH_TIMEOUT),
               "--tmp-dir", str(Path(tmp) / "sp")]
        # Without it spatch asks python3 on PATH for its version at every
        # start; a pyenv shim there costs about 0.6 s of CPU each time.
        if os.access(PYTHON, os.X_OK):
            cmd += ["--python", PYTHON]
        cmd += ["--in-place"] if in_place else ["--no-show-diff"]
        env = dict(os.environ)
        if plan is not None:
            (Path(tmp) / "plan.json").write_text(json.dumps(plan))
            env["BENCH_REVERSE_PLAN"] = str(Path(tmp) / "plan.json")
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True,
                           text=True)
    recs = []
    for line in p.stdout.splitlines():
        if line.startswith("REVERSE "):
            recs.append(json.loads(line[len("REVERSE "):]))
    if p.returncode:
        log("workload: spatch %s exited %d: %s" %
            (mode, p.returncode, p.stderr.strip()[-500:]))
    return recs


def name_counts(tree, names):
    """(file, name) -> occurrences of name as a word in *.c and *.h;
    ("", name) -> its occurrences in the whole tree."""
    counts = collections.Counter()
    names = sorted(names)
    for i in range(0, len(names), 500):
        chunk = names[i:i + 500]
        out = git(tree, "grep", "-n", "-w", "-E", "|".join(chunk), "--",
                  "*.c", "*.h", check=False)
        want = set(chunk)
        for line in out.splitlines():
            path, _, text = line.partition(":")
            for w in re.findall(r"[A-Za-z_]\w*", text.split(":", 1)[1]):
                if w in want:
                    counts[(path, w)] += 1
                    counts[("", w)] += 1
    return counts


COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|"
                     r"'(?:\\.|[^'\\])*'", re.S)


def uses_word(text, word):
    """Does text use word as a name, not as a member (.word, ->word)?"""
    toks = re.findall(r"[A-Za-z_]\w*|->|\S", COMMENT.sub(" ", text))
    for i, tok in enumerate(toks):
        if tok == word and (i == 0 or toks[i - 1] not in (".", "->")):
            return True
    return False


def split_timer(timer, field):
    """'& E -> fld' or '& E . fld' (spatch's spacing) -> data text."""
    t, f = timer.split(), field.split()
    if len(t) < len(f) + 3 or t[0] != "&" or t[-len(f):] != f:
        return None
    sep = t[-len(f) - 1]
    e = t[1:-len(f) - 1]
    if sep not in ("->", ".") or not e:
        return None
    e = " ".join(e)
    return "(unsigned long)" + (e if sep == "->" else "&" + e)


class Unit:
    def __init__(self, cb, static):
        self.cb = cb
        self.static = static
        self.setups, self.protos, self.defines = [], [], []
        self.why = None

    @property
    def name(self):
        return self.cb["name"]

    def files(self):
        fs = {self.cb["file"]}
        for r in self.setups + self.protos + self.defines:
            fs.add(r["file"])
        return fs

    def ident(self):
        return "%s:%s" % (self.cb["file"], self.name)


def collect(recs):
    by = collections.defaultdict(list)
    for r in recs:
        by[r["kind"]].append(r)
    return by


def decide(tree, facts, counts, collide=False):
    """Join the facts into units; mark each reversed or why not (with
    collide, a name used elsewhere too)."""
    defs = collections.Counter(r["name"] for r in facts["definition"])
    file_defs = collections.Counter((r["file"], r["name"])
                                    for r in facts["definition"])
    statics = {(r["file"], r["name"]) for r in facts["static"]}
    units = []
    seen = set()
    for cb in facts["callback"]:
        k = (cb["file"], cb["name"])
        if k in seen:
            continue
        seen.add(k)
        u = Unit(cb, k in statics)
        here = (lambda r: r["file"] == cb["file"]) if u.static else \
            (lambda r: True)
        u.setups = [r for r in facts["setup"]
                    if r["fn"] == u.name and here(r)]
        u.protos = [r for r in facts["proto"]
                    if r["name"] == u.name and here(r)]
        u.defines = [r for r in facts["define"]
                     if r["fn"] == u.name and here(r)]
        u.why = judge(tree, u, defs, file_defs, counts, collide)
        units.append(u)
    return units


def judge(tree, u, defs, file_defs, counts, collide=False):
    cb = u.cb
    if u.static and file_defs[(cb["file"], u.name)] != 1:
        return "defined more than once in its file"
    if not u.static and defs[u.name] != 1:
        return "non-static and defined more than once in the tree"
    if cb["use"] == "from_timer":
        if u.defines:
            return "from_timer() callback of a DEFINE_TIMER()"
        if not u.setups:
            return "no timer_setup()"
        fields = set()
        for s in u.setups:
            if (s["api"], s["flags"]) not in OLD_API:
                return "flags %s have no old-API name" % s["flags"]
            if split_timer(s["timer"], cb["field"]) is None:
                fields.add(s["timer"])
        if fields:
            return "set up on another field than from_timer()'s"
    else:
        if u.setups:
            return "ignores its timer but is set up with timer_setup()"
        if not u.defines:
            return "ignores its timer but has no DEFINE_TIMER()"
    if u.static:
        seen = counts[(cb["file"], u.name)]
    else:
        seen = counts[("", u.name)]
    known = 1 + len(u.protos) + len(u.setups) + len(u.defines)
    if seen != known and not collide:
        return "name used elsewhere (%d uses, %d known)" % (seen, known)
    lines = (Path(tree) / cb["file"]).read_text(errors="replace") \
        .splitlines()[cb["first"] - 1:cb["last"]]
    if uses_word("\n".join(lines), PARAM):
        return "the old parameter name %s is taken" % PARAM
    return None


def plan_of(units):
    plan = {"callbacks": {}, "protos": {}, "setups": {}, "defines": {}}
    for u in units:
        cb = u.cb
        plan["callbacks"]["%s|%s" % (cb["file"], u.name)] = {
            "use": cb["use"], "param": PARAM}
        for p in u.protos:
            plan["protos"]["%s|%s" % (p["file"], u.name)] = {"param": PARAM}
        for s in u.setups:
            k = "|".join((s["file"], s["api"], u.name, s["timer"]))
            plan["setups"][k] = {
                "api": OLD_API[(s["api"], s["flags"])],
                "data": split_timer(s["timer"], cb["field"])}
        for d in u.defines:
            plan["defines"]["%s|%s|%s" % (d["file"], u.name, d["name"])] = {}
    return plan


def unit_keys(u):
    """What a unit's rewrite must report done, with how often: two
    setups of one timer in one file share their key."""
    keys = collections.Counter()
    cb = u.cb
    keys[("callbacks", "%s|%s" % (cb["file"], u.name))] += 1
    for p in u.protos:
        keys[("protos", "%s|%s" % (p["file"], u.name))] += 1
    for s in u.setups:
        keys[("setups", "|".join((s["file"], s["api"], u.name,
                                   s["timer"])))] += 1
    for d in u.defines:
        keys[("defines", "%s|%s|%s" % (d["file"], u.name, d["name"]))] += 1
    return keys


def rewrite(tree, units, jobs):
    """Rewrite in place; drop units not rewritten whole, and redo."""
    todo = list(units)
    dropped = []
    files = sorted(set().union(*(u.files() for u in todo)))
    for attempt in range(5):
        log("workload: rewrite pass %d: %d units, %d files" %
            (attempt + 1, len(todo), len(files)))
        recs = spatch(tree, files, "rewrite", jobs, plan=plan_of(todo),
                      in_place=True)
        done = collections.Counter((r["section"], r["key"]) for r in recs
                                   if r["kind"] == "done")
        bad = [u for u in todo
               if any(done[k] < n for k, n in unit_keys(u).items())]
        if not bad:
            return todo, dropped
        for u in bad:
            u.why = "rewrite incomplete: %s" % ", ".join(sorted(
                "%s %s" % k for k, n in unit_keys(u).items()
            if done[k] < n)[:3])
        dropped += bad
        todo = [u for u in todo if u not in bad]
        files = sorted(set().union(*(u.files() for u in bad)))
        git(tree, "checkout", "-q", "--", *files)
        files = sorted(f for f in files
                       if any(f in u.files() for u in todo))
        if not files:
            return todo, dropped
    raise SystemExit("workload: the rewrite does not converge")


def build(version, jobs):
    start = time.monotonic()
    src = ensure_tree(version)
    dst, manifest = paths(version)
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    log("workload: cloning %s" % src)
    subprocess.run(["git", "clone", "-q", str(src), str(tmp)], check=True)

    files = [f for f in git(tmp, "grep", "-l", "-w", "-E", API_NAMES, "--",
                            "*.c", "*.h", check=False).split()
             if f != "include/linux/timer.h"]
    log("workload: facts pass over %d files (spatch -j %d)" %
        (len(files), jobs))
    t0 = time.monotonic()
    recs = spatch(tmp, files, "facts", jobs)
    facts = collect(recs)
    names = {r["name"] for r in facts["callback"]}
    counts = name_counts(tmp, names)
    # headers and other files that name a non-static callback: prototypes
    statics = {(r["file"], r["name"]) for r in facts["static"]}
    extra = sorted({f for (f, w) in counts
                    if f and f not in set(files) and
                    any(c["name"] == w and
                        (c["file"], w) not in statics
                        for c in facts["callback"])})
    if extra:
        log("workload: facts pass over %d more files naming non-static "
            "callbacks" % len(extra))
        recs += spatch(tmp, extra, "facts", jobs)
        facts = collect(recs)
    facts_secs = time.monotonic() - t0

    units = decide(tmp, facts, counts)
    ok = [u for u in units if u.why is None]
    t0 = time.monotonic()
    ok, dropped = rewrite(tmp, ok, jobs)
    rewrite_secs = time.monotonic() - t0

    git(tmp, "update-index", "-q", "--refresh", check=False)
    changed = git(tmp, "diff", "--name-only").split()
    expect = sorted(set().union(*(u.files() for u in ok)))
    if sorted(changed) != expect:
        raise SystemExit("workload: changed files %d, expected %d: %s" % (
            len(changed), len(expect),
            sorted(set(changed) ^ set(expect))[:10]))
    commit_all(tmp, "timer: back to the pre-4.15 API (benchmark workload)\n"
               "\nMade by tests/bench/workload.py, recipe %s." %
               recipe_hash())
    m = manifest_of(version, tmp, files, extra, units, ok, dropped)
    m["build_seconds"] = {"total": round(time.monotonic() - start, 1),
                          "facts": round(facts_secs, 1),
                          "rewrite": round(rewrite_secs, 1)}
    shutil.rmtree(dst, ignore_errors=True)
    tmp.rename(dst)
    manifest.write_text(json.dumps(m, indent=1) + "\n")
    log("workload: %d files, %d units (%d cross-file) in %.0fs" % (
        m["files_changed"], m["units"], m["cross_file_units"],
        m["build_seconds"]["total"]))
    return dst


def manifest_of(version, tree, files, extra, units, ok, dropped):
    sites = collections.Counter()
    for u in ok:
        sites["callback (from_timer)" if u.cb["use"] == "from_timer"
              else "callback (unused timer)"] += 1
        sites["prototype"] += len(u.protos)
        sites["DEFINE_TIMER"] += len(u.defines)
        for s in u.setups:
            sites[OLD_API[(s["api"], s["flags"])]] += 1
    skipped = collections.Counter(re.sub(r"\(\d+ uses, \d+ known\)",
                                         "", u.why).strip()
                                  for u in units if u.why)
    cross = [u for u in ok if len(u.files()) > 1]

    def desc(u):
        return {"callback": u.name, "file": u.cb["file"],
                "static": u.static, "use": u.cb["use"],
                "field": u.cb.get("field"), "type": u.cb.get("type"),
                "old_param": u.cb["param"],
                "files": sorted(u.files()),
                "setups": ["%s:%d %s" % (s["file"], s["line"],
                                         OLD_API.get((s["api"], s["flags"]),
                                                     s["flags"]))
                           for s in u.setups],
                "protos": ["%s:%d" % (p["file"], p["line"])
                           for p in u.protos],
                "defines": ["%s:%d %s" % (d["file"], d["line"], d["name"])
                            for d in u.defines]}

    return {
        "version": version,
        "recipe": recipe_hash(),
        "base": git(tree, "rev-parse", "HEAD~1").strip(),
        "head": git(tree, "rev-parse", "HEAD").strip(),
        "facts_files": len(files) + len(extra),
        "files_changed": len(set().union(*(u.files() for u in ok))),
        "units": len(ok),
        "cross_file_units": len(cross),
        "sites": dict(sorted(sites.items())),
        "callbacks_seen": len(units),
        "skipped": dict(skipped.most_common()),
        "reversed": [desc(u) for u in sorted(ok, key=Unit.ident)],
        "left_alone": [dict(desc(u), why=u.why)
                       for u in sorted(units, key=Unit.ident) if u.why],
    }


def ensure_workload(version="6.12", jobs=2, rebuild=False):
    """The workload repository, built if missing or out of date."""
    dst, manifest = paths(version)
    if not rebuild and (dst / ".git").exists() and manifest.exists():
        m = json.loads(manifest.read_text())
        if m.get("recipe") == recipe_hash() and \
                git(dst, "rev-parse", "HEAD").strip() == m["head"]:
            return dst, m
        log("workload: the recipe changed, rebuilding")
    build(version, jobs)
    return dst, json.loads(manifest.read_text())


# ------------------------------------------------ the "collide" variant

def collide_paths(version):
    base = cache_dir() / ("linux-source-%s-oldapi-collide" % version)
    return base, base.with_name(base.name + ".json")


# Helpers that hand a timer the callback their caller gives them: in 4.14
# they took `void (*fn)(unsigned long)` and called setup_timer().  The
# parameter's name is spelled in thousands of files (`function` in some
# 11,000 of 6.12), which is what a name looked up as if it were global
# costs on a real old tree.  (file, new-API text, old-API text)
HELPERS = (
    ("drivers/net/ethernet/micrel/ksz884x.c",
     "\tvoid (*function)(struct timer_list *))\n{\n"
     "\tinfo->max = 0;\n\tinfo->period = period;\n"
     "\ttimer_setup(&info->timer, function, 0);",
     "\tvoid (*function)(unsigned long))\n{\n"
     "\tinfo->max = 0;\n\tinfo->period = period;\n"
     "\tsetup_timer(&info->timer, function, (unsigned long)info);"),
    ("drivers/scsi/csiostor/csio_mb.c",
     "\t      void (*timer_fn)(struct timer_list *))\n{\n"
     "\tmbm->hw = hw;\n\ttimer_setup(&mbm->timer, timer_fn, 0);",
     "\t      void (*timer_fn)(unsigned long))\n{\n"
     "\tmbm->hw = hw;\n"
     "\tsetup_timer(&mbm->timer, timer_fn, (unsigned long)hw);"),
    ("drivers/scsi/isci/isci.h",
     "void sci_init_timer(struct sci_timer *tmr, "
     "void (*fn)(struct timer_list *t))\n{\n"
     "\ttmr->cancel = false;\n\ttimer_setup(&tmr->timer, fn, 0);",
     "void sci_init_timer(struct sci_timer *tmr, "
     "void (*fn)(unsigned long))\n{\n"
     "\ttmr->cancel = false;\n"
     "\tsetup_timer(&tmr->timer, fn, (unsigned long)tmr);"),
)
COLLIDE_RECIPE = 2


def collide_recipe(m):
    """The variant is rebuilt when the workload it starts from changes."""
    return "%s-%s-%d" % (m["head"][:12], recipe_hash(), COLLIDE_RECIPE)


def reverse_helpers(tree):
    """HELPERS back to the old API; the ones found."""
    done = []
    for rel, new, old in HELPERS:
        path = Path(tree) / rel
        text = path.read_text(errors="surrogateescape")
        if text.count(new) != 1:
            log("workload: helper in %s not found, left alone" % rel)
            continue
        path.write_text(text.replace(new, old), errors="surrogateescape")
        done.append(rel)
    return done


def build_collide(version, jobs, base, bm):
    """The workload plus the units it left alone because their callback's
    name is used elsewhere (a struct member, a local, another file's own
    static function, a direct call), and HELPERS.  A real old tree is like
    that; the clean reversal is not."""
    start = time.monotonic()
    dst, manifest = collide_paths(version)
    tmp = dst.with_name(dst.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    log("workload: cloning %s for the collide variant" % base)
    subprocess.run(["git", "clone", "-q", str(base), str(tmp)], check=True)
    wanted = {"%s:%s" % (u["file"], u["callback"])
              for u in bm["left_alone"]
              if u["why"].startswith("name used elsewhere")}
    files = sorted({f for u in bm["left_alone"]
                    if "%s:%s" % (u["file"], u["callback"]) in wanted
                    for f in u["files"]})
    log("workload: collide facts pass over %d files" % len(files))
    facts = collect(spatch(tmp, files, "facts", jobs))
    counts = name_counts(tmp, {r["name"] for r in facts["callback"]})
    units = [u for u in decide(tmp, facts, counts, collide=True)
             if u.ident() in wanted]
    ok = [u for u in units if u.why is None]
    ok, dropped = rewrite(tmp, ok, jobs)
    helpers = reverse_helpers(tmp)
    git(tmp, "update-index", "-q", "--refresh", check=False)
    commit_all(tmp, "timer: names used elsewhere too (benchmark variant)\n"
               "\nMade by tests/bench/workload.py, recipe %s." %
               collide_recipe(bm))
    m = manifest_of(version, tmp, files, [], units, ok, dropped)
    m["recipe"] = collide_recipe(bm)
    m["base"] = git(tmp, "rev-parse", "HEAD~2").strip()
    m["workload_head"] = bm["head"]
    m["helpers"] = helpers
    # what the bench compares with 6.12 as shipped: both reversals
    m["files_changed"] = len(git(tmp, "diff", "--name-only", "HEAD~2",
                                 "HEAD").split())
    m["build_seconds"] = {"total": round(time.monotonic() - start, 1)}
    shutil.rmtree(dst, ignore_errors=True)
    tmp.rename(dst)
    manifest.write_text(json.dumps(m, indent=1) + "\n")
    log("workload: collide variant: %d more units over %d files in %.0fs" %
        (m["units"], len(set().union(*(u.files() for u in ok)) if ok
                         else set()), m["build_seconds"]["total"]))
    return dst


def ensure_collide(version="6.12", jobs=2, rebuild=False):
    """The collide variant's repository (three commits: 6.12, the
    workload, the units whose names collide), built if missing or out of
    date."""
    base, bm = ensure_workload(version, jobs)
    dst, manifest = collide_paths(version)
    if not rebuild and (dst / ".git").exists() and manifest.exists():
        m = json.loads(manifest.read_text())
        if m.get("recipe") == collide_recipe(bm) and \
                git(dst, "rev-parse", "HEAD").strip() == m["head"]:
            return dst, m
        log("workload: the collide variant is out of date, rebuilding")
    build_collide(version, jobs, base, bm)
    return dst, json.loads(manifest.read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--version", default="6.12")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--collide", action="store_true",
                    help="the variant that also reverses the callbacks "
                    "whose names are used elsewhere")
    args = ap.parse_args()
    if args.collide:
        tree, m = ensure_collide(args.version, args.jobs, args.rebuild)
    else:
        tree, m = ensure_workload(args.version, args.jobs, args.rebuild)
    print(tree)
    log("workload: %s" % json.dumps({k: m[k] for k in (
        "files_changed", "units", "cross_file_units", "sites", "skipped",
        "build_seconds")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
