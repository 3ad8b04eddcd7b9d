# SPDX-License-Identifier: GPL-2.0
"""convert --verify on real old kbuilds: linux 4.14.177 and a 4.9.213
vendor tree, trimmed to their kbuild and a few directories of C
(../shared/kbuild, read at run time; skipped when it is not there).

Their kbuild predates today's: 4.14's scripts/Makefile.lib has
real-objs-y, and the top directories are the top Makefile's
vmlinux-dirs, not ./Kbuild's obj-y.  A query that only knows today's
kbuild answers "not built by this config" for every file of them.

Each tree gets kernel/time/tc_fan.c, built by defconfig (obj-y in
kernel/time/Makefile): the fixture kbuild tree's fan driver, whose
tc_fan_stall_check() is declared through a macro that pastes its name,
so that its conversion does not build and --verify must put it back.
What else the conversion does to these trees may change as it gets
better; the tests do not depend on it.
"""

from pathlib import Path

import pytest

from conftest import (git, old_kbuild_config, old_kbuild_make_vars,
                      read_report, sanitizer_reports, timerconv)

TC_FAN_H = """\
/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _TC_FAN_H
#define _TC_FAN_H

#include <linux/timer.h>

struct tc_fan {
	struct timer_list spinup;
	struct timer_list stall;
	unsigned int rpm;
	bool stalled;
};

/* The handlers the board files hook up, all declared the same way. */
#define TC_FAN_HANDLER(name)	void tc_fan_##name(unsigned long data)

TC_FAN_HANDLER(stall_check);

void tc_fan_start(struct tc_fan *fan);

#endif
"""

TC_FAN_C = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/jiffies.h>
#include <linux/timer.h>

#include "tc_fan.h"

static void tc_fan_spinup_done(unsigned long data)
{
	struct tc_fan *fan = (struct tc_fan *)data;

	fan->rpm = 1200;
}

void tc_fan_stall_check(unsigned long data)
{
	struct tc_fan *fan = (struct tc_fan *)data;

	if (!fan->rpm)
		fan->stalled = true;
	mod_timer(&fan->stall, jiffies + HZ);
}

