# SPDX-License-Identifier: GPL-2.0
"""timerconv convert as a command: output, report, summary, scan, and
every error path (no spatch, old spatch, unparseable code, timeouts,
read-only files, interruption)."""

import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import (CASES, FIXTURES, TIMERCONV, compile_c, git,
                      make_git_tree, read_report, spatch_wrapper,
                      timerconv)

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
GOOD_OUT = CASES / "setup_timer_container_pointer" / "expected.c"

# spatch skips a function it cannot parse (here: an unknown macro used as
# a statement) and would rewrite the rest of the file.
UNPARSED_CALLBACK = """\
#include <linux/kernel.h>
#include <linux/timer.h>

struct wdev {
	struct timer_list timer;
	int n;
};

static void wdev_poll(unsigned long data)
{
	struct wdev *w = (struct wdev *)data;

	WEIRD_FOREACH(w) {
		w->n++;
	} WEIRD_END
}

void wdev_init(struct wdev *w)
{
	setup_timer(&w->timer, wdev_poll, (unsigned long)w);
}
"""


def make_tree(tmp_path, files):
    tree = tmp_path / "tree"
    for rel, text in files.items():
        p = tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tree


def test_diff_has_git_paths_and_applies_with_patch(tmp_path):
    tree = make_tree(tmp_path, {"drivers/net/foo.c": GOOD.read_text()})
    proc = timerconv("convert", "-C", tree, check=0)
    assert proc.stdout.startswith("--- a/drivers/net/foo.c\n"
                                  "+++ b/drivers/net/foo.c\n@@ ")
    subprocess.run(["patch", "-s", "-p1"], input=proc.stdout, text=True,
                   cwd=tree, check=True)
    assert (tree / "drivers/net/foo.c").read_text() == GOOD_OUT.read_text()


def test_without_in_place_nothing_is_written(tmp_path):
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text()})
    timerconv("convert", "-C", tree, check=0)
    assert (tree / "a.c").read_text() == GOOD.read_text()


def test_in_place_keeps_the_file_mode(tmp_path):
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text()})
    os.chmod(tree / "a.c", 0o640)
    timerconv("convert", "-C", tree, "--in-place", check=0)
    assert stat.S_IMODE(os.stat(tree / "a.c").st_mode) == 0o640
    assert (tree / "a.c").read_text() == GOOD_OUT.read_text()
    assert [p.name for p in tree.iterdir()] == ["a.c"]


def test_summary_and_report_add_up(tmp_path):
    tree = make_tree(tmp_path, {
        "a.c": GOOD.read_text(),
        "b.c": (CASES / "refuse_data_not_container" / "input.c").read_text(),
    })
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--report", report, check=0)
    r = read_report(report)
    s = r["summary"]
    assert s["sites"] == len(r["sites"]) == s["converted"] + s["refused"]
    assert sum(s["refused_by_reason"].values()) == s["refused"]
    assert s["files_changed"] == 1 and r["files_changed"] == ["a.c"]
    assert ("%d old-API sites found: %d converted, %d refused" %
            (s["sites"], s["converted"], s["refused"])) in proc.stderr
    assert "refused: data is not the timer's container" in proc.stderr
    for site in r["sites"]:
        assert {"file", "line", "column", "kind", "outcome", "reason",
                "unit", "unit_files"} <= set(site)
        assert site["outcome"] in ("converted", "refused")
        assert (site["reason"] is None) == (site["outcome"] == "converted")
    assert r["target"]["level"] == "v4.15"


def test_a_function_spatch_cannot_parse_is_reported_not_dropped(tmp_path):
    """The callback is in a function spatch skips: converting the setup
    alone would not build, so the unit is refused, file untouched."""
    tree = make_tree(tmp_path, {"weird.c": UNPARSED_CALLBACK,
                                "good.c": GOOD.read_text()})
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, check=0)
    assert (tree / "weird.c").read_text() == UNPARSED_CALLBACK
    assert (tree / "good.c").read_text() == GOOD_OUT.read_text()
    weird = [s for s in read_report(report)["sites"]
             if s["file"] == "weird.c"]
    assert len(weird) == 2
    assert all(s["outcome"] == "refused" and s["reason"].startswith(
        "not parsed") for s in weird)
    assert "not parsed" in proc.stderr


