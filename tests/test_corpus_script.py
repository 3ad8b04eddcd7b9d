# SPDX-License-Identifier: GPL-2.0
"""make corpus (tests/bench/corpus.py) on ../shared/corpus (read at run
time; skipped when it is not there), without its build: both modes are
printed, each block's numbers add up, and the summary says what the
blocks said.  Then the parts of its build check and lint that can be
tried without a kernel."""

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT, TIMERCONV
from oldkbuild import SHARED

sys.path.insert(0, str(ROOT / "tests" / "bench"))
import corpus  # noqa: E402

CORPUS = SHARED / "corpus"
SCRIPT = ROOT / "tests" / "bench" / "corpus.py"
SITES = re.compile(r"^old-API sites: (\d+) found, (\d+) converted "
                   r"\(([\d.]+) %\), (\d+) refused$", re.M)
SUMMARY = re.compile(r"^summary: (\S+) +(\d+)/(\d+) sites converted "
                     r"\(([\d.]+) %\)$")


@pytest.fixture(scope="module")
def both_modes():
    if not CORPUS.is_dir():
        pytest.skip("%s is not here (../shared/corpus)" % CORPUS)
    return subprocess.run([sys.executable, str(SCRIPT), "--no-build"],
                          capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ,
                                   TIMERCONV_BIN=str(TIMERCONV)))


def blocks(stdout):
    """{mode label: its block's text}, in the order printed."""
    parts = re.split(r"^== (\S+) ==$", stdout, flags=re.M)
    assert parts[0] == "", "output before the first mode: %r" % parts[0]
    return dict(zip(parts[1::2], parts[2::2]))


def test_both_modes_are_printed_and_add_up(both_modes):
    proc = both_modes
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    got = blocks(proc.stdout)
    assert list(got) == ["default", "--keep-data"], proc.stdout
    counts = {}
    for label, text in got.items():
        (m,) = SITES.findall(text)
        found, converted, pct, refused = int(m[0]), int(m[1]), m[2], \
            int(m[3])
        assert found > 0 and converted > 0, text
        assert converted + refused == found, text
        assert pct == "%.1f" % (100.0 * converted / found), text
        assert "\nlint: 0 errors\n" in text, text
        assert "spatch time-outs: 0; spatch failures: 0" in text, text
        assert "build (" not in text, "--no-build built: " + text
        counts[label] = (converted, found)
    # the same corpus in both; --keep-data converts more of it (README:
    # from 145 to 173 of 220 sites)
    assert counts["default"][1] == counts["--keep-data"][1], counts
    assert counts["--keep-data"][0] > counts["default"][0], counts


def test_summary_says_what_the_blocks_said(both_modes):
    proc = both_modes
    lines = proc.stdout.rstrip("\n").split("\n")
    sites = [(int(m[1]), int(m[0])) for m in SITES.findall(proc.stdout)]
    summary = [SUMMARY.match(line) for line in lines[-2:]]
    assert all(summary), lines[-3:]
    assert [m.group(1) for m in summary] == ["default", "--keep-data"]
    for m, (converted, found) in zip(summary, sites):
        assert (int(m.group(2)), int(m.group(3))) == (converted, found)
        assert m.group(4) == "%.1f" % (100.0 * converted / found)


def test_build_check_puts_the_kernel_tree_back(tmp_path):
    src = tmp_path / "linux"
    (src / "drivers" / "isdn").mkdir(parents=True)
    old = b"/* 4.14's own */\r\n\xff"
    (src / "drivers" / "isdn" / "fsm.c").write_bytes(old)
    files = {corpus.PurePosixPath("drivers/isdn/fsm.c"): b"corpus\n",
             corpus.PurePosixPath("01_day/sub/my_timer.c"): b"corpus\n"}
    with pytest.raises(RuntimeError):
        with corpus.placed(src, files):
            assert (src / "01_day" / "sub" / "my_timer.c").exists()
            raise RuntimeError("a failing build")
    assert (src / "drivers" / "isdn" / "fsm.c").read_bytes() == old
    assert sorted(p.name for p in src.iterdir()) == ["drivers"]


def test_corpus_files_go_to_their_kernel_path_with_their_headers(tmp_path):
    d = tmp_path / "Owner__linux" / "drivers" / "isdn" / "mISDN"
    d.mkdir(parents=True)
    for name in ("timerdev.c", "core.h", "other.c"):
        (d / name).write_text("")
    item = corpus.item_of(tmp_path, "Owner__linux/drivers/isdn/mISDN/"
                          "timerdev.c")
    assert {str(k): str(v) for k, v in item.files.items()} == {
        "drivers/isdn/mISDN/timerdev.c":
            "Owner__linux/drivers/isdn/mISDN/timerdev.c",
        "drivers/isdn/mISDN/core.h": "Owner__linux/drivers/isdn/mISDN/core.h"}
    assert corpus.object_of(item) == "drivers/isdn/mISDN/timerdev.o"
    other = corpus.item_of(tmp_path, "Other__tree/drivers/isdn/mISDN/x.c")
    groups = corpus.batches([item, other])
    assert len(groups) == 2, "two trees' files in one directory at once"


def test_lint_reads_no_code_under_if_0():
    text = ("#if 0\nstatic void f(unsigned long d) {}\n#else\nlive\n"
            "#endif\n#if 1\nyes\n#else\nno\n#endif\n")
    assert corpus.live_text(text).split("\n") == [
        "#if 0", "", "#else", "live", "#endif", "#if 1", "yes", "#else",
        "", "#endif", ""]
