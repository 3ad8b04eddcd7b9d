#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Does blanking change what spatch finds?  (tool/scan/blank.c)

Converts a tree (by default the old-API workload) keeping timerconv's
scratch files, then runs the facts rules of each batch of the
facts+patch pass twice: on the blanked copies spatch read, and on the
real files.  The records, their paths aside, must be the same: a rule
that matches code blank.c does not keep would show up here.  Exit 1 if
a batch differs (its records are then left in the work directory).

    tests/bench/blank_facts.py [--tree TREE] [--jobs N]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from common import ROOT, cache_dir, log

TC = ROOT / "build" / "timerconv"
# the macros every timerconv run gives spatch (blanking stays on with them)
MACROS = ROOT / "cocci" / "kernel_macros.h"


def records(sp_file, listing, prefix, env):
    """The facts records of one batch, sorted, with `prefix` cut off."""
    out = subprocess.run(
        ["spatch", "--python", "/usr/bin/python3", "--very-quiet",
         "--no-includes", "--no-show-diff", "--macro-file", str(MACROS),
         "-D", "facts", "--sp-file",
         str(sp_file), "--file-groups", str(listing)],
        capture_output=True, text=True, env=env).stdout
    return sorted(line.replace(prefix, "") for line in out.splitlines()
                  if line.startswith("TIMERCONV "))


def compare(batch, run, tree, env):
    real = batch.with_name(batch.stem + "-real.txt")
    spec = str(run / "spec") + "/"
    real.write_text(batch.read_text().replace(spec, str(tree) + "/"))
    sp_file = batch.with_suffix(".cocci")
    blanked = records(sp_file, batch, spec, env)
    unblanked = records(sp_file, real, str(tree) + "/", env)
    if blanked != unblanked:
        batch.with_name(batch.stem + "-blanked.rec").write_text(
            "\n".join(blanked) + "\n")
        batch.with_name(batch.stem + "-real.rec").write_text(
            "\n".join(unblanked) + "\n")
    return batch.name, blanked == unblanked, len(unblanked)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path,
                    default=cache_dir() / "linux-source-6.12-oldapi")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    tree = args.tree.resolve()
    work = Path(tempfile.mkdtemp(prefix="blank-facts-"))
    env = dict(os.environ, TIMERCONV_KEEP_TMP="1", TMPDIR=str(work))
    log("blank_facts: converting %s (scratch files in %s)" % (tree, work))
    subprocess.run([str(TC), "convert", "-q", "-j", str(args.jobs), "-C",
                    str(tree)], env=env, stdout=subprocess.DEVNULL,
                   check=True)
    run = next(work.glob("timerconv-run-*"))
    env = dict(os.environ, TIMERCONV_COCCI_DIR=str(ROOT / "cocci"),
               TIMERCONV_CALLBACKS=str(run / "callbacks.txt"),
               OCAMLRUNPARAM="o=1000")
    batches = sorted(run.glob("batch-facts+patch-*.txt"))
    if not batches:
        log("blank_facts: no facts+patch batch (nothing to convert?)")
        return 1
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda b: compare(b, run, tree, env),
                                batches))
    bad = 0
    for name, same, n in results:
        print("%-28s %6d records  %s" % (name, n, "same" if same
                                          else "DIFFER"))
        bad += not same
    print("blank_facts: %d of %d batches differ%s" %
          (bad, len(results), " (records in %s)" % run if bad else ""))
    if not bad:
        shutil.rmtree(work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
