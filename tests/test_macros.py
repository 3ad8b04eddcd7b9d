# SPDX-License-Identifier: GPL-2.0
"""Kernel macros spatch cannot parse through: cocci/kernel_macros.h.

Every run gives spatch the file; a user's --macro-file comes after it
(theirs wins where both define a name).  Each macro in it is shown here
on the code the kernel writes with it: spatch refuses that code without
the file and parses it with the file.  No macro in it names the timer
API, .data, .function or a function, so blanking stays on.
"""

import re
import shutil
import subprocess

import pytest

from conftest import ROOT, read_report, timerconv

MACROS = ROOT / "cocci" / "kernel_macros.h"

# macro -> kernel code that uses it as the kernel does
USES = {
    "scoped_guard": """\
static void foo_poll(struct foo_priv *priv)
{
	scoped_guard(spinlock_irqsave, &priv->lock) {
		priv->count++;
	}
	scoped_guard(mutex, &priv->mutex)
		priv->started = false;
}
""",
    "scoped_cond_guard": """\
static int foo_open(struct foo_port *port)
{
	scoped_cond_guard(mutex_intr, return -ERESTARTSYS, &port->mutex) {
		port->count++;
	}
	return 0;
}
""",
    "tcp_skb_tsorted_save": """\
static void foo_retransmit(struct sk_buff *skb)
{
	tcp_skb_tsorted_save(skb) {
		skb->len = 0;
	} tcp_skb_tsorted_restore(skb);
}
""",
    "__ETHTOOL_DECLARE_LINK_MODE_MASK": """\
static int foo_phy_init(struct foo_priv *priv)
{
	__ETHTOOL_DECLARE_LINK_MODE_MASK(mask) = { 0, };

	return priv->count;
}
""",
    "IP_TUNNEL_DECLARE_FLAGS": """\
static int foo_rcv(struct foo_priv *priv)
{
	IP_TUNNEL_DECLARE_FLAGS(flags) = { };

	return priv->count;
}
""",
    "__cold": "void foo_warn(const char *fmt, ...) __cold;\n",
    "__malloc": "void *foo_alloc(size_t size) __malloc;\n",
    "__alloc_size": "void *foo_kmalloc(size_t size, gfp_t flags) "
                    "__alloc_size(1);\n",
    "__assume_aligned": "void *foo_aligned(size_t size) "
                        "__assume_aligned(8);\n",
    "__scanf": "int foo_sscanf(const char *buf, const char *fmt, ...) "
               "__scanf(2, 3);\n",
    "__cond_acquires": """\
int foo_start(unsigned int id, struct foo_pool *c) __cond_acquires(RCU_BH)
{
	return foo_get(id, c);
}
""",
    "__section": """\
static int __section(".init.text") foo_early_init(void)
{
	return 0;
}
""",
    "__latent_entropy": """\
static void foo_init_early(void)
{
	static const u8 seed[16] __initconst __latent_entropy;

	foo_mix(seed);
}
""",
}

DEFINE = re.compile(r"^#define[ \t]+(\w+)(\(([^)]*)\))?[ \t]*(.*)$", re.M)
KEYWORDS = {"unsigned", "long", "int", "char", "short", "signed", "void",
            "for", "while", "if", "do"}
HINTS = {"YACFE_ITERATOR", "YACFE_DECLARATOR", "YACFE_ATTRIBUTE",
         "YACFE_STATEMENT"}


def definitions():
    return DEFINE.findall(MACROS.read_text())


def parse_errors(path, *args):
    proc = subprocess.run(["spatch", "--parse-c", "--no-includes", *args,
                           str(path)], capture_output=True, text=True)
    return (proc.stdout + proc.stderr).count("parse error")


def test_every_macro_is_shown_on_kernel_code():
    assert sorted(name for name, *_ in definitions()) == sorted(USES)


@pytest.mark.parametrize("name", sorted(USES))
def test_spatch_parses_the_kernels_use_only_with_the_file(name, tmp_path):
    src = tmp_path / "use.c"
    src.write_text(USES[name])
    assert parse_errors(src) == 1
    assert parse_errors(src, "--macro-file", MACROS) == 0


