# SPDX-License-Identifier: GPL-2.0
"""One callback name, several drivers: which definition a setup runs.

A non-static callback defined by two drivers is two functions; a setup
runs the one of the kbuild module its own object links into (the
directory's Kbuild or Makefile: foo-y, foo-objs, foo-$(CONFIG_X),
obj-$(CONFIG_X) += foo.o), or, where no kbuild file lists the object,
the one of its own directory.  Where that does not single out one
definition (two objects of one module define it, a header both drivers
include declares it, a third driver names it), the name is refused.
fixtures/trees/callback_name_in_two_modules is the converted case.
"""

import textwrap

from conftest import read_report, timerconv

# A watchdog driver; NAME is its prefix, DEF whether it defines the
# callback, SETUP whether it sets it up.
STRUCT = """\
struct {name}_priv {{
	struct timer_list watchdog;
	int resets;
}};
"""

DEFINE = """\
void wdt_timeout(unsigned long data)
{{
	struct {name}_priv *priv = (struct {name}_priv *)data;

	priv->resets++;
}}
"""

SETUP = """\
void {name}_start(struct {name}_priv *priv)
{{
	setup_timer(&priv->watchdog, wdt_timeout, (unsigned long)priv);
}}
"""


def driver(name, define=True, setup=True, include=None):
    text = "// SPDX-License-Identifier: GPL-2.0\n"
    text += "#include <linux/kernel.h>\n#include <linux/timer.h>\n"
    if include:
        text += '#include "%s"\n' % include
    text += "\n" + STRUCT.format(name=name)
    if not define:
        text += "\nvoid wdt_timeout(unsigned long data);\n"
    if define:
        text += "\n" + DEFINE.format(name=name)
    if setup:
        text += "\n" + SETUP.format(name=name)
    return text


def make_tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if rel.endswith(
            ("Makefile", "Kbuild")) else text)
    return root


def convert(tmp_path, files, *paths):
    tree = make_tree(tmp_path / "tree", files)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              *paths, check=0)
    return tree, read_report(report)


def outcomes(report):
    return sorted((s["file"], s["outcome"], s.get("reason", ""))
                  for s in report["sites"])


def converted(tree, rel):
    text = (tree / rel).read_text()
    return "void wdt_timeout(struct timer_list *t)" in text or \
        "timer_setup(&priv->watchdog, wdt_timeout, 0);" in text


def test_objects_of_their_own_each_run_their_own(tmp_path):
    """obj-$(CONFIG_A) += a.o, obj-$(CONFIG_B) += b.o: two modules."""
    tree, report = convert(tmp_path, {
        "drivers/watchdog/Makefile": """\
            obj-$(CONFIG_ALPHA_WDT)	+= alpha_wdt.o
            obj-$(CONFIG_BETA_WDT)	+= beta_wdt.o
            """,
        "drivers/watchdog/alpha_wdt.c": driver("alpha"),
        "drivers/watchdog/beta_wdt.c": driver("beta"),
    })
    assert [o[1] for o in outcomes(report)] == ["converted"] * 4
    for name in ("alpha", "beta"):
        text = (tree / ("drivers/watchdog/%s_wdt.c" % name)).read_text()
        assert "struct %s_priv *priv = from_timer(priv, t, watchdog);" \
            % name in text


def test_setup_runs_the_definition_of_its_module(tmp_path):
    """A setup in one file, the callback in another file of the same
    module (foo-objs, $(MODULE)-y with $(addprefix)): each driver's
    setup gets its own driver's callback."""
    hdr = "void wdt_timeout(unsigned long data);\n"
    tree, report = convert(tmp_path, {
        "drivers/staging/alpha/Makefile": """\
            obj-$(CONFIG_ALPHA) += alpha.o
            alpha-objs := core/alpha_main.o core/alpha_wdt.o
            """,
        "drivers/staging/alpha/include/alpha.h": hdr,
        "drivers/staging/alpha/core/alpha_wdt.c":
            driver("alpha", setup=False, include="../include/alpha.h"),
        "drivers/staging/alpha/core/alpha_main.c":
            driver("alpha", define=False, include="../include/alpha.h"),
        "drivers/staging/beta/Kbuild": """\
            MODULE_NAME := beta
            $(MODULE_NAME)-y += $(addprefix os_dep/, beta_wdt.o \\
            			beta_main.o)
            obj-$(CONFIG_BETA) := $(MODULE_NAME).o
            """,
        "drivers/staging/beta/include/beta.h": hdr,
        "drivers/staging/beta/os_dep/beta_wdt.c":
            driver("beta", setup=False, include="../include/beta.h"),
        "drivers/staging/beta/os_dep/beta_main.c":
            driver("beta", define=False, include="../include/beta.h"),
    })
    # the setups are the sites; each callback changes with its own
    assert [o[1] for o in outcomes(report)] == ["converted"] * 2
    for name, sub in (("alpha", "core"), ("beta", "os_dep")):
        base = "drivers/staging/%s/" % name
        assert converted(tree, base + "%s/%s_wdt.c" % (sub, name))
        assert converted(tree, base + "%s/%s_main.c" % (sub, name))
        assert "void wdt_timeout(struct timer_list *t);" in \
            (tree / (base + "include/%s.h" % name)).read_text()
    assert len(report["units"]) == 2


