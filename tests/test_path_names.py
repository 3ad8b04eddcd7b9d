# SPDX-License-Identifier: GPL-2.0
"""File names as users have them (issue 23 item 3, issue 29 rows 14, 15,
18 and 19): spaces, quotes, # and %, UTF-8 and Latin-1 bytes, a leading
dash, deep nesting and shell syntax, through convert (diff and
--in-place), series and check, end to end.

spatch 1.1.1 runs diff through a shell without quoting: a file spatch
saw under such a name kept its old text while the report said
"converted".  spatch now sees only copies under safe names."""

import json
import os
import shutil
import subprocess
import urllib.parse

import pytest

from conftest import CASES, FIXTURES, TIMERCONV, git, timerconv

MODULE_DIR = FIXTURES / "compat-module"
GOOD = CASES / "setup_timer_container_pointer"
GOOD_IN = (GOOD / "input.c").read_text()
GOOD_OUT = (GOOD / "expected.c").read_text()

SHAPES = {
    "space": "drv/my file.c",
    "quotes": "drv/it's \"quoted\".c",
    "hash_and_percent": "drv/sp ace#100%.c",
    "utf8": "drv/na\u00efve.c",
    "latin1": os.fsdecode(b"drv/lat\xe9.c"),
    "leading_dash": "-lead.c",
    "deep_nesting": "/".join("d%d" % i for i in range(24)) + "/deep.c",
    "shell_syntax": "drv/$(x) `y` *;&|.c",
}
IDS = list(SHAPES)


def shape_tree(tmp_path, name, root="my tree", git_repo=False):
    """A tree (its root's name has a space) with GOOD's input at name."""
    tree = tmp_path / root
    path = tree / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(GOOD_IN)
    if git_repo:
        git("init", "-q", cwd=tree)
        git("add", "-A", cwd=tree)
        git("-c", "user.name=Tree Owner", "-c",
            "user.email=owner@example.org", "commit", "-q", "-m", "import",
            cwd=tree)
    return tree


def arg(name):
    """A PATH argument for name: a leading dash goes after "--"."""
    return ["--", name] if name.startswith("-") else [name]


def shown(name):
    """name as the JSON outputs write it: bytes that are not UTF-8 as
    \\xNN."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def load_json(path_or_text):
    """Strict: the bytes must be UTF-8."""
    if isinstance(path_or_text, str):
        return json.loads(path_or_text)
    return json.loads(path_or_text.read_bytes().decode("utf-8"))


# ---- convert --in-place ----

@pytest.mark.parametrize("shape", IDS)
def test_convert_in_place_converts_a_file_named_with(shape, tmp_path):
    name = SHAPES[shape]
    tree = shape_tree(tmp_path, name)
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, *arg(name), check=0)
    assert (tree / name).read_text() == GOOD_OUT
    rep = load_json(report)
    assert rep["files_changed"] == [shown(name)]
    assert rep["summary"]["converted"] == rep["summary"]["sites"] == 2
    assert {s["file"] for s in rep["sites"]} == {shown(name)}
    assert "2 converted, 0 refused; 1 file changed" in proc.stderr


# ---- convert's diff ----

@pytest.mark.parametrize("shape", IDS)
def test_convert_diff_of_a_file_named_with(shape, tmp_path):
    """The diff names the file as git does, so that both git apply and
    GNU patch find it."""
    name = SHAPES[shape]
    tree = shape_tree(tmp_path, name)
    proc = subprocess.run([str(_bin()), "convert", "-C", str(tree)],
                          capture_output=True, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout
    assert (tree / name).read_text() == GOOD_IN
    for tool in (["git", "apply"], ["patch", "-s", "-p1"]):
        copy = tmp_path / ("copy-" + tool[0])
        shutil.copytree(tree, copy)
        if tool[0] == "git":
            git("init", "-q", cwd=copy)
        subprocess.run(tool, input=proc.stdout, cwd=copy, check=True)
        assert (copy / name).read_text() == GOOD_OUT, tool


def _bin():
    return TIMERCONV


def _env():
    env = dict(os.environ)
    env.pop("TIMERCONV_COCCI_DIR", None)
    return env


def run_bytes(*args, check):
    """timerconv with its output as bytes: gcc-style text prints a file
    name as it is, and a Latin-1 one is not UTF-8."""
    proc = subprocess.run([str(_bin()), *map(str, args)],
                          capture_output=True, env=_env())
    assert proc.returncode == check, proc.stderr
    return proc


# ---- series ----

@pytest.mark.parametrize("shape", IDS)
def test_series_of_a_file_named_with(shape, tmp_path):
    """The patches apply with git am and give convert's result."""
    name = SHAPES[shape]
    tree = shape_tree(tmp_path, name, git_repo=True)
    out = tmp_path / "patches"
    timerconv("series", "-C", tree, "--out", out, check=0)
    patches = sorted(p for p in out.iterdir()
                     if not p.name.startswith("0000-"))
    assert patches
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(tree), str(clone)],
                   check=True)
    git("-c", "user.name=Reviewer", "-c", "user.email=r@example.org", "am",
        "-q", *map(str, patches), cwd=clone)
    assert (clone / name).read_text() == GOOD_OUT


