# SPDX-License-Identifier: GPL-2.0
"""Idioms that need more than one file: fixtures/trees/<name>/ holds an
input/ tree, its converted expected/ tree (checked by hand) and a
README.md saying what the case shows; `args`, when present, holds extra
convert options.  Every .c file builds against the shims: input/ with
the old API, expected/ with v4.15."""

import filecmp
import shutil

import pytest

from conftest import FIXTURES, compile_c, read_report, timerconv

TREES = FIXTURES / "trees"
NAMES = sorted(p.name for p in TREES.iterdir() if (p / "input").is_dir())


def files(root):
    return sorted(p.relative_to(root) for p in root.rglob("*")
                  if p.is_file())


@pytest.mark.parametrize("name", NAMES)
def test_tree_converts_as_expected(name, tmp_path):
    case = TREES / name
    tree = tmp_path / "tree"
    shutil.copytree(case / "input", tree)
    args = tree_args(name)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              *args, check=0)
    assert files(tree) == files(case / "expected")
    for rel in files(tree):
        assert filecmp.cmp(tree / rel, case / "expected" / rel,
                           shallow=False), rel
    bad = [s for s in read_report(report)["sites"]
           if s["outcome"] != "converted"]
    assert not bad, bad


def tree_args(name):
    args = TREES / name / "args"
    return args.read_text().split() if args.exists() else []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("side", ["input", "expected"])
def test_tree_builds(name, side):
    """input/ on the old API, expected/ on the level its --target names
    (v4.15 by default)."""
    args = tree_args(name)
    level = "old" if side == "input" else \
        args[args.index("--target") + 1] if "--target" in args else "v4.15"
    root = TREES / name / side
    sources = sorted(root.rglob("*.c"))
    assert sources, root
    for c in sources:
        proc = compile_c(c, level, extra=[c.parent])
        assert proc.returncode == 0, (c, proc.stderr)


def test_structs_local_to_two_files_are_two_units(tmp_path):
    """Same tag, same field, same static callback name in two drivers:
    two units, so one driver's refusal could not hold the other back."""
    tree = tmp_path / "tree"
    shutil.copytree(TREES / "struct_tag_local_to_each_file" / "input", tree)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    units = read_report(report)["units"]
    assert sorted(u["files"] for u in units) == [
        ["drivers/leds/delta/delta.c"], ["drivers/leds/gamma/gamma.c"]]
