# SPDX-License-Identifier: GPL-2.0
"""PATH runs see the whole unit: the sample tree's laptop_mode timer has
its callback in mm/, its setup in block/ and its prototype in include/,
as in upstream commit bca237a52ca0.  A run on mm/ alone finds what a
whole-tree run finds there; convert refuses the unit naming the file
outside, or converts it whole with --follow-units."""

import json

from conftest import FIXTURES, make_git_tree, timerconv

SAMPLE = FIXTURES / "sample-tree"
CALLBACK = ("mm/page-writeback.c", 52, "old-timer-api/ulong-callback")


def findings(tree, *paths):
    proc = timerconv("check", "-C", tree, "--format", "json", *paths)
    assert proc.returncode == 1, proc.stderr
    return {(f["file"], f["line"], f["kind"])
            for f in json.loads(proc.stdout)}


def test_check_of_a_directory_finds_a_callback_set_up_outside_it(tmp_path):
    tree = make_git_tree(SAMPLE, tmp_path / "linux")
    whole = {f for f in findings(tree) if f[0].startswith("mm/")}
    assert CALLBACK in whole
    assert findings(tree, "mm") == whole
    assert findings(tree, "mm/page-writeback.c") == whole


def test_convert_of_a_directory_refuses_the_unit_naming_the_file_outside(
        tmp_path):
    tree = make_git_tree(SAMPLE, tmp_path / "linux")
    proc = timerconv("convert", "-C", tree, "mm", check=0)
    assert proc.stdout == ""
    assert ("refused: unit extends outside the given paths: "
            "block/blk-core.c (--follow-units converts it whole)"
            ) in proc.stderr


def test_follow_units_converts_the_unit_whole_from_a_directory(tmp_path):
    tree = make_git_tree(SAMPLE, tmp_path / "linux")
    proc = timerconv("convert", "-C", tree, "--follow-units", "mm",
                     check=0)
    changed = {l[6:] for l in proc.stdout.splitlines()
               if l.startswith("+++ b/")}
    assert changed == {"block/blk-core.c", "include/linux/writeback.h",
                       "mm/page-writeback.c"}
    assert "void laptop_mode_timer_fn(struct timer_list *t)" in proc.stdout
