# SPDX-License-Identifier: GPL-2.0
"""timerconv check: the CI gate.  Findings are compared with the marker
comments in fixtures/check (`// expect: old-timer-api/<kind>` on every
line that must be reported, `// compat: ...` for compat code)."""

import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import (CASES, FIXTURES, TIMERCONV, git, make_git_tree,
                      timerconv)

CHECK = FIXTURES / "check"
MARK = re.compile(r"//\s*(expect|compat):\s*(old-timer-api/\S+)")


def markers(root, which="expect"):
    found = set()
    for path in sorted(root.rglob("*.[ch]")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            m = MARK.search(line)
            if m and m.group(1) == which:
                found.add((str(path.relative_to(root)), n, m.group(2)))
    return found


def check_json(root, *args, status=None):
    proc = timerconv("check", "-C", root, "--format", "json", *args,
                     check=status)
    return proc, json.loads(proc.stdout)


def as_set(findings, severity="warning"):
    return {(f["file"], f["line"], f["kind"]) for f in findings
            if f["severity"] == severity}


def test_every_finding_kind_is_reported():
    proc, findings = check_json(CHECK / "findings", status=1)
    assert as_set(findings) == markers(CHECK / "findings")
    kinds = {f["kind"] for f in findings}
    for kind in ("setup_timer", "init_timer", "data-field", "DEFINE_TIMER",
                 "TIMER_INITIALIZER", "ulong-callback"):
        assert "old-timer-api/" + kind in kinds


@pytest.mark.parametrize("name", sorted(p.name for p in
                                        (CHECK / "clean").iterdir()))
def test_false_alarm_shape_is_silent(name, tmp_path):
    shutil.copy(CHECK / "clean" / name, tmp_path / name)
    proc, findings = check_json(tmp_path, status=0)
    assert findings == []
    assert "no old timer API found" in proc.stderr


def test_compat_code_is_silent():
    proc, findings = check_json(CHECK / "compat", status=0)
    assert findings == []


def test_include_compat_shows_compat_code_as_notes():
    proc, findings = check_json(CHECK / "compat", "--include-compat",
                                status=0)
    assert findings
    assert as_set(findings, "note") == markers(CHECK / "compat", "compat")
    assert all(f["compat"] for f in findings)


def test_recall_on_every_fixture_input(tmp_path):
    """Every old-API input in fixtures/ has findings; no converted output
    has any."""
    inputs = 0
    for case in sorted(CASES.iterdir()):
        src = case / "input.c"
        if not src.exists():
            continue
        inputs += 1
        d = tmp_path / case.name
        d.mkdir()
        shutil.copy(src, d / "case.c")
        proc, findings = check_json(d)
        assert proc.returncode == 1 and findings, case.name
        if not (case / "reason").exists():
            shutil.copy(case / "expected.c", d / "case.c")
            proc, findings = check_json(d, status=0)
            assert findings == [], case.name
    assert inputs > 50, "fixtures/cases has %d inputs" % inputs
    # both setups, and both callbacks: the one in block/, and the one in
    # mm/ that is handed to a timer in block/
    proc, findings = check_json(FIXTURES / "seed-tree", status=1)
    assert sorted((f["file"], f["kind"]) for f in findings) == [
        ("block/blk-core.c", "old-timer-api/setup_timer"),
        ("block/blk-core.c", "old-timer-api/setup_timer"),
        ("block/blk-core.c", "old-timer-api/ulong-callback"),
        ("mm/page-writeback.c", "old-timer-api/ulong-callback")]
    proc, findings = check_json(FIXTURES / "seed-expected", status=0)


def test_files_that_spell_timer_only_in_capitals():
    """A file holding "TIMER" but not "timer" (a GPU driver's register
    headers, by the thousand) is skipped before lexing unless it can
    matter: it spells an old API name in capitals, hands a callback over
    through .function, sets .data, or defines a callback taking unsigned
    long.  Each file here does one of those, and none says "timer" (so no
    marker comments: the expectations are listed below)."""
    root = CHECK / "capitals"
    for path in root.glob("*.c"):
        assert "timer" not in path.read_text(), path.name
    proc, findings = check_json(root, status=1)
    assert sorted((f["file"], f["line"], f["kind"]) for f in findings) == [
        ("chip_bind.c", 8, "old-timer-api/data-field"),
        # handed over in chip_watchdog.c, chip_heartbeat.c, chip_poll.c
        ("chip_core.c", 5, "old-timer-api/ulong-callback"),
        ("chip_core.c", 12, "old-timer-api/ulong-callback"),
        ("chip_core.c", 16, "old-timer-api/ulong-callback"),
        ("chip_heartbeat.c", 5, "old-timer-api/DEFINE_TIMER"),
        ("chip_poll.c", 6, "old-timer-api/TIMER_DEFERRED_INITIALIZER")]
    assert "(7 files checked)" in proc.stderr


def test_text_output_is_gcc_style():
    proc = timerconv("check", "-C", CHECK / "findings", check=1)
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("timerconv: ")
    assert re.search(r"\d+ findings in \d+ files", lines[-1])
    pattern = re.compile(r"^[\w/.-]+:\d+:\d+: warning: .+ "
                         r"\[old-timer-api/[\w-]+\]$")
    for line in lines[:-1]:
        assert pattern.match(line), line
    assert ("setup_family.c:16:2: warning: setup_timer() was removed in "
            "v4.15; use timer_setup() [old-timer-api/setup_timer]") in \
        proc.stdout


def test_json_output_fields():
    proc, findings = check_json(CHECK / "findings", status=1)
    for f in findings:
        assert {"file", "line", "column", "kind", "message", "function",
                "fingerprint", "severity"} <= set(f)
        assert f["column"] >= 1


def test_sarif_has_the_fields_the_schema_requires():
    proc = timerconv("check", "-C", CHECK / "findings", "--format", "sarif",
                     check=1)
    log = json.loads(proc.stdout)
    # sarifLog: version and runs are required
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    # run: tool; tool: driver; toolComponent: name
    driver = run["tool"]["driver"]
    assert driver["name"] == "timerconv"
    rule_ids = set()
    for rule in driver.get("rules", []):
        assert isinstance(rule["id"], str)   # reportingDescriptor: id
        rule_ids.add(rule["id"])
    assert run["results"]
    for result in run["results"]:
        # result: message, with text (or id)
        assert result["message"]["text"]
        assert result["ruleId"] in rule_ids
        assert result["level"] in ("none", "note", "warning", "error")
        for loc in result["locations"]:
            phys = loc["physicalLocation"]
            assert phys["artifactLocation"]["uri"]
            assert phys["region"]["startLine"] >= 1
            assert phys["region"]["startColumn"] >= 1


def test_github_annotations():
    proc = timerconv("check", "-C", CHECK / "findings", "--format",
                     "github", check=1)
    pattern = re.compile(r"^::warning file=[^,]+,line=\d+,col=\d+,"
                         r"title=old-timer-api/[\w-]+::.+$")
    lines = proc.stdout.splitlines()
    assert lines
    for line in lines:
        assert pattern.match(line), line


def test_exit_status_two_for_a_path_that_does_not_exist():
    proc = timerconv("check", "-C", CHECK, "no/such/dir", check=2)
    assert "no/such/dir" in proc.stderr
    proc = timerconv("check", "-C", "/no/such/tree", check=2)
    assert "/no/such/tree" in proc.stderr


def test_exit_status_two_for_an_unreadable_file():
    top = tempfile.mkdtemp(prefix="timerconv-unreadable-")
    os.chmod(top, 0o755)
    tree = pathlib.Path(top) / "tree"
    tree.mkdir()
    bad = tree / "secret.c"
    bad.write_text("void f(void) { init_timer(&t); }\n")
    bad.chmod(0)
    cmd = []
    if os.geteuid() == 0:
        # root reads anything: run as nobody, for whom the file is unreadable
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup",
               "--clear-groups"]
    proc = subprocess.run(cmd + [str(TIMERCONV), "check", "-C", str(tree)],
                          capture_output=True, text=True)
    shutil.rmtree(top)
    assert proc.returncode == 2, proc.stderr
    assert "secret.c" in proc.stderr


