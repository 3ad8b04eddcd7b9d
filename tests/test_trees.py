# SPDX-License-Identifier: GPL-2.0
"""Idioms that need more than one file: fixtures/trees/<name>/ holds an
input/ tree, its converted expected/ tree (checked by hand) and a
README.md saying what the case shows; `args`, when present, holds extra
convert options.  Every .c file builds against the shims: input/ with
the old API, expected/ with v4.15 (and, for declaration order, v4.14)."""

import filecmp
import shutil

import pytest

from conftest import FIXTURES, compile_c, read_report, timerconv

TREES = FIXTURES / "trees"
NAMES = sorted(p.name for p in TREES.iterdir() if (p / "input").is_dir())


def files(root):
    return sorted(p.relative_to(root) for p in root.rglob("*")
                  if p.is_file())


@pytest.mark.parametrize("name", NAMES)
def test_tree_converts_as_expected(name, tmp_path):
    case = TREES / name
    tree = tmp_path / "tree"
    shutil.copytree(case / "input", tree)
    args = tree_args(name)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              *args, check=0)
    assert files(tree) == files(case / "expected")
    for rel in files(tree):
        assert filecmp.cmp(tree / rel, case / "expected" / rel,
                           shallow=False), rel
    bad = [s for s in read_report(report)["sites"]
           if s["outcome"] != "converted"]
    assert not bad, bad


def tree_args(name):
    args = TREES / name / "args"
    return args.read_text().split() if args.exists() else []


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("side", ["input", "expected"])
def test_tree_builds(name, side):
    """input/ on the old API, expected/ on the level its --target names
    (v4.15 by default)."""
    args = tree_args(name)
    level = "old" if side == "input" else \
        args[args.index("--target") + 1] if "--target" in args else "v4.15"
    root = TREES / name / side
    sources = sorted(root.rglob("*.c"))
    assert sources, root
    for c in sources:
        proc = compile_c(c, level, extra=[c.parent])
        assert proc.returncode == 0, (c, proc.stderr)


# Declaration order breaks the build on every target (issue 24): the same
# result at v4.14, where timer_setup() is a function taking the new
# callback type, and it builds there.
ORDER_CASES = [TREES / "static_prototype_in_header",
               FIXTURES / "cases" / "init_timer_callback_defined_later"]


@pytest.mark.parametrize("case", ORDER_CASES, ids=lambda c: c.name)
def test_declaration_order_at_v4_14(case, tmp_path):
    tree = tmp_path / "tree"
    if (case / "input").is_dir():
        shutil.copytree(case / "input", tree)
        expected = case / "expected"
    else:
        (tree / "drivers").mkdir(parents=True)
        shutil.copy(case / "input.c", tree / "drivers" / "zap.c")
        expected = tmp_path / "expected"
        (expected / "drivers").mkdir(parents=True)
        shutil.copy(case / "expected.c", expected / "drivers" / "zap.c")
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              "--target", "v4.14")
    assert read_report(report)["summary"]["refused"] == 0
    for rel in files(expected):
        assert (tree / rel).read_text() == (expected / rel).read_text(), rel
        if rel.suffix == ".c":
            proc = compile_c(tree / rel, "v4.14",
                             extra=[(tree / rel).parent])
            assert proc.returncode == 0, (rel, proc.stderr)


def test_structs_local_to_two_files_are_two_units(tmp_path):
    """Same tag, same field, same static callback name in two drivers:
    two units, so one driver's refusal could not hold the other back."""
    tree = tmp_path / "tree"
    shutil.copytree(TREES / "struct_tag_local_to_each_file" / "input", tree)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    units = read_report(report)["units"]
    assert sorted(u["files"] for u in units) == [
        ["drivers/leds/delta/delta.c"], ["drivers/leds/gamma/gamma.c"]]


# ---- which files can use a callback, as C resolves its name ----

def scan_only(tree):
    return timerconv("convert", "--scan-only", "-C", tree,
                     check=0).stdout.split()


def test_external_callback_is_found_where_it_is_used_and_nowhere_else(
        tmp_path):
    """wd_expire() has external linkage: the header that declares it and
    the files that define, set up and call it are read, and convert as one
    unit.  delta.c spells wd_expire as its own static function, a member
    and a local: none of them is gamma's function, so delta.c is not
    read."""
    tree = tmp_path / "tree"
    shutil.copytree(TREES / "external_callback_used_elsewhere" / "input",
                    tree)
    gamma = ["drivers/watchdog/gamma/" + f for f in (
        "gamma.h", "gamma_debug.c", "gamma_main.c", "gamma_timer.c")]
    assert scan_only(tree) == gamma
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    units = read_report(report)["units"]
    assert [sorted(u["files"]) for u in units] == [gamma]
    assert all(not u.get("reason") for u in units), units


def test_static_callback_name_reused_by_another_file_is_two_functions(
        tmp_path):
    """alpha's static callback sample_timeout() and beta's static
    sample_timeout() are two functions: each unit keeps to its file, and
    beta storing its own function's address does not refuse alpha's."""
    tree = tmp_path / "tree"
    shutil.copytree(TREES / "static_callback_name_reused" / "input", tree)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--report", report, check=0)
    units = read_report(report)["units"]
    assert sorted((u["files"], u["callbacks"]) for u in units) == [
        (["drivers/misc/alpha/alpha.c"], ["sample_timeout"]),
        (["drivers/misc/beta/beta.c"], ["beta_poll"])]


HELPER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

struct hlp_port {
	struct timer_list rx_timer;
	unsigned int stalls;
};

static void hlp_init_timer(struct timer_list *t,
			   void (*function)(unsigned long),
			   unsigned long data)
{
	setup_timer(t, function, data);
}

static void hlp_rx_timeout(unsigned long data)
{
	struct hlp_port *port = (struct hlp_port *)data;

	port->stalls++;
}

void hlp_port_init(struct hlp_port *port)
{
	hlp_init_timer(&port->rx_timer, hlp_rx_timeout, (unsigned long)port);
}
"""

# A function that happens to be named like the helper's parameter, in a
# file that has nothing to do with timers.
OTHER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>

struct oth_req {
	void (*function)(unsigned long arg);
	unsigned long arg;
};

void function(unsigned long arg)
{
	(void)arg;
}

void oth_run(struct oth_req *req)
{
	req->function(req->arg);
}
"""


def test_callback_parameter_of_a_helper_is_not_looked_for(tmp_path):
    """setup_timer(t, function, data) in a helper hands the timer its
    parameter `function`, not a function of that name: the name is not
    looked for in the tree (it is spelled in thousands of kernel files),
    the file that defines a function() is not read, and the helper's
    setup is refused for what it is."""
    tree = tmp_path / "tree"
    (tree / "drivers" / "misc").mkdir(parents=True)
    (tree / "drivers" / "misc" / "hlp.c").write_text(HELPER)
    (tree / "drivers" / "misc" / "oth.c").write_text(OTHER)
    assert scan_only(tree) == ["drivers/misc/hlp.c"]
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    assert (tree / "drivers" / "misc" / "oth.c").read_text() == OTHER
    sites = read_report(report)["sites"]
    setup = [s for s in sites if s["kind"] == "setup_timer"]
    assert setup and setup[0]["outcome"] == "refused"
    assert "parameter" in setup[0]["reason"], setup
