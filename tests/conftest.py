# SPDX-License-Identifier: GPL-2.0
"""Shared helpers: where things are, running timerconv, compiling C."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import oldkbuild

ROOT = Path(__file__).resolve().parent.parent
# make test runs the suite on the sanitized build (make SANITIZE=1).
TIMERCONV = Path(os.environ.get("TIMERCONV_BIN",
                                ROOT / "build" / "timerconv")).resolve()

# Every run of a sanitized timerconv writes its reports (ASan, UBSan,
# LeakSanitizer) to a file here; each test fails if one appears while it
# runs, whatever exit status the test expected.
SAN_LOGS = Path(tempfile.mkdtemp(prefix="timerconv-san-"))
_SAN_COMMON = "log_path=%s/%%s:exitcode=99" % SAN_LOGS
os.environ["ASAN_OPTIONS"] = (
    (_SAN_COMMON % "asan") + ":detect_leaks=1:abort_on_error=0"
    ":strict_string_checks=1:detect_invalid_pointer_pairs=1"
    ":check_initialization_order=1:fast_unwind_on_malloc=0")
os.environ["UBSAN_OPTIONS"] = (_SAN_COMMON % "ubsan") + \
    ":print_stacktrace=1:halt_on_error=1"
os.environ["LSAN_OPTIONS"] = "suppressions=%s:print_suppressions=0" % (
    ROOT / "tests" / "lsan.supp")
# GLib's slice allocator hides frees from LeakSanitizer.
os.environ["G_SLICE"] = "always-malloc"
os.environ["G_DEBUG"] = "gc-friendly"
FIXTURES = ROOT / "fixtures"
CASES = FIXTURES / "cases"
SHIMS = FIXTURES / "include"


def timerconv(*args, cwd=None, check=None, env=None, timeout=600):
    """Run build/timerconv; check=N asserts the exit status."""
    full_env = dict(os.environ)
    full_env.pop("TIMERCONV_COCCI_DIR", None)
    if env:
        full_env.update(env)
    proc = subprocess.run([str(TIMERCONV), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=full_env,
                          timeout=timeout)
    if check is not None:
        assert proc.returncode == check, (
            "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
            % (proc.returncode, check, proc.stdout, proc.stderr))
    return proc


def spatch_wrapper(tmp_path, template, **fields):
    """A PATH whose first spatch is `template` filled in with `fields` and
    with python (this interpreter) and real (the spatch it stands in
    front of): a script that looks at its call, then runs the real one."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    spatch = bindir / "spatch"
    spatch.write_text(template % dict(fields, python=sys.executable,
                                      real=shutil.which("spatch")))
    spatch.chmod(0o755)
    return "%s:%s" % (bindir, os.environ["PATH"])


def compile_c(path, level, extra=()):
    """gcc -fsyntax-only -Werror against the shims of one API level."""
    cmd = ["gcc", "-fsyntax-only", "-Werror", "-Wall",
           "-Wno-unused-function", "-Wno-unused-variable",
           "-I", str(SHIMS / "common"), "-I", str(SHIMS / level)]
    for inc in extra:
        cmd += ["-I", str(inc)]
    cmd.append(str(path))
    return subprocess.run(cmd, capture_output=True, text=True)


def read_report(path):
    with open(path) as f:
        return json.load(f)


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def make_git_tree(src, dst, message="Initial import"):
    """Copy a fixture tree to dst and commit it."""
    shutil.copytree(src, dst)
    git("init", "-q", cwd=dst)
    git("add", "-A", cwd=dst)
    git("-c", "user.name=Tree Owner", "-c", "user.email=owner@example.org",
        "commit", "-q", "-m", message, cwd=dst)
    return dst


@pytest.fixture(scope="session", autouse=True)
def built():
    assert TIMERCONV.exists(), "%s is missing: run make first" % TIMERCONV


def sanitizer_reports():
    return {p: p.read_text(errors="replace")
            for p in SAN_LOGS.iterdir()}


@pytest.fixture(autouse=True)
def no_sanitizer_report():
    """Fail the test on any sanitizer report written while it ran."""
    before = set(SAN_LOGS.iterdir())
    yield
    new = [p for p in SAN_LOGS.iterdir() if p not in before]
    assert not new, "sanitizer report:\n" + "\n".join(
        p.read_text(errors="replace") for p in new)


# ---- real old kbuild trees (../shared/kbuild, read at run time) ----
# (tests/oldkbuild.py, which make corpus uses too)

old_kbuild_config = oldkbuild.config
old_kbuild_make_vars = oldkbuild.make_vars


def old_kbuild_tarball(version):
    """The tarball of a trimmed real old kernel tree, or skip the test
    when this checkout has no ../shared beside it."""
    tar = oldkbuild.tarball(version)
    if not tar.exists():
        pytest.skip("%s is not here (../shared/kbuild)" % tar)
    return tar


@pytest.fixture(scope="session")
def old_kbuild_sources(tmp_path_factory):
    """version -> a fresh git tree of that old kernel, extracted once per
    session; callers copy it (shutil.copytree) before changing it."""
    cache = {}

    def get(version):
        if version not in cache:
            tar = old_kbuild_tarball(version)
            dest = tmp_path_factory.mktemp("kbuild-" + version)
            cache[version] = oldkbuild.extract(tar, dest)
        return cache[version]
    return get