def test_a_file_spatch_cannot_parse_is_left_alone(tmp_path):
    broken = GOOD.read_text().replace(
        "int foo_probe(struct foo_adapter *adapter)\n{",
        "int foo_probe(struct foo_adapter *adapter)\n{ {{ ((")
    tree = make_tree(tmp_path, {"broken.c": broken,
                                "good.c": GOOD.read_text()})
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    assert (tree / "broken.c").read_text() == broken
    assert (tree / "good.c").read_text() == GOOD_OUT.read_text()
    sites = [s for s in read_report(report)["sites"]
             if s["file"] == "broken.c"]
    assert sites and all(s["outcome"] == "refused" for s in sites)


def test_timeout_costs_a_refusal_not_the_run(tmp_path):
    # 300 if/else in a row in the callback: the paths spatch follows
    # double with each, so it cannot finish in 5 s on any machine
    lines = ["#include <linux/timer.h>",
             "struct big { struct timer_list t; int a[64]; };",
             "static void big_cb(unsigned long data)", "{",
             "\tstruct big *b = (struct big *)data;"]
    for i in range(300):
        lines.append("\tif (b->a[%d] > %d)\n\t\tb->a[%d]++;\n\telse\n"
                     "\t\tb->a[%d]--;" % (i % 64, i, (i + 1) % 64,
                                          (i + 2) % 64))
    lines.append("}")
    lines.append("void big_init(struct big *b)\n{\n\tsetup_timer(&b->t, "
                 "big_cb, (unsigned long)b);\n}\n")
    slow = "\n".join(lines)
    tree = make_tree(tmp_path, {"slow.c": slow, "good.c": GOOD.read_text()})
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--timeout", "5",
                     "--report", report, check=0)
    assert (tree / "slow.c").read_text() == slow
    assert (tree / "good.c").read_text() == GOOD_OUT.read_text()
    reasons = {s["reason"] for s in read_report(report)["sites"]
               if s["file"] == "slow.c"}
    assert any("timed out" in r for r in reasons), reasons
    assert "slow.c: spatch timed out" in proc.stderr


def test_path_that_does_not_exist(tmp_path):
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text()})
    proc = timerconv("convert", "-C", tree, "drivers/nowhere", check=2)
    assert "drivers/nowhere" in proc.stderr
    proc = timerconv("convert", "-C", tmp_path / "missing", check=2)
    assert "missing" in proc.stderr


