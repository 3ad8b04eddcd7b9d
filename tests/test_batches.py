# SPDX-License-Identifier: GPL-2.0
"""spatch runs on batches of files: one bad file costs its own sites,
never its neighbours'; and the progress line shows on a terminal only."""

import os
import pty
import select
import subprocess

import pytest

from conftest import (CASES, TIMERCONV, read_report, spatch_wrapper,
                      timerconv)

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
GOOD_OUT = CASES / "setup_timer_container_pointer" / "expected.c"
MARK = "TIMERCONV_TEST_BAD_FILE"

# A spatch that runs the real one, except that a batch holding a file
# with the marker crashes (SIGSEGV) or has that file time out, the way
# spatch reports it with --file-groups.
WRAPPER = """#!%(python)s
import os, signal, subprocess, sys
real = %(real)r
mode = %(mode)r
args = sys.argv[1:]
if "--file-groups" not in args:
    os.execv(real, [real] + args)
i = args.index("--file-groups")
files = [l for l in open(args[i + 1]).read().split("\\n") if l]
bad = [f for f in files if %(mark)r in open(f, errors="replace").read()]
if bad and mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
if bad and mode == "timeout":
    if len(files) == len(bad):
        sys.stderr.write("EXN: Coccinelle_modules.Common.Timeout in %%s\\n"
                         %% bad[0])
        sys.exit(0)
    rest = os.path.join(os.path.dirname(args[i + 1]), "rest-groups.txt")
    with open(rest, "w") as f:
        f.write("".join(x + "\\n\\n" for x in files if x not in bad))
    args[i + 1] = rest
    proc = subprocess.run([real] + args)
    for b in bad:
        sys.stderr.write("EXN: Coccinelle_modules.Common.Timeout in %%s\\n"
                         %% b)
    sys.exit(proc.returncode)
os.execv(real, [real] + args)
"""


def wrapped_path(tmp_path, mode):
    return spatch_wrapper(tmp_path, WRAPPER, mode=mode, mark=MARK)


def tree_with_a_bad_file(tmp_path, n=6):
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    good = GOOD.read_text()
    for i in range(n):
        (tree / "drivers" / ("good%d.c" % i)).write_text(
            good.replace("foo_", "foo%d_" % i))
    (tree / "drivers" / "bad.c").write_text(
        "/* %s */\n" % MARK + good.replace("foo_", "bad_"))
    return tree


def check_only_the_bad_file_refused(tmp_path, tree, proc, reason):
    report = read_report(tmp_path / "report.json")
    for i in range(6):
        out = (tree / "drivers" / ("good%d.c" % i)).read_text()
        assert out == GOOD_OUT.read_text().replace("foo_", "foo%d_" % i), \
            proc.stderr
    bad = [s for s in report["sites"] if s["file"] == "drivers/bad.c"]
    assert bad and all(s["outcome"] == "refused" and
                       "not parsed" in s["reason"] for s in bad), bad
    assert any(reason in s["reason"] for s in bad), bad
    assert MARK in (tree / "drivers" / "bad.c").read_text()


def test_a_batch_that_crashes_is_retried_file_by_file(tmp_path):
    tree = tree_with_a_bad_file(tmp_path)
    proc = timerconv("convert", "-C", tree, "--in-place", "--jobs", "1",
                     "--report", tmp_path / "report.json", check=0,
                     env={"PATH": wrapped_path(tmp_path, "crash")})
    check_only_the_bad_file_refused(tmp_path, tree, proc,
                                    "not parsed: spatch failed")


def test_a_file_that_times_out_in_a_batch_costs_only_its_sites(tmp_path):
    tree = tree_with_a_bad_file(tmp_path)
    proc = timerconv("convert", "-C", tree, "--in-place", "--jobs", "1",
                     "--report", tmp_path / "report.json", check=0,
                     env={"PATH": wrapped_path(tmp_path, "timeout")})
    check_only_the_bad_file_refused(tmp_path, tree, proc,
                                    "not parsed: spatch timed out")
    report = read_report(tmp_path / "report.json")
    assert report["summary"]["files_timed_out"] == ["drivers/bad.c"]
    assert "drivers/bad.c: spatch timed out" in proc.stderr