# ---- check ----

@pytest.mark.parametrize("shape", IDS)
def test_check_of_a_file_named_with(shape, tmp_path):
    name = SHAPES[shape]
    tree = shape_tree(tmp_path, name)
    text = subprocess.run([str(_bin()), "check", "-C", str(tree),
                           *arg(name)], capture_output=True, env=_env())
    assert text.returncode == 1, text.stderr
    assert text.stdout.startswith(os.fsencode(name) + b":15:13: warning:")
    js = subprocess.run([str(_bin()), "check", "-C", str(tree),
                         "--format", "json"], capture_output=True,
                        env=_env())
    findings = load_json(js.stdout.decode("utf-8"))
    assert {f["file"] for f in findings} == {shown(name)}
    sarif = subprocess.run([str(_bin()), "check", "-C", str(tree),
                            "--format", "sarif"], capture_output=True,
                           env=_env())
    doc = load_json(sarif.stdout.decode("utf-8"))
    for res in doc["runs"][0]["results"]:
        uri = res["locations"][0]["physicalLocation"][
            "artifactLocation"]["uri"]
        assert urllib.parse.unquote_to_bytes(uri) == os.fsencode(name)
        assert not set(uri) & set(" #\"'`$;&|*"), uri


# ---- every spatch pass ----

@pytest.mark.parametrize("name", ["drv/plain.c", SHAPES["space"],
                                  SHAPES["latin1"]],
                         ids=["plain", "space", "latin1"])
def test_convert_as_two_passes_in_a_tree_whose_root_has_a_space(
        name, tmp_path):
    """Facts and patch as two passes: the facts pass reads the tree's own
    files, not copies, unless spatch cannot take their names (here the
    root's name has a space: never)."""
    tree = shape_tree(tmp_path, name)
    timerconv("convert", "-C", tree, "--in-place", check=0,
              env={"TIMERCONV_NO_SPECULATE": "1"})
    assert (tree / name).read_text() == GOOD_OUT


@pytest.mark.parametrize("shape", ["space", "latin1"])
def test_compat_include_pass_takes_a_file_named_with(shape, tmp_path):
    """--compat-header runs facts and patch as two passes, the patch pass
    with the rule that adds the #include."""
    name = SHAPES[shape]
    mod = tmp_path / "module dir"
    shutil.copytree(MODULE_DIR, mod)
    src = mod / "src" / "acme_mod.c"
    moved = mod / "src" / os.path.basename(name)
    src.rename(moved)
    report = tmp_path / "r.json"
    timerconv("convert", "-C", mod, "--in-place", "--target", "v6.16",
              "--compat-header", "include/acme_timer_compat.h",
              "--report", report, check=0)
    text = moved.read_text()
    assert '#include "../include/acme_timer_compat.h"' in text
    assert "timer_setup" in text
    rep = load_json(report)
    assert shown("src/" + os.path.basename(name)) in rep["files_changed"]


# ---- issue 29 row 14: names that are not UTF-8 ----

def latin1_tree(tmp_path):
    return shape_tree(tmp_path, SHAPES["latin1"], root="tree")


def test_check_json_escapes_a_latin1_file_name(tmp_path):
    tree = latin1_tree(tmp_path)
    proc = subprocess.run([str(_bin()), "check", "-C", str(tree),
                           "--format", "json"], capture_output=True,
                          env=_env())
    assert [f["file"] for f in load_json(proc.stdout.decode("utf-8"))] \
        == ["drv/lat\\xe9.c"] * 2


def test_baseline_written_with_a_latin1_file_name_is_read_back(tmp_path):
    tree = latin1_tree(tmp_path)
    base = tmp_path / "base.json"
    run_bytes("check", "-C", tree, "--write-baseline", base, check=0)
    assert load_json(base)["findings"][0]["file"] == "drv/lat\\xe9.c"
    proc = run_bytes("check", "-C", tree, "--baseline", base, check=0)
    assert b"no old timer API found" in proc.stdout


def test_baseline_with_raw_latin1_bytes_is_still_read(tmp_path):
    """A baseline written before names were escaped holds the raw byte:
    only its fingerprints matter."""
    tree = latin1_tree(tmp_path)
    base = tmp_path / "base.json"
    run_bytes("check", "-C", tree, "--write-baseline", base, check=0)
    base.write_bytes(base.read_bytes().replace(b"lat\\\\xe9", b"lat\xe9"))
    assert b"\xe9" in base.read_bytes()
    run_bytes("check", "-C", tree, "--baseline", base, check=0)