def test_bad_format_is_an_error():
    timerconv("check", "-C", CHECK, "--format", "xml", check=2)


def test_baseline_survives_line_shifts(tmp_path):
    tree = tmp_path / "t"
    shutil.copytree(CHECK / "findings", tree)
    baseline = tmp_path / "baseline.json"
    timerconv("check", "-C", tree, "--write-baseline", baseline, check=0)
    assert json.loads(baseline.read_text())["findings"]
    # Move every finding down by adding lines above them.
    for path in tree.glob("*.c"):
        path.write_text("/* a new header comment */\n\n" + path.read_text())
    proc, findings = check_json(tree, "--baseline", baseline, status=0)
    assert findings == []
    # A new old-API call is reported, and only it.
    f = tree / "init_family.c"
    f.write_text(f.read_text() + "\nvoid late(struct port *p)\n{\n"
                 "\tsetup_timer(&p->rx_timer, port_tx, (unsigned long)p);\n"
                 "}\n")
    proc, findings = check_json(tree, "--baseline", baseline, status=1)
    assert [(x["file"], x["kind"], x["function"]) for x in findings] == [
        ("init_family.c", "old-timer-api/setup_timer", "late")]


@pytest.mark.parametrize("text", ["", "[]", '{"findings": 1}'])
def test_baseline_that_is_not_one_is_an_error(text, tmp_path):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(text)
    proc = timerconv("check", "-C", CHECK / "findings", "--baseline",
                     baseline, check=2)
    assert "not a timerconv baseline" in proc.stderr
    assert "CRITICAL" not in proc.stderr