def run_on_pty(args, cwd=None):
    """Run timerconv with stderr (and stdout) on a pseudo-terminal."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm")
    proc = subprocess.Popen([str(TIMERCONV), *map(str, args)], cwd=cwd,
                            stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 600)
        if not r:
            break
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, out.decode(errors="replace")


def test_progress_line_on_a_terminal(tmp_path):
    tree = tree_with_a_bad_file(tmp_path, n=3)
    rc, out = run_on_pty(["convert", "-C", tree, "--jobs", "1"])
    assert rc == 0, out
    assert "\r\033[Ktimerconv: facts+patch: " in out
    assert " files, 0:" in out and " elapsed" in out
    # the line is cleared before the summary, which comes last
    tail = out[out.rindex("\033[K") + 3:]
    assert "old-API sites found" in tail
    assert "timerconv: facts" not in tail


def test_no_progress_line_on_a_pipe_or_with_quiet(tmp_path):
    tree = tree_with_a_bad_file(tmp_path, n=2)
    proc = timerconv("convert", "-C", tree, check=0)
    assert "\r" not in proc.stderr and "\033[" not in proc.stderr
    assert "facts:" not in proc.stderr
    rc, out = run_on_pty(["convert", "-C", tree, "--quiet"])
    assert rc == 0
    assert "facts:" not in out and "\033[K" not in out
    assert "old-API sites found" in out


@pytest.mark.parametrize("passes", [("facts+patch",), ("facts", "patch")],
                         ids=["one_pass", "two_passes"])
def test_each_batch_asks_spatch_only_about_its_own_callbacks(tmp_path,
                                                            passes):
    """The callback-name constraints, a Python call per identifier in the
    rules as written, reach spatch behind the set of names the batch's
    files contain, checked first; the conversion is the same.  (Two
    jobs: with one, files this small all go in one batch.)"""
    tree = tree_with_a_bad_file(tmp_path)
    (tree / "drivers" / "bad.c").unlink()
    keep = tmp_path / "tmp"
    keep.mkdir()
    env = {"TIMERCONV_KEEP_TMP": "1", "TMPDIR": str(keep)}
    if len(passes) == 2:
        env["TIMERCONV_NO_SPECULATE"] = "1"
    timerconv("convert", "-C", tree, "--in-place", "--jobs", "2", check=0,
              env=env)
    for i in range(6):
        out = (tree / "drivers" / ("good%d.c" % i)).read_text()
        assert out == GOOD_OUT.read_text().replace("foo_", "foo%d_" % i)
    for mode in passes:
        lists = list(keep.glob("timerconv-run-*/batch-%s-*.txt" % mode))
        assert len(lists) > 1, lists
        seen = set()
        for batch in lists:
            files = [f for f in batch.read_text().split("\n") if f]
            names = sorted("foo%s_watchdog" % os.path.basename(f)[4:-2]
                           for f in files)
            rules = batch.with_suffix(".cocci").read_text()
            python = ["identifier %s : script:python" % v
                      for v in ("fn", "cb")]
            assert not any(p in rules for p in python), mode
            assert ("identifier fn = {%s} && : script:python () "
                    "{ timerconv.is_callback(fn) };" % ", ".join(names)
                    in rules), (mode, names)
            assert ("identifier cb = {%s} && : script:python () "
                    "{ timerconv.called(cb) };" % ", ".join(names)
                    in rules), (mode, names)
            seen.update(names)
        assert len(seen) == 6, mode


def test_files_few_bytes_in_all_go_in_one_batch_a_job(tmp_path):
    """A spatch costs half a second before it reads any C: six small
    files and one job make one batch (batch_size() alone makes two)."""
    tree = tree_with_a_bad_file(tmp_path)
    (tree / "drivers" / "bad.c").unlink()
    keep = tmp_path / "tmp"
    keep.mkdir()
    timerconv("convert", "-C", tree, "--in-place", "--jobs", "1", check=0,
              env={"TIMERCONV_KEEP_TMP": "1", "TMPDIR": str(keep)})
    lists = list(keep.glob("timerconv-run-*/batch-facts+patch-*.txt"))
    assert len(lists) == 1
    assert len([f for f in lists[0].read_text().split("\n") if f]) == 6


def test_a_callback_named_like_an_smpl_word_keeps_the_rules_as_written(
        tmp_path):
    """`any` is a keyword in a metavariable declaration: the batch that
    holds it asks Python, as the rules are written."""
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    (tree / "drivers" / "any.c").write_text(
        GOOD.read_text().replace("foo_watchdog", "any"))
    keep = tmp_path / "tmp"
    keep.mkdir()
    timerconv("convert", "-C", tree, "--in-place", check=0,
              env={"TIMERCONV_KEEP_TMP": "1", "TMPDIR": str(keep)})
    assert (tree / "drivers" / "any.c").read_text() == \
        GOOD_OUT.read_text().replace("foo_watchdog", "any")
    assert not list(keep.glob("timerconv-run-*/batch-facts*.cocci"))


# A spatch that notes the OCaml runtime settings it was started with.
RECORDER = """#!%(python)s
import os, sys
with open(%(log)r, "a") as f:
    f.write(repr(os.environ.get("OCAMLRUNPARAM")) + "\\n")
os.execv(%(real)r, [%(real)r] + sys.argv[1:])
"""


def recording_path(tmp_path):
    log = tmp_path / "ocamlrunparam.log"
    return spatch_wrapper(tmp_path, RECORDER, log=str(log)), log


def test_spatch_runs_with_a_lazier_major_gc_unless_the_user_set_one(
        tmp_path, monkeypatch):
    """spatch spends a fifth of its time in OCaml's major GC at the default
    pace: timerconv starts it with space_overhead 1000, but leaves a
    user's own OCAMLRUNPARAM alone."""
    tree = tree_with_a_bad_file(tmp_path, n=2)
    (tree / "drivers" / "bad.c").unlink()
    path, log = recording_path(tmp_path)
    monkeypatch.delenv("OCAMLRUNPARAM", raising=False)
    monkeypatch.delenv("CAMLRUNPARAM", raising=False)
    for user, expected in ((None, "'o=1000'"), ("v=0", "'v=0'")):
        env = {"PATH": path}
        if user:
            env["OCAMLRUNPARAM"] = user
        log.write_text("")
        proc = timerconv("convert", "-C", tree, env=env, check=0)
        assert "+\ttimer_setup(" in proc.stdout, proc.stderr
        # spatch --version aside, every spatch ran a batch
        runs = log.read_text().split("\n")[1:-1]
        assert runs and set(runs) == {expected}, runs
