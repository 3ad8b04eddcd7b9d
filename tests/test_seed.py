# SPDX-License-Identifier: GPL-2.0
"""The seed case: upstream commit bca237a52ca0 (block/laptop_mode).

The setup is in block/, the callback in mm/, its prototype in a header,
and the timer is reached through q->backing_dev_info, so the callback
must recover the backing_dev_info, not the queue.
"""

import shutil
import subprocess

from conftest import FIXTURES, read_report, timerconv

TREE = FIXTURES / "seed-tree"
EXPECTED = FIXTURES / "seed-expected"
CHANGED = ["block/blk-core.c", "include/linux/writeback.h",
           "mm/page-writeback.c"]


def copy_tree(tmp_path):
    dst = tmp_path / "linux"
    shutil.copytree(TREE, dst)
    return dst


def test_seed_converts_exactly_as_upstream(tmp_path):
    tree = copy_tree(tmp_path)
    timerconv("convert", "-C", tree, "--in-place", check=0)
    for path in CHANGED:
        assert (tree / path).read_text() == (EXPECTED / path).read_text(), \
            path
    for path in TREE.rglob("*"):
        rel = path.relative_to(TREE)
        if path.is_file() and str(rel) not in CHANGED:
            assert (tree / rel).read_bytes() == path.read_bytes(), rel


def test_seed_is_one_unit_across_three_directories(tmp_path):
    tree = copy_tree(tmp_path)
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    units = read_report(report)["units"]
    laptop = [u for u in units if "laptop_mode_timer_fn" in u["callbacks"]]
    assert len(laptop) == 1
    assert laptop[0]["outcome"] == "converted"
    assert laptop[0]["files"] == CHANGED


def test_seed_diff_applies_with_git_apply(tmp_path):
    tree = copy_tree(tmp_path)
    proc = timerconv("convert", "-C", tree, check=0)
    assert proc.stdout.startswith("--- a/block/blk-core.c\n+++ b/")
    patch = tmp_path / "seed.patch"
    patch.write_text(proc.stdout)
    subprocess.run(["git", "apply", "--directory=", "-p1", str(patch)],
                   cwd=tree, check=True)
    for path in CHANGED:
        assert (tree / path).read_text() == (EXPECTED / path).read_text()


def test_seed_diffstat_matches_upstream(tmp_path):
    """10 insertions, 9 deletions, as in the upstream commit."""
    tree = copy_tree(tmp_path)
    proc = timerconv("convert", "-C", tree, check=0)
    lines = proc.stdout.splitlines()
    added = [l for l in lines if l.startswith("+") and
             not l.startswith("+++")]
    removed = [l for l in lines if l.startswith("-") and
               not l.startswith("---")]
    assert (len(added), len(removed)) == (10, 9)


def test_seed_callback_using_queue_for_more_is_refused(tmp_path):
    """If laptop_mode_timer_fn() used q for anything but
    q->backing_dev_info, the queue cannot be recovered from the timer."""
    tree = copy_tree(tmp_path)
    cb = tree / "mm" / "page-writeback.c"
    text = cb.read_text().replace(
        "\twakeup_flusher_threads_bdi(q->backing_dev_info, "
        "WB_REASON_LAPTOP_TIMER);\n",
        "\tif (q->node >= 0)\n"
        "\t\twakeup_flusher_threads_bdi(q->backing_dev_info,\n"
        "\t\t\t\t\t   WB_REASON_LAPTOP_TIMER);\n")
    cb.write_text(text)
    before = {p: (tree / p).read_text() for p in CHANGED}
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    units = read_report(report)["units"]
    laptop = [u for u in units if "laptop_mode_timer_fn" in u["callbacks"]]
    assert laptop[0]["outcome"] == "refused"
    assert "for more than q->backing_dev_info" in laptop[0]["reason"]
    # The unit is untouched everywhere; the other timer still converts.
    assert (tree / "mm/page-writeback.c").read_text() == before[
        "mm/page-writeback.c"]
    assert (tree / "include/linux/writeback.h").read_text() == before[
        "include/linux/writeback.h"]
    blk = (tree / "block/blk-core.c").read_text()
    assert "setup_timer(&q->backing_dev_info->laptop_mode_wb_timer" in blk
    assert "timer_setup(&q->timeout, blk_rq_timed_out_timer, 0);" in blk


def test_seed_block_path_with_follow_units_converts_the_whole_unit(
        tmp_path):
    """With --follow-units, a PATH chooses the units; each still reaches
    mm/ and include/, or the result would not build.  (Without it the
    unit is refused: tests/test_paths.py.)"""
    tree = copy_tree(tmp_path)
    timerconv("convert", "-C", tree, "--in-place", "--follow-units",
              "block", check=0)
    for path in CHANGED:
        assert (tree / path).read_text() == (EXPECTED / path).read_text()