void tc_fan_start(struct tc_fan *fan)
{
	setup_timer(&fan->spinup, tc_fan_spinup_done, (unsigned long)fan);
	setup_timer(&fan->stall, tc_fan_stall_check, (unsigned long)fan);
	mod_timer(&fan->spinup, jiffies + 2 * HZ);
	mod_timer(&fan->stall, jiffies + HZ);
}
"""

# Files with old-API code in directories defconfig builds, each listed
# unconditionally (obj-y) by its Makefile, in both trees.
ALWAYS_BUILT = ["kernel/workqueue.c", "lib/random32.c",
                "net/core/neighbour.c", "kernel/time/tc_fan.c"]
# drivers/isdn is not in either defconfig.
NOT_BUILT = "drivers/isdn/hisax/isdnl3.c"

# What is converted: the files above and their neighbours, not the
# whole tree (the suite's time).
PATHS = ["kernel/time", "kernel/workqueue.c", "lib/random32.c", "net/core",
         NOT_BUILT]

OPTIONS = {
    "4.14": [],
    "4.9": ["--compat-header", "include/linux/timerconv_compat.h"],
}


class Run:
    def __init__(self, tree, build, proc, report):
        self.tree, self.build, self.proc, self.report = \
            tree, build, proc, report

    def sites(self, path):
        return [s for s in self.report["sites"] if s["file"] == path]

    def unit(self, callback):
        return next(u for u in self.report["units"]
                    if callback in u["callbacks"])


def convert_old_tree(sources, version, tmp):
    src = sources(version)
    tree = tmp / ("linux-" + version)
    # a clone: copying .git races with git's own auto gc in the source
    git("clone", "-q", str(src), str(tree), cwd=tmp)
    time_dir = tree / "kernel" / "time"
    (time_dir / "tc_fan.h").write_text(TC_FAN_H)
    (time_dir / "tc_fan.c").write_text(TC_FAN_C)
    with open(time_dir / "Makefile", "a") as f:
        f.write("obj-y += tc_fan.o\n")
    git("add", "-A", cwd=tree)
    git("-c", "user.name=T", "-c", "user.email=t@example.org", "commit",
        "-qm", "tc_fan", cwd=tree)
    config = old_kbuild_config(tree, version, tmp / "config")
    make_args = [a for v in old_kbuild_make_vars(version)
                 for a in ("--make-arg", v)]
    report = tmp / "report.json"
    before = set(sanitizer_reports())
    proc = timerconv("convert", "-C", tree, *PATHS, "--verify",
                     "--config", config,
                     "--build-dir", tmp / "build", "--report", report,
                     *make_args, *OPTIONS[version], check=0,
                     env={"XDG_CACHE_HOME": str(tmp / "cache")},
                     timeout=1800)
    new = set(sanitizer_reports()) - before
    assert not new, "sanitizer report:\n" + "\n".join(
        Path(p).read_text(errors="replace") for p in new)
    return Run(tree, tmp / "build", proc, read_report(report))


@pytest.fixture(scope="module", params=["4.14", "4.9"])
def run(request, old_kbuild_sources, tmp_path_factory):
    return convert_old_tree(old_kbuild_sources, request.param,
                            tmp_path_factory.mktemp("v" + request.param))


def test_files_defconfig_builds_are_built(run):
    v = run.report["summary"]["verify"]
    assert v["verified"] > 0
    for path in ALWAYS_BUILT:
        sites = run.sites(path)
        assert sites, path
        # built, or put back with the compiler's line: never "not built"
        assert all(s["verify"] is None or s["verify"] == "built" or
                   s["verify"].startswith("failed: ") for s in sites), \
            (path, [s["verify"] for s in sites])
    # kbuild did compile what is reported built (an object whose last
    # compile failed is not left behind)
    built = [p for p in ALWAYS_BUILT
             if all(s["verify"] == "built" for s in run.sites(p))]
    assert built, [(p, [s["verify"] for s in run.sites(p)])
                   for p in ALWAYS_BUILT]
    for path in built:
        assert (run.build / path).with_suffix(".o").exists(), path
    assert "built before and after the conversion" in run.proc.stderr


def test_a_file_defconfig_does_not_build_is_reported(run):
    sites = [s for s in run.sites(NOT_BUILT) if s["outcome"] == "converted"]
    assert sites and all(s["verify"] == "not-built" for s in sites)
    assert not (run.build / NOT_BUILT).with_suffix(".o").exists()
    v = run.report["summary"]["verify"]
    assert 0 < v["not_built"] < v["files"]


def test_a_conversion_that_does_not_build_is_put_back(run):
    u = run.unit("tc_fan_stall_check")
    assert u["outcome"] == "refused"
    assert u["reason"].startswith(
        "does not build after conversion: kernel/time/tc_fan.c:")
    assert "error: conflicting types for 'tc_fan_stall_check'" in \
        u["reason"]
    assert run.report["summary"]["verify"]["reverted"] >= 1
    # the other timer of the file is kept, and was built
    spin = run.sites("kernel/time/tc_fan.c")
    spin = [s for s in spin if s["callback"] == "tc_fan_spinup_done"]
    assert spin and all(s["outcome"] == "converted" and
                        s["verify"] == "built" for s in spin)
    assert "+static void tc_fan_spinup_done(struct timer_list *t)" in \
        run.proc.stdout
    assert "tc_fan_stall_check(struct timer_list" not in run.proc.stdout


def test_a_stock_config_whose_objtool_does_not_build_gets_a_hint(
        old_kbuild_sources, tmp_path):
    """4.14's defconfig needs objtool (ORC unwinder); it does not build
    here.  The error keeps make's last lines and says what to do."""
    tree = old_kbuild_sources("4.14")
    proc = timerconv("convert", "-C", tree, "kernel/time", "--verify",
                     "--config", "defconfig", "--build-dir",
                     tmp_path / "build", timeout=900,
                     env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    if proc.returncode == 0:
        pytest.skip("4.14's objtool builds with this compiler")
    assert proc.returncode == 2, proc.stderr
    assert "make prepare failed in" in proc.stderr
    assert "objtool" in proc.stderr.split("likely cause:")[0]
    assert ("likely cause: objtool, which CONFIG_STACK_VALIDATION and "
            "CONFIG_UNWINDER_ORC need, did not build") in proc.stderr
    assert "-d UNWINDER_ORC -e UNWINDER_FRAME_POINTER" in proc.stderr
