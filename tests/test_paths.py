# SPDX-License-Identifier: GPL-2.0
"""A maintainer's run on their own subsystem: PATH arguments limit what
changes, never what is known; and a series' subjects are its own."""

import filecmp
import re
import shutil

from conftest import (CASES, FIXTURES, compile_c, git, make_git_tree,
                      read_report, timerconv)

SEED = FIXTURES / "seed-tree"
SEED_OUT = FIXTURES / "seed-expected"


def seed(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(SEED, tree)
    return tree


def converted_like_the_seed(tree):
    """Every file as seed-expected has it, or as it was if it does not."""
    for f in sorted(p.relative_to(tree) for p in tree.rglob("*")
                    if p.is_file()):
        want = SEED_OUT / f if (SEED_OUT / f).exists() else SEED / f
        if not filecmp.cmp(tree / f, want, shallow=False):
            return False
    return True


def test_struct_in_include_is_known_to_a_driver_path(tmp_path):
    """The seed's callback recovers q->backing_dev_info, which only the
    definitions in include/ resolve: with PATHs mm block include the
    conversion needs them all the same."""
    tree = seed(tmp_path)
    timerconv("convert", "-C", tree, "--in-place", "mm", "block",
              "include", check=0)
    assert converted_like_the_seed(tree)


def test_unit_crossing_the_paths_is_refused_naming_the_file(tmp_path):
    """laptop_mode_timer_fn() is set up in block/, defined in mm/ and
    declared in include/: a run on block/ alone leaves that unit alone,
    naming the first file outside; block's own unit converts."""
    tree = seed(tmp_path)
    report = tmp_path / "report.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, "block", check=0)
    core = (tree / "block" / "blk-core.c").read_text()
    assert "setup_timer(&q->backing_dev_info->laptop_mode_wb_timer" in core
    assert (tree / "mm" / "page-writeback.c").read_text() == \
        (SEED / "mm" / "page-writeback.c").read_text()
    sites = read_report(report)["sites"]
    assert sites and all(s["file"].startswith("block/") for s in sites)
    laptop = [s for s in sites if s["callback"] == "laptop_mode_timer_fn"]
    assert laptop
    for s in laptop:
        assert s["outcome"] == "refused"
        assert s["reason"].startswith(
            "unit extends outside the given paths: include/linux/"
            "writeback.h"), s["reason"]
    assert any(s["outcome"] == "converted" for s in sites)
    assert "unit extends outside the given paths" in proc.stderr


def test_follow_units_converts_the_unit_whole(tmp_path):
    tree = seed(tmp_path)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--follow-units",
              "--report", report, "block", check=0)
    assert converted_like_the_seed(tree)
    sites = read_report(report)["sites"]
    assert sites and all(s["outcome"] == "converted" for s in sites)


def test_path_run_and_whole_run_agree_on_the_sites_inside(tmp_path):
    """The same sites, the same outcome: a PATH run is the whole run
    seen through the PATH (for units that stay inside it)."""
    tree = tmp_path / "tree"
    (tree / "drivers" / "a").mkdir(parents=True)
    (tree / "drivers" / "b").mkdir(parents=True)
    for name in ("setup_timer_container_pointer", "refuse_two_casts",
                 "init_timer_fields_before"):
        text = (CASES / name / "input.c").read_text()
        (tree / "drivers" / "a" / (name + ".c")).write_text(text)
        (tree / "drivers" / "b" / (name + ".c")).write_text(
            text)
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    timerconv("convert", "-C", tree, "--report", whole, check=0)
    timerconv("convert", "-C", tree, "--report", part, "drivers/a", check=0)
    inside = [(s["file"], s["line"], s["kind"], s["outcome"], s["reason"])
              for s in read_report(whole)["sites"]
              if s["file"].startswith("drivers/a/")]
    assert inside and inside == [
        (s["file"], s["line"], s["kind"], s["outcome"], s["reason"])
        for s in read_report(part)["sites"]]


MAINTAINERS = """\
AMD NETWORK DRIVERS
M:\tAnn Amd <ann@amd.example>
S:\tMaintained
F:\tdrivers/net/ethernet/amd/
X:\tdrivers/net/ethernet/amd/pcnet32.c

PCNET32 NETWORK DRIVER
M:\tPat Pcnet <pat@pcnet.example>
S:\tMaintained
F:\tdrivers/net/ethernet/amd/pcnet32.c
"""


def test_series_subjects_are_unique_without_history(tmp_path):
    """Two MAINTAINERS sections share drivers/net/ethernet/amd and the
    tree has no history to take prefixes from: one patch is pcnet32's,
    the other the directory's, and no two subjects are the same."""
    src = tmp_path / "src"
    amd = src / "drivers" / "net" / "ethernet" / "amd"
    amd.mkdir(parents=True)
    (src / "MAINTAINERS").write_text(MAINTAINERS)
    good = (CASES / "setup_timer_container_pointer" / "input.c").read_text()
    for name in ("au1000_eth", "lance", "pcnet32"):
        (amd / (name + ".c")).write_text(good.replace("foo_", name + "_"))
    tree = make_git_tree(src, tmp_path / "linux", message="Initial import")
    out = tmp_path / "out"
    timerconv("series", "-C", tree, "--out", out, check=0)
    subjects = []
    for patch in sorted(out.glob("0*.patch")):
        m = re.search(r"^Subject: (.*)$", patch.read_text(), re.M)
        subjects.append(m.group(1))
    body = [s for s in subjects if "0/" not in s]
    assert len(body) == 2, subjects
    assert len(set(subjects)) == len(subjects), subjects
    assert any(re.search(r"\] net: pcnet32: Convert timers to use "
                         r"timer_setup\(\)$", s) for s in body), subjects
    assert any(re.search(r"\] net: amd: Convert timers", s)
               for s in body), subjects
