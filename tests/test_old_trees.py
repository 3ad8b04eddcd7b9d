# SPDX-License-Identifier: GPL-2.0
"""Real old kernel trees (../shared/kbuild): linux 4.14, which has
timer_setup() but none of v4.15's forms around it, converted at its own
level; linux 4.9, which predates timer_setup(), converted with
--compat-header.  Every changed .c file is compiled with the tree's own
kbuild before and after: nothing that built before may stop building,
and the conversions must really have happened."""

import shutil
import subprocess
from pathlib import Path

import pytest

import oldkbuild
from conftest import read_report, timerconv

# version: (options, files that must have changed at least, the level
# the tree's own timer.h gives)
TREES = {
    "4.14": ([], 25, "v4.14"),
    "4.9": (["--compat-header", "include/linux/timerconv_compat.h"], 25,
            "pre-v4.15"),
}


def git_changed(tree):
    out = subprocess.run(["git", "status", "--porcelain"], cwd=tree,
                         check=True, capture_output=True, text=True).stdout
    return sorted(line[3:] for line in out.splitlines())


@pytest.fixture(scope="module")
def prepared(old_kbuild_sources, tmp_path_factory):
    """version -> (pristine tree, prepared build directory)."""
    cache = {}

    def get(version):
        if version in cache:
            return cache[version]
        src = old_kbuild_sources(version)
        out = tmp_path_factory.mktemp("o-" + version)
        proc = oldkbuild.prepare(src, version, out)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
        cache[version] = (src, out)
        return cache[version]
    return get


@pytest.mark.parametrize("version", sorted(TREES))
def test_nothing_that_built_stops_building(version, prepared, tmp_path):
    src, out = prepared(version)
    options, at_least, level = TREES[version]
    tree = tmp_path / "tree"
    shutil.copytree(src, tree, symlinks=True)
    report = tmp_path / "report.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, *options, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    changed = git_changed(tree)
    assert len(changed) >= at_least, (changed, proc.stderr)
    r = read_report(report)
    # the level comes from the tree's headers, not a default
    assert r["target"]["auto"] and r["target"]["level"] == level, r["target"]
    assert Path(r["target"]["header"]).resolve() == \
        (tree / "include" / "linux" / "timer.h").resolve()
    assert r["summary"]["converted"] > 0
    objects = [c[:-2] + ".o" for c in changed if c.endswith(".c")]
    before = oldkbuild.build_objects(src, out, version, objects)
    assert before, "the config builds none of the changed files"
    # the same build directory, now reading the converted tree
    after = oldkbuild.build_objects(tree, out, version, objects)
    broken = sorted(before - after)
    assert not broken, broken
