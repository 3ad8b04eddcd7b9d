# SPDX-License-Identifier: GPL-2.0
"""The command line as a maintainer meets it: --help in any locale,
--version everywhere, option values checked, errors up front, git's own
messages, running from a subdirectory, and the packaging (manual pages,
bash completion, make install and uninstall)."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import (CASES, ROOT, TIMERCONV, git, make_git_tree,
                      spatch_wrapper, timerconv)

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
COMMANDS = ("convert", "series", "check")


def small_tree(tmp_path):
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    (tree / "drivers" / "foo.c").write_text(GOOD.read_text())
    return tree


# ---- row 17: --help in any locale ----

@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_in_the_c_locale_is_ascii_with_one_path(cmd):
    proc = timerconv(cmd, "--help", env={"LC_ALL": "C"}, check=0)
    usage = proc.stdout.splitlines()[0]
    assert usage == "Usage: timerconv %s [OPTION...] [PATH...]" % cmd
    assert proc.stdout.isascii()
    assert "?" not in usage


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_in_a_utf8_locale_keeps_its_ellipsis(cmd):
    proc = timerconv(cmd, "--help", env={"LC_ALL": "C.UTF-8"}, check=0)
    assert proc.stdout.splitlines()[0] == \
        "Usage: timerconv %s [OPTION…] [PATH…]" % cmd


def test_top_level_help_in_the_c_locale_is_ascii():
    proc = timerconv("--help", env={"LC_ALL": "C"}, check=0)
    assert proc.stdout.isascii()
    assert proc.stdout.startswith(
        "Usage: timerconv COMMAND [OPTION...] [PATH...]\n")


# ---- row 21: --version anywhere ----

@pytest.mark.parametrize("where", [(), ("convert",), ("series",),
                                   ("check",)])
def test_version_anywhere(where):
    proc = timerconv(*where, "--version", check=0)
    assert proc.stdout.startswith("timerconv ")
    assert proc.stdout == timerconv("--version", check=0).stdout


# ---- row 8: --jobs and --timeout ----

@pytest.mark.parametrize("cmd", COMMANDS)
@pytest.mark.parametrize("value", ["0", "-1"])
def test_jobs_of_zero_or_less_is_an_error(cmd, value, tmp_path):
    proc = timerconv(cmd, "-C", small_tree(tmp_path), "--jobs", value,
                     check=2)
    assert "--jobs %s: expected a number of jobs, 1 or more" % value \
        in proc.stderr


@pytest.mark.parametrize("cmd", ("convert", "series"))
@pytest.mark.parametrize("value", ["0", "-5"])
def test_timeout_of_zero_or_less_is_an_error(cmd, value, tmp_path):
    proc = timerconv(cmd, "-C", small_tree(tmp_path), "--timeout", value,
                     check=2)
    assert "--timeout %s: expected seconds, 1 or more" % value in proc.stderr


def test_a_huge_jobs_is_capped_with_a_warning(tmp_path):
    tree = small_tree(tmp_path)
    proc = timerconv("convert", "-C", tree, "--jobs", "999999", check=0)
    cap = 4 * os.cpu_count()
    assert "warning: --jobs 999999: capped at %d" % cap in proc.stderr
    assert proc.stdout == timerconv("convert", "-C", tree, check=0).stdout
    proc = timerconv("check", "-C", tree, "--jobs", "999999", check=1)
    assert "capped at %d" % cap in proc.stderr


# ---- row 19: errors up front ----

def test_a_macro_file_that_does_not_exist_is_an_error_up_front(tmp_path):
    marker = tmp_path / "spatch-ran"
    path = spatch_wrapper(tmp_path, "#!/bin/sh\ntouch %(marker)s\n"
                          "exec %(real)s \"$@\"\n", marker=str(marker))
    tree = small_tree(tmp_path)
    proc = timerconv("convert", "-C", tree, "--macro-file",
                     tmp_path / "nope.h", env={"PATH": path}, check=2)
    assert "--macro-file %s: no such file" % (tmp_path / "nope.h") \
        in proc.stderr
    assert not marker.exists()


def test_series_out_that_is_a_file_is_an_error_before_converting(tmp_path):
    marker = tmp_path / "spatch-ran"
    path = spatch_wrapper(tmp_path, "#!/bin/sh\ntouch %(marker)s\n"
                          "exec %(real)s \"$@\"\n", marker=str(marker))
    tree = small_tree(tmp_path)
    git("init", "-q", cwd=tree)
    git("add", "-A", cwd=tree)
    git("-c", "user.name=A", "-c", "user.email=a@example.org", "commit",
        "-qm", "base", cwd=tree)
    out = tmp_path / "patches"
    out.write_text("not a directory\n")
    proc = timerconv("series", "-C", tree, "--split", "directory", "--out",
                     out, env={"PATH": path}, check=2)
    assert "--out %s: not a directory" % out in proc.stderr
    assert not marker.exists()
    assert out.read_text() == "not a directory\n"
    proc = timerconv("series", "-C", tree, "--split", "directory", "--out",
                     out / "sub", env={"PATH": path}, check=2)
    assert "a part of the path is not a directory" in proc.stderr
    assert not marker.exists()


def test_write_baseline_to_a_missing_directory_is_an_error(tmp_path):
    tree = small_tree(tmp_path)
    proc = timerconv("check", "-C", tree, "--write-baseline",
                     tmp_path / "nowhere" / "b.json", check=2)
    assert "--write-baseline" in proc.stderr


# ---- row 19: run from a subdirectory of a git tree ----

def subdir_tree(tmp_path):
    tree = tmp_path / "linux"
    for rel, prefix in (("drivers/net/foo.c", "foo_"),
                        ("sound/bar.c", "bar_")):
        p = tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(GOOD.read_text().replace("foo_", prefix))
    git("init", "-q", cwd=tree)
    return tree


def test_convert_from_a_subdirectory_runs_on_the_repository(tmp_path):
    tree = subdir_tree(tmp_path)
    proc = timerconv("convert", cwd=tree / "drivers", check=0)
    assert proc.stdout.startswith("--- a/drivers/net/foo.c\n"
                                  "+++ b/drivers/net/foo.c\n")
    assert "sound/bar.c" not in proc.stdout
    # a PATH is taken from where the command runs, as git takes it
    proc = timerconv("convert", "../sound", cwd=tree / "drivers", check=0)
    assert proc.stdout.startswith("--- a/sound/bar.c\n")
    assert "drivers/net" not in proc.stdout
    # the same as naming the subdirectory from the top
    top = timerconv("convert", "drivers", cwd=tree, check=0)
    assert timerconv("convert", cwd=tree / "drivers", check=0).stdout == \
        top.stdout


def test_check_from_a_subdirectory_reports_paths_from_the_top(tmp_path):
    tree = subdir_tree(tmp_path)
    proc = timerconv("check", cwd=tree / "drivers" / "net", check=1)
    files = {line.split(":")[0] for line in proc.stdout.splitlines()
             if ": warning: " in line}
    assert files == {"drivers/net/foo.c"}


def test_c_still_names_the_tree_exactly(tmp_path):
    """-C DIR is the tree, even inside a git work tree (a module kept in
    a larger repository)."""
    tree = subdir_tree(tmp_path)
    proc = timerconv("check", "-C", tree / "sound", check=1)
    assert proc.stdout.startswith("bar.c:")


# ---- row 9: a repository git refuses (another user's) ----

@pytest.fixture
def roots_repo():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root, to run as nobody")
    top = Path(tempfile.mkdtemp(prefix="timerconv-owner-"))
    os.chmod(top, 0o755)
    tree = make_git_tree(GOOD.parent, top / "tree")
    for p in [tree, *tree.rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    yield tree
    shutil.rmtree(top)


def as_nobody(*args, home):
    env = dict(os.environ, HOME=str(home))
    return subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup",
                           "--clear-groups", str(TIMERCONV), *map(str, args)],
                          capture_output=True, text=True, env=env)


def test_since_passes_on_gits_dubious_ownership_message(roots_repo):
    proc = as_nobody("check", "-C", roots_repo, "--since", "HEAD",
                     home=roots_repo.parent)
    assert proc.returncode == 2, proc.stderr
    assert "dubious ownership" in proc.stderr
    assert "safe.directory" in proc.stderr
    assert "not a git repository, or no such revision" not in proc.stderr


def test_series_passes_on_gits_dubious_ownership_message(roots_repo):
    proc = as_nobody("series", "-C", roots_repo, "--dry-run",
                     home=roots_repo.parent)
    assert proc.returncode == 2, proc.stderr
    assert "dubious ownership" in proc.stderr


def test_check_in_a_repository_git_refuses_warns_and_goes_on(roots_repo):
    proc = as_nobody("check", "-C", roots_repo, home=roots_repo.parent)
    assert proc.returncode == 1, proc.stderr
    assert "warning: git will not read" in proc.stderr
    assert "dubious ownership" in proc.stderr
    assert "input.c:" in proc.stdout


# ---- row 21: manual pages, bash completion, install, uninstall ----

def complete(*words):
    """What the bash completion offers after `timerconv WORDS...`."""
    script = ('source %s; COMP_WORDS=(%s); COMP_CWORD=%d; _timerconv; '
              'printf "%%s\\n" "${COMPREPLY[@]}"'
              % (ROOT / "dist" / "timerconv.bash",
                 " ".join("'%s'" % w for w in (str(TIMERCONV),) + words),
                 len(words)))
    proc = subprocess.run(["bash", "-c", script], capture_output=True,
                          text=True, check=True)
    return set(proc.stdout.split())


def test_bash_completion_offers_commands_options_and_values():
    assert complete("") == {"convert", "series", "check", "--help",
                            "--version"}
    assert complete("ch") == {"check"}
    assert {"--in-place", "--recover", "--report"} <= complete(
        "convert", "--")
    assert "--in-place" not in complete("check", "--")
    assert "--cached" in complete("check", "--c")
    assert complete("check", "--format", "") == {"text", "json", "sarif",
                                                 "github"}
    assert complete("series", "--split", "d") == {"directory"}
    assert complete("convert", "--target", "v6") == {"v6.2", "v6.16"}


@pytest.mark.skipif(not shutil.which("help2man"), reason="no help2man")
def test_make_install_and_uninstall(tmp_path):
    dest = tmp_path / "dest"
    make = ["make", "-s", "-C", str(ROOT), "DESTDIR=%s" % dest,
            "PREFIX=/usr"]
    subprocess.run(make + ["install"], check=True, capture_output=True)
    man1 = dest / "usr" / "share" / "man" / "man1"
    pages = {p.name for p in man1.iterdir()}
    assert pages == {"timerconv.1", "timerconv-convert.1",
                     "timerconv-series.1", "timerconv-check.1"}
    convert = (man1 / "timerconv-convert.1").read_text()
    assert ".TH TIMERCONV-CONVERT" in convert
    assert "\\-\\-in\\-place" in convert and "\\-\\-recover" in convert
    assert (dest / "usr/share/bash-completion/completions/timerconv").exists()
    assert (dest / "usr/bin/timerconv").exists()
    if shutil.which("man"):
        text = subprocess.run(["man", "-l", str(man1 / "timerconv.1")],
                              capture_output=True, text=True,
                              env=dict(os.environ, MANWIDTH="80")).stdout
        assert "timerconv - move Linux kernel code" in text
        assert "timerconv-convert(1)" in text
    subprocess.run(make + ["uninstall"], check=True, capture_output=True)
    assert [p for p in dest.rglob("*") if p.is_file()] == []
