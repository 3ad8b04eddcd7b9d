# SPDX-License-Identifier: GPL-2.0
"""convert --in-place as a maintainer's tree meets it: files edited while
the run works, a run killed between its renames, another user's tree, an
output path that cannot be written."""

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import (CASES, FIXTURES, TIMERCONV, git, make_git_tree,
                      read_report, spatch_wrapper, timerconv)

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
GOOD_OUT = CASES / "setup_timer_container_pointer" / "expected.c"
SEED = FIXTURES / "seed-tree"
KILL = "TIMERCONV_TEST_KILL_AFTER_RENAMES"

# A spatch that first appends a line to one file of the tree, as an
# editor would while the run works, then runs the real one.
EDITOR = """#!%(python)s
import os, sys
with open(%(victim)r, "a") as f:
    f.write("/* edited while timerconv ran */\\n")
os.execv(%(real)r, [%(real)r] + sys.argv[1:])
"""


def snapshot(tree):
    return {str(p.relative_to(tree)): p.read_bytes()
            for p in sorted(tree.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def leftovers(tree):
    return [p for p in tree.rglob("*") if ".timerconv-" in p.name]


def driver_tree(tmp_path, n=3):
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    for i in range(n):
        (tree / "drivers" / ("f%d.c" % i)).write_text(
            GOOD.read_text().replace("foo_", "foo%d_" % i))
    return tree


def converted(i):
    return GOOD_OUT.read_text().replace("foo_", "foo%d_" % i)


# ---- row 3: a file edited while the run works ----

def test_a_file_edited_during_the_run_is_not_overwritten(tmp_path):
    """mm/page-writeback.c is edited while spatch runs: it keeps the edit,
    the other files of its unit (block/, include/) are not written
    either, an unrelated driver is, and the report says so."""
    tree = tmp_path / "tree"
    shutil.copytree(SEED, tree)
    (tree / "drivers").mkdir()
    (tree / "drivers" / "foo.c").write_text(GOOD.read_text())
    before = snapshot(tree)
    victim = tree / "mm" / "page-writeback.c"
    path = spatch_wrapper(tmp_path, EDITOR, victim=str(victim))
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, env={"PATH": path}, check=2)
    assert ("mm/page-writeback.c: changed on disk while timerconv ran"
            in proc.stderr), proc.stderr
    assert "block/blk-core.c: not written" in proc.stderr
    edited = victim.read_text()
    assert edited.startswith(before["mm/page-writeback.c"].decode())
    assert edited.endswith("/* edited while timerconv ran */\n")
    assert "unsigned long data" in edited
    for rel in ("block/blk-core.c", "include/linux/writeback.h"):
        assert (tree / rel).read_bytes() == before[rel], rel
    assert (tree / "drivers" / "foo.c").read_text() == GOOD_OUT.read_text()
    assert not leftovers(tree)
    data = read_report(report)
    assert data["files_changed"] == ["drivers/foo.c"]
    refused = [u for u in data["units"] if u["outcome"] == "refused"]
    assert refused and all("changed on disk" in u["reason"]
                           for u in refused)
    assert {s["file"] for s in data["sites"]
            if s["outcome"] == "converted"} == {"drivers/foo.c"}


# ---- row 22: killed between two renames ----

def killed_run(tree, after=1):
    proc = timerconv("convert", "-C", tree, "--in-place",
                     env={KILL: str(after)})
    assert proc.returncode == -9, proc.stderr
    return proc


def test_a_run_killed_between_renames_is_finished_by_the_next(tmp_path):
    tree = driver_tree(tmp_path)
    killed_run(tree)
    # the state the issue saw: one file converted, two not, temporaries
    done = [i for i in range(3)
            if (tree / "drivers" / ("f%d.c" % i)).read_text() == converted(i)]
    assert len(done) == 1
    assert leftovers(tree)
    assert (tree / ".timerconv-journal").exists()
    proc = timerconv("convert", "-C", tree, "--recover", check=0)
    assert "finished a killed convert --in-place" in proc.stderr
    assert "2 files written now, 1 before it was killed" in proc.stderr
    for i in range(3):
        assert (tree / "drivers" / ("f%d.c" % i)).read_text() == converted(i)
    assert not leftovers(tree)
    assert not (tree / ".timerconv-journal").exists()


def test_the_next_in_place_run_recovers_before_it_runs(tmp_path):
    tree = driver_tree(tmp_path)
    killed_run(tree)
    proc = timerconv("convert", "-C", tree, "--in-place", check=0)
    assert "finished a killed convert --in-place" in proc.stderr
    assert "0 files changed" in proc.stderr   # nothing left to convert
    for i in range(3):
        assert (tree / "drivers" / ("f%d.c" % i)).read_text() == converted(i)
    assert not leftovers(tree)


def test_a_diff_run_on_a_half_written_tree_writes_nothing(tmp_path):
    """A diff run never writes the tree: it says what is wrong."""
    tree = driver_tree(tmp_path)
    killed_run(tree)
    before = snapshot(tree)
    proc = timerconv("convert", "-C", tree, check=2)
    assert "left %s half written" % tree in proc.stderr
    assert "timerconv convert --recover" in proc.stderr
    assert proc.stdout == ""
    assert snapshot(tree) == before


def test_check_warns_of_a_tree_a_killed_run_left_half_written(tmp_path):
    tree = driver_tree(tmp_path)
    killed_run(tree)
    proc = timerconv("check", "-C", tree, check=1)
    assert ("warning: a killed convert --in-place left %s half written"
            % tree) in proc.stderr
    assert "timerconv convert --recover" in proc.stderr


def test_a_killed_run_with_a_file_edited_since_is_undone(tmp_path):
    """A file the killed run had not renamed yet is edited before the
    next run: finishing would lose the edit, so the written file is put
    back as it was and the edited one is left alone."""
    tree = driver_tree(tmp_path)
    before = snapshot(tree)
    killed_run(tree)
    pending = [i for i in range(3) if (tree / "drivers" / (
        "f%d.c" % i)).read_bytes() == before["drivers/f%d.c" % i]]
    edited = tree / "drivers" / ("f%d.c" % pending[0])
    edited.write_text(edited.read_text() + "/* mine */\n")
    proc = timerconv("convert", "-C", tree, "--recover", check=0)
    assert "undid a killed convert --in-place" in proc.stderr
    assert "put back the 1 file it had written" in proc.stderr
    assert "left as edited since: drivers/f%d.c" % pending[0] in proc.stderr
    after = snapshot(tree)
    for rel, text in before.items():
        if rel == "drivers/f%d.c" % pending[0]:
            assert after[rel] == text + b"/* mine */\n"
        else:
            assert after[rel] == text, rel
    assert not leftovers(tree)


def test_the_journal_of_a_git_tree_is_in_the_git_directory(tmp_path):
    tree = driver_tree(tmp_path)
    git("init", "-q", cwd=tree)
    killed_run(tree)
    assert (tree / ".git" / "timerconv-journal").exists()
    assert not (tree / ".timerconv-journal").exists()
    data = json.loads((tree / ".git" / "timerconv-journal").read_text())
    assert data["state"] == "renaming"
    assert len(data["files"]) == 3
    timerconv("convert", "-C", tree, "--recover", check=0)
    assert not (tree / ".git" / "timerconv-journal").exists()
    assert not leftovers(tree)


def test_a_journal_from_before_the_renames_only_leaves_temporaries(tmp_path):
    """Killed while still writing its temporaries, the run changed no
    file: recovery removes what it wrote."""
    tree = Path(os.path.realpath(driver_tree(tmp_path, n=1)))
    before = snapshot(tree)
    tmp = tree / "drivers" / ".f0.c.timerconv-abcdef"
    tmp.write_text("half a file")
    write_journal(tree, "writing", tree / "drivers" / "f0.c", tmp)
    proc = timerconv("convert", "-C", tree, "--recover", check=0)
    assert "had changed no file yet" in proc.stderr
    assert snapshot(tree) == before
    assert not leftovers(tree)


def write_journal(tree, state, path, tmp):
    (tree / ".timerconv-journal").write_text(json.dumps({
        "tool": "timerconv", "pid": 0, "root": str(tree), "state": state,
        "files": [{"path": str(path), "tmp": str(tmp),
                   "orig": str(tmp) + ".orig", "old": "0" * 64,
                   "new": "1" * 64}]}))


@pytest.mark.parametrize("where", ["outside", "through a symlink"])
def test_a_journal_naming_files_outside_its_tree_is_refused(tmp_path,
                                                            where):
    """The journal of a tree that is not a git work tree lives in the
    tree, which may come from anyone: one naming a file it could not
    have written is refused, and nothing moves."""
    tree = Path(os.path.realpath(driver_tree(tmp_path, n=1)))
    outside = Path(os.path.realpath(tmp_path)) / "outside"
    outside.mkdir()
    victim = outside / "victim.c"
    victim.write_text("precious\n")
    evil = outside / ".victim.c.timerconv-abcdef"
    evil.write_text("evil\n")
    if where == "through a symlink":
        (tree / "link").symlink_to(outside)
        write_journal(tree, "renaming", tree / "link" / "victim.c",
                      tree / "link" / evil.name)
    else:
        write_journal(tree, "renaming", victim, evil)
    proc = timerconv("convert", "-C", tree, "--recover", check=2)
    assert "naming files it could not have written" in proc.stderr
    assert victim.read_text() == "precious\n"
    assert evil.read_text() == "evil\n"


def test_recover_with_nothing_to_recover(tmp_path):
    tree = driver_tree(tmp_path, n=1)
    before = snapshot(tree)
    proc = timerconv("convert", "-C", tree, "--recover", check=0)
    assert "nothing to recover" in proc.stderr
    assert snapshot(tree) == before


def test_a_journal_that_is_not_one_is_an_error(tmp_path):
    tree = driver_tree(tmp_path, n=1)
    (tree / ".timerconv-journal").write_text("garbage")
    before = snapshot(tree)
    proc = timerconv("convert", "-C", tree, "--in-place", check=2)
    assert "not a timerconv journal" in proc.stderr
    assert snapshot(tree) == before


# ---- row 5: another user's tree, converted as root ----

@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
def test_in_place_as_root_keeps_owner_group_and_mode(tmp_path):
    tree = driver_tree(tmp_path, n=2)
    (tree / "drivers" / "f0.c").chmod(0o640)
    (tree / "drivers" / "f1.c").chmod(0o664)
    for p in [tree, tree / "drivers", *tree.rglob("*.c")]:
        shutil.chown(p, "nobody", "nogroup")
    before = {p.name: os.stat(p) for p in tree.rglob("*.c")}
    timerconv("convert", "-C", tree, "--in-place", check=0)
    for p in tree.rglob("*.c"):
        st, old = os.stat(p), before[p.name]
        assert p.read_text() != GOOD.read_text()
        assert (st.st_uid, st.st_gid) == (old.st_uid, old.st_gid), p
        assert stat.S_IMODE(st.st_mode) == stat.S_IMODE(old.st_mode), p
        assert st.st_ino != old.st_ino      # replaced, atomically


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown")
def test_a_new_compat_header_takes_its_directorys_owner(tmp_path):
    tree = driver_tree(tmp_path, n=1)
    for p in [tree, tree / "drivers", *tree.rglob("*.c")]:
        shutil.chown(p, "nobody", "nogroup")
    timerconv("convert", "-C", tree, "--in-place", "--compat-header",
              "drivers/timer_compat.h", check=0)
    st = os.stat(tree / "drivers" / "timer_compat.h")
    nobody = os.stat(tree / "drivers")
    assert (st.st_uid, st.st_gid) == (nobody.st_uid, nobody.st_gid)
    assert stat.S_IMODE(st.st_mode) == 0o644


# ---- row 13: output paths are checked before anything is changed ----

def test_an_unwritable_report_path_changes_nothing(tmp_path):
    tree = driver_tree(tmp_path, n=2)
    before = snapshot(tree)
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     tmp_path / "nonexistent" / "r.json", check=2)
    assert "--report" in proc.stderr
    assert "does not exist" in proc.stderr
    assert snapshot(tree) == before


def test_a_report_path_that_is_a_directory_changes_nothing(tmp_path):
    tree = driver_tree(tmp_path, n=1)
    before = snapshot(tree)
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     tmp_path, check=2)
    assert "is a directory" in proc.stderr
    assert snapshot(tree) == before
