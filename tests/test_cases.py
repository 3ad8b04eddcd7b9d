# SPDX-License-Identifier: GPL-2.0
"""The idiom catalogue: one fixture per idiom in fixtures/cases/<name>/.

Each case has input.c (old API, builds against fixtures/include/old) and
expected.c, checked by hand: the converted file, which builds against the
strict v4.15 shims, or, where the site must be refused, input.c unchanged
with the reason in a file named `reason`.  A case whose `args` name a
`--target` level (v4.14) builds its expected.c against that level's
shims.
"""

import shutil

import pytest

from conftest import CASES, compile_c, read_report, timerconv

NAMES = sorted(p.name for p in CASES.iterdir() if (p / "input.c").exists())


def case(name):
    d = CASES / name
    reason = d / "reason"
    return {
        "input": (d / "input.c").read_text(),
        "expected": (d / "expected.c").read_text(),
        "reason": reason.read_text().strip() if reason.exists() else None,
        "args": (d / "args").read_text().split() if (d / "args").exists()
        else [],
    }


def target_level(args):
    """The shim level a case's output is built against: its --target."""
    if "--target" in args:
        return args[args.index("--target") + 1]
    return "v4.15"


def convert_one(tmp_path, text, args=()):
    tree = tmp_path / "tree"
    src = tree / "drivers" / "misc" / "case.c"
    src.parent.mkdir(parents=True)
    src.write_text(text)
    report = tmp_path / "report.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, *args, check=0)
    return src.read_text(), read_report(report), proc


@pytest.mark.parametrize("name", NAMES)
def test_case_converts_as_expected(name, tmp_path):
    c = case(name)
    out, report, proc = convert_one(tmp_path, c["input"], c["args"])
    assert out == c["expected"], proc.stderr
    sites = report["sites"]
    assert sites, "the scan found no old-API site"
    if c["reason"]:
        assert c["expected"] == c["input"], "a refused case must not change"
        refused = [s for s in sites if s["outcome"] == "refused"]
        assert refused, "nothing was refused"
        assert any(c["reason"] in s["reason"] for s in refused), \
            [s["reason"] for s in refused]
    else:
        bad = [s for s in sites if s["outcome"] != "converted"]
        assert not bad, bad


@pytest.mark.parametrize("name", NAMES)
def test_case_input_builds_on_old_api(name, tmp_path):
    proc = compile_c(CASES / name / "input.c", "old")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", [n for n in NAMES if not case(n)["reason"]])
def test_case_output_builds_on_new_api(name):
    proc = compile_c(CASES / name / "expected.c",
                     target_level(case(name)["args"]))
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", NAMES)
def test_case_is_idempotent(name, tmp_path):
    """Converting the result again changes nothing."""
    c = case(name)
    out, report, _ = convert_one(tmp_path, c["expected"], c["args"])
    assert out == c["expected"]
    if not c["reason"]:
        assert not report["sites"], report["sites"]
