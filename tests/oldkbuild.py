# SPDX-License-Identifier: GPL-2.0
"""The real old kernel trees of ../shared/kbuild (read at run time): how
to extract, configure and prepare one, and build objects with its own
kbuild.  The tests use it through conftest.py, make corpus through
tests/bench/corpus.py; it does not need pytest."""

import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
OLD_KBUILDS = {
    # version: (tarball, defconfig target, options to turn off, make vars)
    "4.14": ("linux-4.14-kbuild.tar.xz", "defconfig",
             ["-d", "UNWINDER_ORC", "-e", "UNWINDER_FRAME_POINTER",
              "-d", "STACK_VALIDATION", "-d", "RETPOLINE"], []),
    "4.9": ("linux-4.9-kbuild.tar.xz", "x86_64_defconfig",
            ["-d", "STACK_VALIDATION", "-d", "RETPOLINE"],
            ["HOSTCFLAGS=-fcommon"]),
}
KBUILD_PACKAGES = ("flex", "bison", "bc", "make")


def tarball(version):
    """Where the trimmed tree of that version is (it may be absent)."""
    return SHARED / "kbuild" / OLD_KBUILDS[version][0]


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True,
                   capture_output=True, text=True)


def extract(tar, dest):
    """Extract tar into dest and commit it as a git tree of its own (so
    that what a user changes in it shows); the tree's top directory."""
    subprocess.run(["tar", "-xJf", str(tar), "-C", str(dest)], check=True)
    (top,) = [p for p in Path(dest).iterdir() if p.is_dir()]
    _git("init", "-q", cwd=top)
    _git("add", "-A", cwd=top)
    _git("-c", "user.name=Tree Owner", "-c", "user.email=owner@example.org",
         "commit", "-q", "-m", "base", cwd=top)
    return top


def make_vars(version):
    return list(OLD_KBUILDS[version][3])


def config(src, version, out):
    """Write the config prepare() uses, as a file of its own (for
    --config FILE): defconfig less what an old tree cannot build with
    today's compiler."""
    _, target, opts, mvars = OLD_KBUILDS[version]
    with tempfile.TemporaryDirectory() as o:
        subprocess.run(["make", "-s", "O=" + o, *mvars, target],
                       cwd=src, check=True, capture_output=True)
        subprocess.run([str(Path(src) / "scripts" / "config"), "--file",
                        o + "/.config", *opts], check=True)
        subprocess.run(["make", "-s", "O=" + o, *mvars, "olddefconfig"],
                       cwd=src, check=True, capture_output=True)
        shutil.copyfile(o + "/.config", out)
    return out


def prepare(src, version, out):
    """Configure the build directory out and run make prepare there;
    the CompletedProcess of that make (returncode 0: ready to build
    objects)."""
    config(src, version, Path(out) / ".config")
    return subprocess.run(["make", "O=%s" % out, *make_vars(version),
                           "olddefconfig", "prepare"],
                          cwd=src, capture_output=True, text=True)


def build_objects(src, out, version, objects, jobs=2):
    """Compile each object with kbuild (-k: all of them); the set that
    built.  Objects are removed first so that each is really compiled."""
    for o in objects:
        (Path(out) / o).unlink(missing_ok=True)
    subprocess.run(["make", "-k", "-j%d" % jobs, "O=%s" % out,
                    *make_vars(version), *objects], cwd=src,
                   capture_output=True, text=True)
    return {o for o in objects if (Path(out) / o).exists()}