def test_a_baseline_that_does_not_parse_is_named(tmp_path):
    tree = latin1_tree(tmp_path)
    base = tmp_path / "broken.json"
    base.write_text('{"findings": [')
    proc = run_bytes("check", "-C", tree, "--baseline", base, check=2)
    assert os.fsencode(base) + b": " in proc.stderr


# ---- issue 29 row 15: PATHs normalised ----

def test_check_takes_an_absolute_path_inside_the_tree(tmp_path):
    tree = shape_tree(tmp_path, "drivers/a.c")
    proc = timerconv("check", "-C", tree, tree / "drivers", check=1)
    assert proc.stdout.startswith("drivers/a.c:15:13:")


def test_check_normalises_dot_dot_inside_the_tree(tmp_path):
    tree = shape_tree(tmp_path, "sound/a.c")
    (tree / "drivers").mkdir()
    proc = timerconv("check", "-C", tree, "drivers/../sound/", check=1)
    assert proc.stdout.startswith("sound/a.c:15:13:")


def test_check_says_outside_the_tree_only_when_it_is(tmp_path):
    tree = shape_tree(tmp_path, "drivers/a.c")
    (tmp_path / "elsewhere").mkdir()
    for path in (tmp_path / "elsewhere", "drivers/../..", "/"):
        proc = timerconv("check", "-C", tree, path, check=2)
        assert "outside the tree" in proc.stderr, path
    proc = timerconv("check", "-C", tree, "drivers/nosuch.c", check=2)
    assert "drivers/nosuch.c: no such file or directory" in proc.stderr


# ---- issue 29 row 18: SARIF ----

def test_sarif_uri_is_a_percent_encoded_uri_reference(tmp_path):
    tree = shape_tree(tmp_path, "drv/sp ace#100%.c")
    proc = timerconv("check", "-C", tree, "--format", "sarif", check=1)
    loc = json.loads(proc.stdout)["runs"][0]["results"][0]["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"] == {
        "uri": "drv/sp%20ace%23100%25.c", "uriBaseId": "SRCROOT"}


def test_sarif_rule_texts_do_not_name_the_first_finding(tmp_path):
    """Two callbacks: the rule for callbacks describes the kind, not
    whichever callback came first."""
    tree = shape_tree(tmp_path, "drv/a.c")
    (tree / "drv" / "b.c").write_text(
        GOOD_IN.replace("foo_watchdog", "bar_watchdog"))
    proc = timerconv("check", "-C", tree, "--format", "sarif", check=1)
    rules = json.loads(proc.stdout)["runs"][0]["tool"]["driver"]["rules"]
    texts = {r["id"]: r["shortDescription"]["text"] for r in rules}
    assert "watchdog" not in texts["old-timer-api/ulong-callback"]
    assert texts["old-timer-api/setup_timer"] == \
        "setup_timer() was removed in v4.15; use timer_setup()"


# ---- issue 29 row 19: symbolic links ----

@pytest.mark.parametrize("git_repo", [False, True], ids=["dir", "git"])
def test_symlinked_c_file_is_reported_not_skipped_silently(git_repo,
                                                            tmp_path):
    tree = shape_tree(tmp_path, "drv/real.c", root="tree")
    (tree / "drv" / "link.c").symlink_to("real.c")
    (tree / "drv" / "away.c").symlink_to(GOOD / "input.c")
    if git_repo:
        git("init", "-q", cwd=tree)
        git("add", "-A", cwd=tree)
    proc = timerconv("check", "-C", tree, check=1)
    assert "drv/link.c: symbolic link to drv/real.c, skipped" in \
        proc.stderr
    assert "drv/away.c: symbolic link to %s, outside the tree" % (
        GOOD / "input.c") in proc.stderr
    assert "2 findings in 1 file" in proc.stdout
    proc = timerconv("convert", "-C", tree, "--in-place", check=0)
    assert "drv/link.c: symbolic link to drv/real.c, skipped" in \
        proc.stderr
    assert (tree / "drv" / "link.c").is_symlink()
    assert (tree / "drv" / "real.c").read_text() == GOOD_OUT


def test_a_symlink_named_as_a_path_is_followed_inside_the_tree(tmp_path):
    tree = shape_tree(tmp_path, "drv/real.c", root="tree")
    (tree / "alias").symlink_to("drv")
    proc = timerconv("check", "-C", tree, "alias/real.c", check=1)
    assert proc.stdout.startswith("drv/real.c:15:13:")
    (tree / "away.c").symlink_to(GOOD / "input.c")
    proc = timerconv("check", "-C", tree, "away.c", check=2)
    assert "away.c: outside the tree" in proc.stderr