def test_without_kbuild_files_the_directory_decides(tmp_path):
    tree, report = convert(tmp_path, {
        "alpha/alpha_wdt.c": driver("alpha"),
        "beta/beta_wdt.c": driver("beta"),
    })
    assert [o[1] for o in outcomes(report)] == ["converted"] * 4


def test_one_driver_converts_on_its_own(tmp_path):
    """A run on one driver's directory changes that driver only."""
    tree, report = convert(tmp_path, {
        "drivers/watchdog/alpha/Makefile": "obj-m += alpha_wdt.o\n",
        "drivers/watchdog/alpha/alpha_wdt.c": driver("alpha"),
        "drivers/watchdog/beta/Makefile": "obj-m += beta_wdt.o\n",
        "drivers/watchdog/beta/beta_wdt.c": driver("beta"),
    }, "drivers/watchdog/beta")
    assert converted(tree, "drivers/watchdog/beta/beta_wdt.c")
    assert not converted(tree, "drivers/watchdog/alpha/alpha_wdt.c")
    assert [(o[0], o[1]) for o in outcomes(report)] == [
        ("drivers/watchdog/beta/beta_wdt.c", "converted")] * 2


def test_two_objects_of_one_module_defining_it_are_refused(tmp_path):
    """The USB and the SDIO glue both define the callback and one
    Makefile links both into the module (every branch of an ifdef
    counts): which one runs depends on the config, so neither is
    converted."""
    tree, report = convert(tmp_path, {
        "drivers/staging/gamma/Makefile": """\
            gamma-y := gamma_main.o
            gamma-$(CONFIG_GAMMA_USB) += gamma_usb.o
            ifdef CONFIG_GAMMA_SDIO
            \tgamma-y += gamma_sdio.o
            endif
            obj-$(CONFIG_GAMMA) += gamma.o
            """,
        "drivers/staging/gamma/gamma_usb.c":
            driver("gamma", setup=False),
        "drivers/staging/gamma/gamma_sdio.c":
            driver("gamma", setup=False),
        "drivers/staging/gamma/gamma_main.c":
            driver("gamma", define=False),
        "drivers/staging/delta/Makefile": "obj-m += delta.o\n",
        "drivers/staging/delta/delta.c": driver("delta"),
    })
    got = outcomes(report)
    reason = ("callback wdt_timeout() is defined more than once in what "
              "links into drivers/staging/gamma/gamma.o")
    assert ("drivers/staging/gamma/gamma_main.c", "refused", reason) in got
    assert all(o[1] == "refused" for o in got if "/gamma/" in o[0])
    assert [o[1] for o in got if "/delta/" in o[0]] == ["converted"] * 2
    assert not converted(tree, "drivers/staging/gamma/gamma_usb.c")
    assert not converted(tree, "drivers/staging/gamma/gamma_main.c")
    assert converted(tree, "drivers/staging/delta/delta.c")


def test_a_header_both_modules_see_is_refused(tmp_path):
    """One prototype for both drivers' callbacks: converting one driver
    would change the other's prototype."""
    inc = "../include/wdt_common.h"
    tree, report = convert(tmp_path, {
        "drivers/watchdog/include/wdt_common.h":
            "void wdt_timeout(unsigned long data);\n",
        "drivers/watchdog/alpha/Makefile": "obj-m += alpha_wdt.o\n",
        "drivers/watchdog/alpha/alpha_wdt.c": driver("alpha", include=inc),
        "drivers/watchdog/beta/Makefile": "obj-m += beta_wdt.o\n",
        "drivers/watchdog/beta/beta_wdt.c": driver("beta", include=inc),
    })
    got = outcomes(report)
    assert [o[1] for o in got] == ["refused"] * 4
    assert got[0][2] == (
        "callback wdt_timeout() is defined in several modules, and which "
        "one drivers/watchdog/include/wdt_common.h means is not clear")
    assert not converted(tree, "drivers/watchdog/alpha/alpha_wdt.c")


def test_a_driver_that_defines_none_is_refused(tmp_path):
    """A third module sets the name up: it links against one of the two
    through an export, and which one is not the tree's to say."""
    tree, report = convert(tmp_path, {
        "drivers/watchdog/Makefile": """\
            obj-$(CONFIG_ALPHA_WDT)	+= alpha_wdt.o
            obj-$(CONFIG_BETA_WDT)	+= beta_wdt.o
            obj-$(CONFIG_GAMMA_WDT)	+= gamma_wdt.o
            """,
        "drivers/watchdog/alpha_wdt.c": driver("alpha"),
        "drivers/watchdog/beta_wdt.c": driver("beta"),
        "drivers/watchdog/gamma_wdt.c": driver("gamma", define=False),
    })
    got = outcomes(report)
    assert [o[1] for o in got] == ["refused"] * 5
    assert ("drivers/watchdog/gamma_wdt.c", "refused",
            "callback wdt_timeout() is defined in several modules, and "
            "which one drivers/watchdog/gamma_wdt.c means is not clear") \
        in got
