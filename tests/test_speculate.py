# SPDX-License-Identifier: GPL-2.0
"""Facts and patch in one spatch pass.

Each file's patch rules ask timerconv for the file's plan once its facts
are out, and timerconv plans it as if it were the whole tree.  A result is
kept only where that plan is the real one; a unit that spans files is
rewritten again, in a patch pass, with the plan made from every file.
"""

import shutil

import pytest

from conftest import CASES, FIXTURES, spatch_wrapper, timerconv

GOOD = CASES / "setup_timer_container_pointer" / "input.c"
GOOD_OUT = CASES / "setup_timer_container_pointer" / "expected.c"

# A spatch that logs the -D options of each batch run and its files.
LOGGER = """#!%(python)s
import os, sys
args = sys.argv[1:]
if "--file-groups" in args:
    files = open(args[args.index("--file-groups") + 1]).read().split()
    modes = [args[i + 1] for i, a in enumerate(args) if a == "-D"]
    with open(%(log)r, "a") as f:
        f.write("%%s %%s\\n" %% ("+".join(modes),
                               " ".join(os.path.basename(x) for x in files)))
os.execv(%(real)r, [%(real)r] + args)
"""


def logging_spatch(tmp_path):
    log = tmp_path / "spatch.log"
    log.write_text("")
    return spatch_wrapper(tmp_path, LOGGER, log=str(log)), log


def runs(log):
    """(modes, files) of each spatch batch, in order."""
    out = []
    for line in log.read_text().splitlines():
        modes, _, files = line.partition(" ")
        out.append((modes, files.split()))
    return out


def drivers_tree(tmp_path, n=3):
    tree = tmp_path / "tree"
    (tree / "drivers").mkdir(parents=True)
    for i in range(n):
        (tree / "drivers" / ("good%d.c" % i)).write_text(
            GOOD.read_text().replace("foo_", "foo%d_" % i))
    return tree


def test_a_file_whose_units_are_its_own_is_parsed_once(tmp_path):
    tree = drivers_tree(tmp_path)
    path, log = logging_spatch(tmp_path)
    timerconv("convert", "-C", tree, "--in-place", check=0,
              env={"PATH": path})
    for i in range(3):
        assert (tree / "drivers" / ("good%d.c" % i)).read_text() == \
            GOOD_OUT.read_text().replace("foo_", "foo%d_" % i)
    done = runs(log)
    assert done and all(modes == "facts+patch" for modes, _ in done), done
    assert sorted(f for _, files in done for f in files) == \
        ["good0.c", "good1.c", "good2.c"]


def test_a_unit_across_files_is_rewritten_again_with_the_whole_plan(
        tmp_path):
    """The seed: the setup in block/, the callback in mm/, the prototype in
    include/.  A file is planned with the files already heard from that
    name its callback, and files that name the same callbacks go to
    spatch one after the other, the smallest first: the last (the
    largest, the dearest to parse again) is planned with all three and
    keeps its result; the two before it are rewritten again with the
    real plan."""
    tree = tmp_path / "linux"
    shutil.copytree(FIXTURES / "seed-tree", tree)
    path, log = logging_spatch(tmp_path)
    timerconv("convert", "-C", tree, "--in-place", "--jobs", "1", check=0,
              env={"PATH": path})
    for rel in ("block/blk-core.c", "include/linux/writeback.h",
                "mm/page-writeback.c"):
        assert (tree / rel).read_text() == \
            (FIXTURES / "seed-expected" / rel).read_text(), rel
    done = runs(log)
    assert done[0][0] == "facts+patch", done
    assert [f for _, files in done[:1] for f in files] == \
        ["writeback.h", "page-writeback.c", "blk-core.c"], done
    again = [f for modes, files in done if modes == "patch" for f in files]
    assert sorted(again) == ["page-writeback.c", "writeback.h"], done


def test_files_that_name_the_same_callbacks_go_together_smallest_first(
        tmp_path):
    """Other files go the largest first; a group goes where its largest
    file would."""
    tree = drivers_tree(tmp_path, n=2)
    drivers = tree / "drivers"
    # good1's callback made global, with a header and a user: the
    # three go together, where good1, the largest file, would
    text = (drivers / "good1.c").read_text()
    (drivers / "good1.c").write_text(
        text.replace("static void foo1_watchdog", "void foo1_watchdog") +
        "/* padding */\n" * 100)
    (drivers / "foo1.h").write_text(
        "void foo1_watchdog(unsigned long data);\n")
    (drivers / "user1.c").write_text(
        '#include "foo1.h"\n\nvoid (*foo1_hook)(unsigned long) = '
        'foo1_watchdog;\n' + "/* padding */\n" * 40)
    path, log = logging_spatch(tmp_path)
    timerconv("convert", "-C", tree, "--jobs", "1", check=0,
              env={"PATH": path})
    first = runs(log)[0]
    assert first == ("facts+patch",
                     ["foo1.h", "user1.c", "good1.c", "good0.c"]), first


@pytest.mark.parametrize("tree", ["sample-tree", "seed-tree"])
def test_one_pass_and_two_passes_convert_alike(tmp_path, tree):
    src = FIXTURES / tree
    one = timerconv("convert", "-C", src, check=0)
    two = timerconv("convert", "-C", src, check=0,
                    env={"TIMERCONV_NO_SPECULATE": "1"})
    assert one.stdout and one.stdout == two.stdout
    assert one.stderr == two.stderr


def test_a_socket_path_too_long_for_unix_falls_back_to_two_passes(
        tmp_path):
    """A Unix socket's path has at most 107 bytes: under a deeper TMPDIR
    the run goes as two passes, with the same result."""
    tree = drivers_tree(tmp_path, n=1)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path, log = logging_spatch(tmp_path)
    proc = timerconv("convert", "-C", tree, check=0,
                     env={"PATH": path, "TMPDIR": str(deep)})
    assert "+\ttimer_setup(" in proc.stdout, proc.stderr
    assert [modes for modes, _ in runs(log)] == ["facts", "patch"]


def test_the_one_pass_rules_put_every_facts_rule_first(tmp_path):
    """No facts rule may see what a patch rule changed, and every fact of
    a file must be out before a patch rule asks for its plan."""
    tree = drivers_tree(tmp_path, n=1)
    keep = tmp_path / "tmp"
    keep.mkdir()
    timerconv("convert", "-C", tree, check=0,
              env={"TIMERCONV_KEEP_TMP": "1", "TMPDIR": str(keep)})
    [rules] = keep.glob("timerconv-run-*/timerconv-spec.cocci")
    [plain] = keep.glob("timerconv-run-*/timerconv.cocci")
    heads = [l for l in rules.read_text().splitlines()
             if l.startswith("@") and not l.startswith("@@")]
    facts = [i for i, h in enumerate(heads) if " depends on facts" in h]
    others = [i for i, h in enumerate(heads)
              if " depends on facts" not in h and
              not h.startswith("@initialize")]
    assert facts and others and max(facts) < min(others)
    assert heads[0].startswith("@initialize")
    # the same rules, only in another order
    assert sorted(rules.read_text().splitlines()) == \
        sorted(plain.read_text().splitlines())