def test_baseline_skips_entries_that_are_not_findings(tmp_path):
    tree = tmp_path / "t"
    shutil.copytree(CHECK / "findings", tree)
    baseline = tmp_path / "baseline.json"
    timerconv("check", "-C", tree, "--write-baseline", baseline, check=0)
    doc = json.loads(baseline.read_text())
    doc["findings"] += [1, "x", None, {"fingerprint": {}}, {}]
    baseline.write_text(json.dumps(doc))
    proc, findings = check_json(tree, "--baseline", baseline, status=0)
    assert findings == []
    assert "CRITICAL" not in proc.stderr


def test_since_reports_only_added_lines(tmp_path):
    tree = make_git_tree(CHECK / "findings", tmp_path / "t")
    proc, findings = check_json(tree, "--since", "HEAD", status=0)
    assert findings == []
    f = tree / "static_timers.c"
    f.write_text(f.read_text() +
                 "\nstatic DEFINE_TIMER(extra_timer, heartbeat, 0, 0);\n")
    proc, findings = check_json(tree, "--since", "HEAD", status=1)
    assert [(x["file"], x["kind"]) for x in findings] == [
        ("static_timers.c", "old-timer-api/DEFINE_TIMER")]
    new = tree / "new_driver.c"
    new.write_text("void g(void) { init_timer(&x); }\n")
    proc, findings = check_json(tree, "--since", "HEAD", status=1)
    assert ("new_driver.c", "old-timer-api/init_timer") in \
        {(x["file"], x["kind"]) for x in findings}


def test_since_outside_git_is_an_error(tmp_path):
    shutil.copytree(CHECK / "findings", tmp_path / "t")
    proc = timerconv("check", "-C", tmp_path / "t", "--since", "HEAD",
                     check=2)
    assert "--since" in proc.stderr


# ---- --cached: what a commit would take (the pre-commit hook) ----

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def commit(tree, *args):
    return subprocess.run(
        ["git", "-c", "user.name=A", "-c", "user.email=a@example.org",
         "commit", "-q", "-m", "change", *args], cwd=tree,
        capture_output=True, text=True)


