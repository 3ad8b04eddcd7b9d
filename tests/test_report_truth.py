# SPDX-License-Identifier: GPL-2.0
"""The report cannot lie (issue 23): a site is reported converted only if
its file's new text differs from the old where the site is.  A spatch
that loses its result for a file (as spatch 1.1.1 did for a path with a
space) must turn the file's units into refusals with an internal error,
never into a false "converted"."""

import shutil

from conftest import CASES, FIXTURES, read_report, spatch_wrapper, timerconv

GOOD = CASES / "setup_timer_container_pointer" / "input.c"

# A spatch that does its work, then puts back as they were the files
# whose name holds `victim` and drops their --out-place results: it
# still prints every record, the "done" ones included.
LOSER = """#!%(python)s
import os, subprocess, sys
args = sys.argv[1:]
victims = []
if "--file-groups" in args:
    with open(args[args.index("--file-groups") + 1]) as f:
        victims = [l for l in f.read().splitlines()
                   if %(victim)r in os.path.basename(l)]
saved = {}
for v in victims:
    with open(v, "rb") as f:
        saved[v] = f.read()
rc = subprocess.call([%(real)r] + args)
for v, data in saved.items():
    if os.path.exists(v + ".cocci_res"):
        os.unlink(v + ".cocci_res")
    with open(v, "wb") as f:
        f.write(data)
sys.exit(rc)
"""


def losing_spatch(tmp_path, victim):
    return spatch_wrapper(tmp_path, LOSER, victim=victim)


def test_a_file_whose_result_is_lost_is_refused_not_converted(tmp_path):
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    shutil.copy(GOOD, tree / "drivers" / "victim.c")
    shutil.copy(GOOD, tree / "drivers" / "other.c")
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, check=0,
                     env={"PATH": losing_spatch(tmp_path, "victim")})
    assert (tree / "drivers" / "victim.c").read_text() == GOOD.read_text()
    assert (tree / "drivers" / "other.c").read_text() != GOOD.read_text()
    rep = read_report(report)
    victim = [s for s in rep["sites"] if s["file"] == "drivers/victim.c"]
    assert victim
    for s in victim:
        assert s["outcome"] == "refused"
        assert s["reason"].startswith("internal error: the rewrite left "
                                      "drivers/victim.c:"), s["reason"]
    assert all(s["outcome"] == "converted" for s in rep["sites"]
               if s["file"] == "drivers/other.c")
    assert rep["summary"]["files_changed"] == 1
    assert rep["files_changed"] == ["drivers/other.c"]
    assert "1 file changed" in proc.stderr


def test_a_unit_loses_all_its_files_when_one_result_is_lost(tmp_path):
    """laptop_mode_timer_fn() is set up in block/, defined in mm/ and
    declared in include/: mm's result lost, none of them changes."""
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "seed-tree", tree)
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0,
              env={"PATH": losing_spatch(tmp_path, "page-writeback")})
    for f in ("mm/page-writeback.c", "include/linux/writeback.h"):
        assert (tree / f).read_text() == \
            (FIXTURES / "seed-tree" / f).read_text(), f
    # block/ keeps its setup of it (its other unit converts)
    assert "setup_timer(&q->backing_dev_info->laptop_mode_wb_timer" in \
        (tree / "block" / "blk-core.c").read_text()
    laptop = [s for s in read_report(report)["sites"]
              if s["callback"] == "laptop_mode_timer_fn"]
    assert laptop
    assert all(s["outcome"] == "refused" and
               s["reason"].startswith("internal error:") for s in laptop)


def test_the_diff_claims_nothing_for_a_lost_result(tmp_path):
    """Without --in-place: the diff has no hunk for the file, and the
    summary counts no converted site in it."""
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    shutil.copy(GOOD, tree / "drivers" / "victim.c")
    proc = timerconv("convert", "-C", tree, check=0,
                     env={"PATH": losing_spatch(tmp_path, "victim")})
    assert proc.stdout == ""
    assert " 0 converted" in proc.stderr
    assert "internal error: the rewrite left drivers/victim.c:" in \
        proc.stderr
