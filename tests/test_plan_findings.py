# SPDX-License-Identifier: GPL-2.0
"""Idioms behind fuzz_plan's findings (fuzz/fuzz_plan.c), converted end
to end: each once broke one of the planner's invariants."""

import shutil

from conftest import FIXTURES, compile_c, read_report, timerconv

PLAN = FIXTURES / "plan"


def test_a_callback_kept_twice_converts_the_live_copy_only(tmp_path):
    """A driver kept twice, the old copy in #if 0 under the same names:
    the live callback and its setup convert, the dead copy stays as it
    is, its sites refused as dead code, never inside the live unit."""
    case = PLAN / "callback_kept_twice_dead_copy_in_if0"
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    src = tree / "drivers" / "blink.c"
    shutil.copy(case / "input.c", src)
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    assert src.read_text() == (case / "expected.c").read_text()
    sites = read_report(report)["sites"]
    live = [s for s in sites if s["line"] < 26]
    dead = [s for s in sites if s["line"] > 26]
    assert [s["kind"] for s in live] == ["ulong-callback", "setup_timer"]
    assert all(s["outcome"] == "converted" for s in live)
    assert dead and all(s["outcome"] == "refused" and
                        s["reason"] == "dead code (#if 0)" and
                        s["unit"] is None for s in dead)
    assert compile_c(src, "v4.15").returncode == 0