def readme_hook(tree, monkeypatch):
    """Install the README's pre-commit hook, with this timerconv first
    on PATH."""
    text = README.read_text()
    m = re.search(r"```sh\n(#!/bin/sh\n.*?)```", text, re.S)
    assert m and "timerconv check" in m.group(1), "no hook in README.md"
    hook = tree / ".git" / "hooks" / "pre-commit"
    hook.write_text(m.group(1))
    hook.chmod(0o755)
    bindir = tree.parent / "bin"
    bindir.mkdir(exist_ok=True)
    link = bindir / "timerconv"
    if not link.exists():
        link.symlink_to(pathlib.Path(os.environ.get(
            "TIMERCONV_BIN", README.parent / "build" / "timerconv")).resolve())
    monkeypatch.setenv("PATH", "%s:%s" % (bindir, os.environ["PATH"]))


def test_cached_checks_what_is_staged_not_the_work_tree(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    git("init", "-q", cwd=tree)
    (tree / "doc.txt").write_text("doc\n")
    git("add", "doc.txt", cwd=tree)
    assert commit(tree).returncode == 0
    # an unstaged setup_timer() does not block a commit of doc.txt
    (tree / "drv.c").write_text(GOOD.read_text())
    (tree / "doc.txt").write_text("more doc\n")
    git("add", "doc.txt", cwd=tree)
    proc, findings = check_json(tree, "--cached", status=0)
    assert findings == []
    # staged, it is reported, even once the work tree drops it again
    git("add", "drv.c", cwd=tree)
    (tree / "drv.c").write_text("/* not yet */\n")
    proc, findings = check_json(tree, "--cached", status=1)
    assert {(f["file"], f["kind"]) for f in findings} >= {
        ("drv.c", "old-timer-api/setup_timer")}
    # staged, then deleted from the work tree: still committed
    (tree / "drv.c").unlink()
    proc, findings = check_json(tree, "--cached", status=1)
    assert {f["file"] for f in findings} == {"drv.c"}


def test_cached_works_on_a_repositorys_first_commit(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    git("init", "-q", cwd=tree)
    (tree / "drv.c").write_text(GOOD.read_text())
    (tree / "doc.txt").write_text("doc\n")
    git("add", "doc.txt", cwd=tree)
    proc, findings = check_json(tree, "--cached", status=0)
    assert findings == []
    git("add", "drv.c", cwd=tree)
    proc, findings = check_json(tree, "--cached", status=1)
    assert {f["file"] for f in findings} == {"drv.c"}
    # --since HEAD before the first commit: every line is added
    proc, findings = check_json(tree, "--since", "HEAD", status=1)
    assert {f["file"] for f in findings} == {"drv.c"}


def test_the_readmes_pre_commit_hook(tmp_path, monkeypatch):
    tree = tmp_path / "t"
    tree.mkdir()
    git("init", "-q", cwd=tree)
    readme_hook(tree, monkeypatch)
    # first commit, clean
    (tree / "doc.txt").write_text("doc\n")
    git("add", "doc.txt", cwd=tree)
    proc = commit(tree)
    assert proc.returncode == 0, proc.stderr
    # an unstaged old-API file does not block a doc change
    (tree / "drv.c").write_text(GOOD.read_text())
    (tree / "doc.txt").write_text("more\n")
    git("add", "doc.txt", cwd=tree)
    proc = commit(tree)
    assert proc.returncode == 0, proc.stderr
    # staging it does
    git("add", "drv.c", cwd=tree)
    proc = commit(tree)
    assert proc.returncode != 0
    assert "drv.c" in proc.stdout + proc.stderr


def test_cached_outside_git_is_an_error(tmp_path):
    shutil.copytree(CHECK / "findings", tmp_path / "t")
    proc = timerconv("check", "-C", tmp_path / "t", "--cached", check=2)
    assert "--cached" in proc.stderr and "not in a git work tree" \
        in proc.stderr


def test_since_a_revision_that_does_not_exist_says_what_git_says(tmp_path):
    tree = make_git_tree(CHECK / "findings", tmp_path / "t")
    proc = timerconv("check", "-C", tree, "--since", "nosuch", check=2)
    assert "--since nosuch" in proc.stderr
    assert "bad revision 'nosuch'" in proc.stderr