def test_no_macro_expands_to_anything_blanking_looks_for():
    """Keywords, the macro's own parameters, spatch's hints: no name."""
    for name, _, params, body in definitions():
        own = {p.strip().rstrip(".") for p in params.split(",")} | {"args"}
        for word in re.findall(r"[A-Za-z_]\w*", body):
            assert word in KEYWORDS | HINTS | own, (name, word)
            assert "timer" not in word.lower(), name


# A driver whose callback takes a lock with scoped_guard(), beside a
# function that has nothing to do with its timer (blanked in the copy
# spatch reads); %s can wake the device with an iterator of the driver's
# own, from bar.h, which spatch does not read.
DRIVER = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

#include "bar.h"		/* with_bar_runtime_pm() */

struct bar_priv {
	spinlock_t lock;
	struct timer_list poll;
	struct bar_rpm rpm;
	int polls;
	int awake;
};

static int bar_count_up(struct bar_priv *priv)
{
	int n = 0;

	n += priv->polls;
	return n;
}

static void bar_poll(unsigned long data)
{
	struct bar_priv *priv = (struct bar_priv *)data;
	int wakeref;

	scoped_guard(spinlock_irqsave, &priv->lock) {
		priv->polls++;
	}
	%s
	mod_timer(&priv->poll, jiffies + HZ);
}

void bar_start(struct bar_priv *priv)
{
	setup_timer(&priv->poll, bar_poll, (unsigned long)priv);
}
"""

WALK = """with_bar_runtime_pm(&priv->rpm, wakeref) {
		priv->awake = 1;
	}"""

CONVERTED = "struct bar_priv *priv = from_timer(priv, t, poll);"


def bar_tree(tmp_path, walk=""):
    tree = tmp_path / "tree"
    src = tree / "drivers" / "misc" / "bar.c"
    src.parent.mkdir(parents=True)
    src.write_text(DRIVER % walk)
    return tree, src


def test_a_callback_with_scoped_guard_converts_and_blanking_stays_on(
        tmp_path):
    tree, src = bar_tree(tmp_path)
    keep = tmp_path / "keep"
    keep.mkdir()
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0, env={"TIMERCONV_KEEP_TMP": "1",
                            "TMPDIR": str(keep)})
    assert [s["outcome"] for s in read_report(report)["sites"]] == \
        ["converted"] * 2
    assert CONVERTED in src.read_text()
    copies = list(keep.glob("timerconv-run-*/spec/drivers/misc/bar.c"))
    assert len(copies) == 1
    assert "n += priv->polls;" not in copies[0].read_text()


def test_a_user_macro_file_goes_on_top_of_ours(tmp_path):
    """The callback needs both: scoped_guard() from ours, the driver's
    iterator from theirs."""
    macros = tmp_path / "bar_macros.h"
    macros.write_text(
        "#define with_bar_runtime_pm(rpm, wf) YACFE_ITERATOR\n")
    tree, src = bar_tree(tmp_path, WALK)
    timerconv("convert", "-C", tree, "--in-place", check=0)
    assert CONVERTED not in src.read_text()
    keep = tmp_path / "keep"
    keep.mkdir()
    timerconv("convert", "-C", tree, "--in-place", "--macro-file", macros,
              check=0, env={"TIMERCONV_KEEP_TMP": "1",
                            "TMPDIR": str(keep)})
    assert CONVERTED in src.read_text()
    # one file for spatch: ours, then theirs, whose definitions win
    given = list(keep.glob("timerconv-run-*/macros.h"))
    assert len(given) == 1
    text = given[0].read_text()
    assert text.startswith(MACROS.read_text())
    assert text.index("scoped_guard") < text.index("with_bar_runtime_pm")


def test_an_unreadable_macro_file_is_an_error(tmp_path):
    tree, src = bar_tree(tmp_path)
    before = src.read_text()
    proc = timerconv("convert", "-C", tree, "--in-place", "--macro-file",
                     tmp_path / "missing.h", check=2)
    assert "--macro-file %s: no such file" % (tmp_path / "missing.h") \
        in proc.stderr
    assert src.read_text() == before


def test_an_install_without_the_file_is_an_error(tmp_path):
    cocci = tmp_path / "cocci"
    shutil.copytree(ROOT / "cocci", cocci)
    (cocci / "kernel_macros.h").unlink()
    tree, _ = bar_tree(tmp_path)
    proc = timerconv("convert", "-C", tree, check=2,
                     env={"TIMERCONV_COCCI_DIR": str(cocci)})
    assert "kernel_macros.h is missing from" in proc.stderr
