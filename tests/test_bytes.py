# SPDX-License-Identifier: GPL-2.0
"""Odd bytes kept as they were: fixtures/bytes/<name>/ holds an input.c
as vendor trees ship them (CRLF, Latin-1, no final newline, a BOM) and
expected.c, the same bytes with only the converted lines changed."""

import shutil
import subprocess

import pytest

from conftest import FIXTURES, TIMERCONV, compile_c, make_git_tree, timerconv

BYTES = FIXTURES / "bytes"
NAMES = sorted(p.name for p in BYTES.iterdir() if (p / "input.c").exists())
REL = "drivers/leds/qux.c"


def tree_with(tmp_path, name):
    src = tmp_path / "src"
    (src / "drivers" / "leds").mkdir(parents=True)
    shutil.copyfile(BYTES / name / "input.c", src / REL)
    return make_git_tree(src, tmp_path / "tree")


@pytest.mark.parametrize("name", NAMES)
def test_in_place_changes_only_the_converted_lines(name, tmp_path):
    tree = tree_with(tmp_path, name)
    timerconv("convert", "-C", tree, "--in-place", check=0)
    assert (tree / REL).read_bytes() == \
        (BYTES / name / "expected.c").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_printed_diff_applies_to_the_same_bytes(name, tmp_path):
    tree = tree_with(tmp_path, name)
    # bytes, not text: the diff carries the file's own bytes
    proc = subprocess.run([str(TIMERCONV), "convert", "-C", str(tree)],
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    subprocess.run(["git", "apply", "-"], cwd=tree, input=proc.stdout,
                   check=True)
    assert (tree / REL).read_bytes() == \
        (BYTES / name / "expected.c").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_check_reports_the_lines_and_columns_of_plain_text(name, tmp_path):
    tree = tree_with(tmp_path, name)
    out = timerconv("check", "-C", tree, check=1).stdout
    found = sorted(line.split(": ")[0] for line in out.splitlines()
                   if line.startswith(REL))
    assert found == [REL + ":15:13", REL + ":28:2"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("side,level", [("input", "old"),
                                        ("expected", "v4.15")])
def test_fixture_builds(name, side, level):
    proc = compile_c(BYTES / name / (side + ".c"), level)
    assert proc.returncode == 0, proc.stderr
