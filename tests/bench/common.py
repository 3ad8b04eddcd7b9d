# SPDX-License-Identifier: GPL-2.0
"""What bench.py and workload.py share: the cache, the shipped tree."""

import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "timerconv"


def git(tree, *args, check=True, **kw):
    return subprocess.run(["git", "-C", str(tree), *args], check=check,
                          capture_output=True, text=True, **kw).stdout


def commit_all(tree, message):
    subprocess.run(["git", "-C", str(tree), "-c", "user.name=bench", "-c",
                    "user.email=bench@localhost", "commit", "-q", "-a",
                    "-m", message], check=True)


def ensure_tree(version):
    """Install linux-source-VERSION, unpack it once, commit it to git."""
    tree = cache_dir() / ("linux-source-%s" % version)
    if (tree / ".git").exists():
        return tree
    tarball = Path("/usr/src/linux-source-%s.tar.xz" % version)
    if not tarball.exists():
        log("bench: installing linux-source-%s" % version)
        subprocess.run(["apt-get", "install", "-y", "-q",
                        "linux-source-%s" % version], check=True,
                       env=dict(os.environ,
                                DEBIAN_FRONTEND="noninteractive"))
    cache_dir().mkdir(parents=True, exist_ok=True)
    if not tree.exists():
        log("bench: unpacking %s" % tarball)
        with tarfile.open(tarball) as tar:
            tar.extractall(cache_dir())
    log("bench: committing the tree to git (once)")
    g = ["git", "-C", str(tree)]
    subprocess.run(g + ["init", "-q"], check=True)
    # Debian's linux-source .gitignore ignores everything at the top
    subprocess.run(g + ["add", "-A", "-f"], check=True)
    subprocess.run(g + ["-c", "user.name=bench", "-c",
                        "user.email=bench@localhost", "commit", "-q", "-m",
                        "linux-source-%s" % version], check=True)
    return tree