def fake_path(tmp_path, spatch_script=None):
    """A PATH with git (and a fake spatch, if given) but no real spatch."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    os.symlink(shutil.which("git"), bindir / "git")
    if spatch_script:
        s = bindir / "spatch"
        s.write_text(spatch_script)
        s.chmod(0o755)
    return str(bindir)


def test_spatch_missing_says_how_to_install_it(tmp_path):
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text()})
    proc = timerconv("convert", "-C", tree, check=2,
                     env={"PATH": fake_path(tmp_path)})
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "apt-get install coccinelle" in lines[0]


def test_spatch_too_old(tmp_path):
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text()})
    script = "#!/bin/sh\necho 'spatch version 1.0.4 compiled with OCaml'\n"
    proc = timerconv("convert", "-C", tree, check=2,
                     env={"PATH": fake_path(tmp_path, script)})
    assert "too old" in proc.stderr
    assert "apt-get install coccinelle" in proc.stderr


def test_read_only_file_with_in_place_writes_nothing():
    top = Path(tempfile.mkdtemp(prefix="timerconv-ro-"))
    try:
        tree = top / "tree"
        tree.mkdir()
        (tree / "a.c").write_text(GOOD.read_text())
        (tree / "b.c").write_text(GOOD.read_text().replace("foo_", "bar_"))
        before = {p.name: p.read_text() for p in tree.iterdir()}
        os.chmod(top, 0o755)
        os.chmod(tree, 0o755)
        os.chmod(tree / "b.c", 0o444)
        cmd = [str(TIMERCONV), "convert", "-C", str(tree), "--in-place"]
        if os.geteuid() == 0:
            # root writes anything: run as nobody, for whom b.c is read-only
            shutil.chown(tree, "nobody", "nogroup")
            for p in tree.iterdir():
                shutil.chown(p, "nobody", "nogroup")
            cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup",
                   "--clear-groups"] + cmd
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        assert "b.c" in proc.stderr and "not writable" in proc.stderr
        after = {p.name: p.read_text() for p in tree.iterdir()}
        assert after == before        # a.c was not written either
    finally:
        shutil.rmtree(top)


def test_interrupted_run_leaves_nothing_behind(tmp_path):
    files = {}
    for i in range(12):
        files["d/f%02d.c" % i] = GOOD.read_text().replace(
            "foo_", "foo%d_" % i)
    tree = make_tree(tmp_path, files)
    before = {p: (tree / p).read_text() for p in files}
    # a TMPDIR of its own: other runs on the machine come and go in /tmp
    # (short, for the facts pass's socket)
    tmpdir = Path(tempfile.mkdtemp(prefix="tc-int-"))
    proc = subprocess.Popen([str(TIMERCONV), "convert", "-C", str(tree),
                             "--in-place", "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            env=dict(os.environ, TMPDIR=str(tmpdir)))
    # wait until spatch is running, then interrupt
    deadline = time.time() + 30
    while time.time() < deadline:
        kids = subprocess.run(["pgrep", "-P", str(proc.pid), "spatch"],
                              capture_output=True, text=True).stdout
        if kids.strip():
            break
        time.sleep(0.05)
    assert kids.strip(), "spatch never started"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "interrupted" in err
    for pid in kids.split():
        assert not Path("/proc", pid).exists() or \
            "spatch" not in Path("/proc", pid, "cmdline").read_text()
    assert {p: (tree / p).read_text() for p in files} == before
    assert not [p for p in tree.rglob("*") if ".timerconv-" in p.name]
    left = list(tmpdir.iterdir())
    assert not left, left
    tmpdir.rmdir()
    # nor spatch's own (it writes them to /tmp whatever TMPDIR says)
    left = [p for pid in kids.split()
            for p in Path("/tmp").glob("cocci*-%s-*" % pid)]
    assert not left, left


def test_gitignore_is_respected(tmp_path):
    tree = make_git_tree(FIXTURES / "seed-tree", tmp_path / "t")
    (tree / ".gitignore").write_text("generated/\n")
    (tree / "generated").mkdir()
    (tree / "generated" / "gen.c").write_text(GOOD.read_text())
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    files = {s["file"] for s in read_report(report)["sites"]}
    # the tree's own sites are found, the ignored file's are not
    assert "block/blk-core.c" in files
    assert not [f for f in files if f.startswith("generated/")]


def test_only_candidates_reach_spatch(tmp_path):
    """A file naming the API only in comments and strings is not a
    candidate: it is not in the report and not changed."""
    quiet = ("/* setup_timer(&p->t, fn, (unsigned long)p); */\n"
             'static const char *s = "init_timer()";\n')
    tree = make_tree(tmp_path, {"quiet.c": quiet, "a.c": GOOD.read_text()})
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    assert {s["file"] for s in read_report(report)["sites"]} == {"a.c"}


def test_jobs_do_not_change_the_result(tmp_path):
    tree = make_tree(tmp_path, {"d/f%d.c" % i: GOOD.read_text().replace(
        "foo_", "foo%d_" % i) for i in range(5)})
    one = timerconv("convert", "-C", tree, "--jobs", "1", check=0).stdout
    two = timerconv("convert", "-C", tree, "--jobs", "3", check=0).stdout
    assert one == two and one


def test_macro_file_is_passed_to_spatch(tmp_path):
    """With the macro explained, the function parses and converts."""
    macros = tmp_path / "macros.h"
    macros.write_text("#define WEIRD_FOREACH(w) for (;;)\n"
                      "#define WEIRD_END\n")
    tree = make_tree(tmp_path, {"weird.c": UNPARSED_CALLBACK})
    proc = timerconv("convert", "-C", tree, "--macro-file", macros,
                     check=0)
    assert "+static void wdev_poll(struct timer_list *t)" in proc.stdout


def test_help_and_bad_options():
    proc = timerconv("convert", "--help", check=0)
    for opt in ("--in-place", "--jobs", "--report", "--target", "-C"):
        assert opt in proc.stdout
    timerconv("convert", "--no-such-option", check=2)
    timerconv("frobnicate", check=2)
    assert "convert" in timerconv("--help", check=0).stdout


HOP = CASES / "refuse_no_struct_definition_hop" / "input.c"


def test_include_dir_gives_the_struct_the_tree_lacks(tmp_path):
    """A pointer hop (q->bdi->wb_timer) needs the definition; -I DIR
    provides it from outside the tree, as for an out-of-tree module."""
    tree = make_tree(tmp_path, {"drivers/mmc/queue.c": HOP.read_text()})
    proc = timerconv("convert", "-C", tree, "--in-place", check=0)
    assert (tree / "drivers/mmc/queue.c").read_text() == HOP.read_text()
    proc = timerconv("convert", "-C", tree, "--in-place",
                     "-I", FIXTURES / "include" / "common", check=0)
    out = (tree / "drivers/mmc/queue.c").read_text()
    assert ("\tstruct mmcx_bdi *bdi = from_timer(bdi, t, wb_timer);\n\n"
            "\tmmcx_flush_bdi(bdi);\n") in out, out
    assert "\ttimer_setup(&q->bdi->wb_timer, mmcx_wb_timer_fn, 0);\n" in out
    assert compile_c(tree / "drivers/mmc/queue.c", "v4.15").returncode == 0


def test_include_dir_must_exist(tmp_path):
    tree = make_tree(tmp_path, {"a.c": HOP.read_text()})
    proc = timerconv("convert", "-C", tree, "-I", tmp_path / "nowhere",
                     check=2)
    assert "-I" in proc.stderr and "not a directory" in proc.stderr


# ---- files gcc would not take, in ways spatch does not say ----

def conflicted(text):
    """The setup_timer() of GOOD inside a merge conflict, as git leaves
    it."""
    old = ("\tsetup_timer(&adapter->watchdog_timer, foo_watchdog,\n"
           "\t\t    (unsigned long)adapter);\n")
    assert old in text
    return text.replace(old, "<<<<<<< HEAD\n" + old + "=======\n" +
                        old.replace("jiffies", "jiffies") +
                        ">>>>>>> topic\n")


def test_merge_conflict_markers_refuse_the_file_with_a_warning(tmp_path):
    text = conflicted(GOOD.read_text())
    tree = make_tree(tmp_path, {"drivers/foo.c": text,
                                "drivers/bar.c": GOOD.read_text().replace(
                                    "foo_", "bar_")})
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, check=0)
    line = text.splitlines().index("<<<<<<< HEAD") + 1
    assert ("warning: drivers/foo.c:%d: merge conflict marker: the file "
            "is left alone" % line) in proc.stderr
    assert "refused: merge conflict markers in the file" in proc.stderr
    assert (tree / "drivers/foo.c").read_text() == text
    assert "timer_setup(" in (tree / "drivers/bar.c").read_text()
    reasons = {s["reason"] for s in read_report(report)["sites"]
               if s["file"] == "drivers/foo.c"}
    assert reasons == {"merge conflict markers in the file"}


INCLUDE_CONFLICTS = {
    "plain": "<<<<<<< HEAD\n#include <asm/system.h>\n=======\n"
             ">>>>>>> cm-10.0\n",
    # drivers/atm/suni.c in ../shared/corpus
    "nested": "<<<<<<< HEAD\n<<<<<<< HEAD\n#include <asm/system.h>\n"
              "#include <asm/atomic.h>\n=======\n#include <linux/atomic.h>\n"
              ">>>>>>> refs/remotes/origin/cm-10.0\n=======\n"
              "#include <linux/atomic.h>\n"
              ">>>>>>> refs/remotes/origin/master\n",
}


@pytest.mark.parametrize("shape", sorted(INCLUDE_CONFLICTS))
def test_a_conflict_around_an_include_converts_with_a_warning(tmp_path,
                                                              shape):
    """Real trees carry conflicts committed around an #include (three
    files of ../shared/corpus, where one side dropped <asm/system.h>): the
    code converts as it would without them, and the summary says where
    the conflict is."""
    include = "#include <linux/timer.h>\n"
    text = GOOD.read_text()
    assert include in text
    conflict = INCLUDE_CONFLICTS[shape]
    tree = make_tree(tmp_path, {"a.c": text.replace(
        include, include + conflict)})
    proc = timerconv("convert", "-C", tree, "--in-place", check=0)
    line = text.splitlines().index(include.strip()) + 2
    assert ("warning: a.c:%d: merge conflict marker around preprocessor "
            "lines only" % line) in proc.stderr
    assert (tree / "a.c").read_text() == GOOD_OUT.read_text().replace(
        include, include + conflict)


def test_a_line_of_angle_brackets_alone_is_not_a_conflict(tmp_path):
    text = GOOD.read_text().replace(
        "struct foo_adapter {",
        "/*\n<<<<<<< a drawing, not a conflict\n */\nstruct foo_adapter {")
    tree = make_tree(tmp_path, {"a.c": text})
    proc = timerconv("convert", "-C", tree, check=0)
    assert "+\ttimer_setup(" in proc.stdout
    assert "conflict" not in proc.stderr


def test_a_file_ending_in_an_open_comment_is_left_alone(tmp_path):
    """spatch closes the comment (and drops the final newline): the file
    is refused instead, and nothing but the timer lines ever changes."""
    text = GOOD.read_text() + "/* trailing comment never closed\n"
    tree = make_tree(tmp_path, {"a.c": text})
    proc = timerconv("convert", "-C", tree, "--in-place", check=0)
    assert (tree / "a.c").read_text() == text
    line = len(GOOD.read_text().splitlines()) + 1
    assert ("warning: a.c:%d: comment not closed before the end of the "
            "file: the file is left alone" % line) in proc.stderr
    assert "refused: the file ends inside a comment (no */)" in proc.stderr


def test_a_file_ending_in_a_closed_comment_keeps_its_end(tmp_path):
    """The control: a final comment that is closed, with no final
    newline, converts, and the end of the file stays byte for byte."""
    tail = "/* a comment at the end */"
    tree = make_tree(tmp_path, {"a.c": GOOD.read_text() + tail})
    timerconv("convert", "-C", tree, "--in-place", check=0)
    out = (tree / "a.c").read_text()
    assert out == GOOD_OUT.read_text() + tail


# ---- the summary names the sites of each refusal ----

INTEGER = CASES / "refuse_integer_data_used" / "input.c"


def test_summary_names_the_first_sites_of_each_reason(tmp_path):
    tree = make_tree(tmp_path, {"d/f%d.c" % i: INTEGER.read_text()
                                for i in range(3)})
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--report", report, check=0)
    sites = sorted((s["file"], s["line"], s["column"])
                   for s in read_report(report)["sites"]
                   if s["reason"] == "integer data that the callback uses")
    assert len(sites) > 3
    lines = proc.stderr.splitlines()
    i = lines.index("timerconv:   %4u refused: integer data that the "
                    "callback uses" % len(sites))
    assert lines[i + 1] == "timerconv:          %s and %d more " \
        "(-v lists them all)" % (", ".join("%s:%d:%d" % s
                                           for s in sites[:3]),
                                 len(sites) - 3)
    proc = timerconv("convert", "-C", tree, "-v", check=0)
    lines = proc.stderr.splitlines()
    i = lines.index("timerconv:   %4u refused: integer data that the "
                    "callback uses" % len(sites))
    assert lines[i + 1:i + 1 + len(sites)] == [
        "timerconv:          %s:%d:%d" % s for s in sites]


# ---- spatch's temporary files ----

# spatch keeps its cocci-output-* files with --save-tmp-files: a run that
# left them in /tmp would show them there afterwards.
SAVER = """#!%(python)s
import os, sys
with open(%(log)r, "a") as f:
    f.write("%%d\\n" %% os.getpid())
os.execv(%(real)r, [%(real)r, "--save-tmp-files"] + sys.argv[1:])
"""


def test_spatch_leaves_no_temporary_file_in_tmp(tmp_path):
    log = tmp_path / "pids"
    path = spatch_wrapper(tmp_path, SAVER, log=str(log))
    tree = make_tree(tmp_path, {"d/f%d.c" % i: GOOD.read_text().replace(
        "foo_", "foo%d_" % i) for i in range(3)})
    proc = timerconv("convert", "-C", tree, env={"PATH": path}, check=0)
    assert "+\ttimer_setup(" in proc.stdout
    pids = log.read_text().split()
    assert pids
    left = [p for pid in pids
            for p in Path("/tmp").glob("cocci*-%s-*" % pid)]
    assert not left, left
