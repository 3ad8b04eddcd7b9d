# SPDX-License-Identifier: GPL-2.0
"""Shared helpers: where things are, running timerconv, compiling C."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TIMERCONV = ROOT / "build" / "timerconv"
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
    assert TIMERCONV.exists(), "build/timerconv is missing: run make first"
