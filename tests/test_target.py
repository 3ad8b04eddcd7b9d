# SPDX-License-Identifier: GPL-2.0
"""Target API levels: the tree's timer.h decides from_timer() or
timer_container_of(), newer targets move 4.15-era code forward, the
compat header lets out-of-tree code build everywhere, and compat code is
left alone."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import (CASES, FIXTURES, SHIMS, compile_c, read_report,
                      timerconv)

CASE = CASES / "setup_timer_container_pointer"
MODULE = FIXTURES / "compat-module"
COMPAT = FIXTURES / "check" / "compat"

# Code already on the 4.15 API, with a from_timer() line that only fits
# in 80 columns with the short name.
ALREADY_CONVERTED = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

struct zap_dev {
	struct timer_list poll_timer;
	int polls;
};

static void zap_poll(struct timer_list *t)
{
	struct zap_dev *zap_device_state = from_timer(zap_device_state, t,
						      poll_timer);
	struct zap_dev *zd = from_timer(zd, t, poll_timer);

	zd->polls++;
}

void zap_wait(struct zap_dev *zd)
{
	struct timer_list t;

	timer_setup_on_stack(&t, zap_poll, 0);
	del_timer_sync(&t);
	destroy_timer_on_stack(&t);
	del_timer(&zd->poll_timer);
}
"""

MOVED = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

struct zap_dev {
	struct timer_list poll_timer;
	int polls;
};

static void zap_poll(struct timer_list *t)
{
	struct zap_dev *zap_device_state = timer_container_of(zap_device_state,
							      t, poll_timer);
	struct zap_dev *zd = timer_container_of(zd, t, poll_timer);

	zd->polls++;
}

void zap_wait(struct zap_dev *zd)
{
	struct timer_list t;

	timer_setup_on_stack(&t, zap_poll, 0);
	timer_delete_sync(&t);
	timer_destroy_on_stack(&t);
	timer_delete(&zd->poll_timer);
}
"""


def kernel_tree(tmp_path, level, files):
    """A tree whose include/linux/timer.h is the shim of `level`."""
    tree = tmp_path / ("tree-" + level)
    (tree / "include" / "linux").mkdir(parents=True)
    if level:
        shutil.copy(SHIMS / level / "linux" / "timer.h",
                    tree / "include" / "linux" / "timer.h")
    for rel, text in files.items():
        p = tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tree


def converted(tmp_path, level, text, *args):
    tree = kernel_tree(tmp_path, level, {"drivers/x/x.c": text})
    report = tmp_path / ("r-%s.json" % level)
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, *args, check=0)
    return (tree / "drivers/x/x.c").read_text(), read_report(report), proc


def test_auto_target_on_a_4_15_tree_uses_from_timer(tmp_path):
    out, report, proc = converted(tmp_path, "v4.15",
                                  (CASE / "input.c").read_text())
    assert out == (CASE / "expected.c").read_text()
    assert report["target"]["level"] == "v4.15"
    assert report["target"]["header"].endswith("include/linux/timer.h")
    assert report["target"]["auto"] is True
    assert "target v4.15 (auto, from include/linux/timer.h)" in proc.stderr


def test_auto_target_on_a_6_16_tree_uses_timer_container_of(tmp_path):
    out, report, proc = converted(tmp_path, "v6.16",
                                  (CASE / "input.c").read_text())
    assert "timer_container_of(adapter, t, watchdog_timer)" in out
    assert "from_timer" not in out
    assert report["target"]["container_of"] == "timer_container_of"
    assert "target v6.16 (auto, from include/linux/timer.h)" in proc.stderr
    path = tmp_path / "out.c"
    path.write_text(out)
    assert compile_c(path, "v6.16").returncode == 0


def test_kernel_headers_decide_for_an_out_of_tree_module(tmp_path):
    kdir = kernel_tree(tmp_path, "v6.16", {})
    mod = tmp_path / "module"
    mod.mkdir()
    (mod / "m.c").write_text((CASE / "input.c").read_text())
    timerconv("convert", "-C", mod, "--in-place", "--kernel-headers", kdir,
              check=0)
    assert "timer_container_of(" in (mod / "m.c").read_text()


def test_explicit_target_overrides_the_header(tmp_path):
    out, report, _ = converted(tmp_path, "v4.15",
                               (CASE / "input.c").read_text(),
                               "--target", "v6.16")
    assert "timer_container_of(" in out
    assert report["target"]["auto"] is False
    timerconv("convert", "--target", "v5.0", check=2)


def test_6_16_target_moves_4_15_code_forward(tmp_path):
    out, report, _ = converted(tmp_path, "v6.16", ALREADY_CONVERTED)
    assert out == MOVED
    kinds = sorted(s["kind"] for s in report["sites"])
    assert kinds == ["del_timer", "del_timer_sync", "destroy_timer_on_stack",
                     "from_timer", "from_timer"]
    assert all(s["outcome"] == "converted" for s in report["sites"])


def test_4_15_target_leaves_4_15_code_alone(tmp_path):
    out, report, _ = converted(tmp_path, "v4.15", ALREADY_CONVERTED)
    assert out == ALREADY_CONVERTED
    assert report["sites"] == []


def test_forward_move_rewraps_to_80_columns(tmp_path):
    out, _, _ = converted(tmp_path, "v6.16", ALREADY_CONVERTED)
    assert max(len(l.expandtabs(8)) for l in out.splitlines()) <= 80
    assert ("\tstruct zap_dev *zap_device_state = timer_container_of("
            "zap_device_state,\n\t\t\t\t\t\t\t      t, poll_timer);\n") in out


def test_compat_shapes_are_left_byte_identical(tmp_path):
    files = {p.name: p.read_text() for p in COMPAT.iterdir()}
    tree = kernel_tree(tmp_path, "v6.16",
                       {"mod/" + n: t for n, t in files.items()})
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    for name, text in files.items():
        assert (tree / "mod" / name).read_text() == text, name
    compat = [s for s in read_report(report)["sites"]
              if s["file"].startswith("mod/")]
    assert compat
    assert all(s["outcome"] == "refused" and
               s["reason"].startswith("compat") for s in compat), compat


def build_module(tmp_path, *args):
    mod = tmp_path / "module"
    shutil.copytree(MODULE, mod)
    timerconv("convert", "-C", mod, "--in-place", "--target", "v6.16",
              "--compat-header", "include/acme_timer_compat.h", *args,
              check=0)
    return mod


@pytest.mark.parametrize("level", ["old", "v4.14", "v4.15", "v6.16"])
def test_compat_header_builds_on_every_level(level, tmp_path):
    mod = build_module(tmp_path)
    src = mod / "src" / "acme_mod.c"
    assert '#include "../include/acme_timer_compat.h"' in src.read_text()
    proc = compile_c(src, level)
    assert proc.returncode == 0, proc.stderr


# A 4.9-era driver whose only #include is its own header.
QUOTED_ONLY = {
    "drivers/zap/zap.h": """\
/* SPDX-License-Identifier: GPL-2.0 */
#include <linux/timer.h>

struct zap_dev {
	struct timer_list poll_timer;
	int polls;
};
""",
    "drivers/zap/zap_core.c": """\
// SPDX-License-Identifier: GPL-2.0
#include "zap.h"

static void zap_poll(unsigned long data)
{
	struct zap_dev *zd = (struct zap_dev *)data;

	zd->polls++;
}

void zap_start(struct zap_dev *zd)
{
	setup_timer(&zd->poll_timer, zap_poll, (unsigned long)zd);
}
""",
}


def test_compat_include_in_a_kernel_tree_is_a_system_include(tmp_path):
    tree = kernel_tree(tmp_path, "old", QUOTED_ONLY)
    timerconv("convert", "-C", tree, "--in-place", "--compat-header",
              "include/linux/timerconv_compat.h")
    text = (tree / "drivers/zap/zap_core.c").read_text()
    # after the file's first #include, though it is a "..." one
    assert text.startswith('// SPDX-License-Identifier: GPL-2.0\n'
                           '#include "zap.h"\n'
                           '#include <linux/timerconv_compat.h>\n'), text
    assert "timer_setup(&zd->poll_timer, zap_poll, 0);" in text
    assert (tree / "include/linux/timerconv_compat.h").is_file()


def test_a_file_with_no_include_for_the_compat_header_is_refused(tmp_path):
    files = dict(QUOTED_ONLY)
    core = files["drivers/zap/zap_core.c"]
    files["drivers/zap/zap_core.c"] = core.replace(
        '#include "zap.h"\n', "struct zap_dev;\n")
    # another driver (its own timer, its own unit) beside it
    files["drivers/zip/zip.h"] = files["drivers/zap/zap.h"].replace("zap",
                                                                    "zip")
    files["drivers/zip/zip_core.c"] = core.replace("zap", "zip")
    tree = kernel_tree(tmp_path, "old", files)
    report = tmp_path / "r.json"
    proc = timerconv("convert", "-C", tree, "--in-place", "--report",
                     report, "--compat-header",
                     "include/linux/timerconv_compat.h")
    # left as it was, and said why: without the header it would not build
    assert (tree / "drivers/zap/zap_core.c").read_text() == \
        files["drivers/zap/zap_core.c"]
    refused = [s for s in read_report(report)["sites"]
               if s["file"] == "drivers/zap/zap_core.c"]
    assert refused and all(
        s["outcome"] == "refused" and s["reason"].startswith(
            "could not add the #include of include/linux/timerconv_compat.h"
            " to drivers/zap/zap_core.c") for s in refused), refused
    assert ("warning: drivers/zap/zap_core.c: could not add the #include "
            "of include/linux/timerconv_compat.h (it has no #include to put "
            "it after): its units are refused") in proc.stderr
    # the driver beside it, which has an #include, is converted
    assert "timer_setup(" in (tree / "drivers/zip/zip_core.c").read_text()


def test_a_kept_function_assignment_without_timer_func_type_is_refused(
        tmp_path):
    """A timer.h of v4.14's shape (timer_setup(), .function taking
    unsigned long) that lacks TIMER_FUNC_TYPE, as a vendor's backport of
    timer_setup() alone may: the .function assignment that stays beside a
    converted callback has no spelling that builds there."""
    tree = kernel_tree(tmp_path, "v4.14", {})
    header = tree / "include" / "linux" / "timer.h"
    text = header.read_text()
    text = text.replace(
        "#define TIMER_FUNC_TYPE\t\tvoid (*)(TIMER_DATA_TYPE)\n", "")
    text = text.replace("(TIMER_FUNC_TYPE)callback", "(void *)callback")
    assert "TIMER_FUNC_TYPE" not in text.split("#ifndef", 1)[1]
    header.write_text(text)
    case = CASES / "function_assign_v4_14"
    src = tree / "drivers" / "input" / "zap_kbd.c"
    src.parent.mkdir(parents=True)
    src.write_text((case / "input.c").read_text())
    report = tmp_path / "r.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report)
    r = read_report(report)
    assert r["target"]["level"] == "v4.14", r["target"]
    assert src.read_text() == (case / "input.c").read_text()
    sites = r["sites"]
    assert sites and all(
        s["outcome"] == "refused" and s["reason"] ==
        "the target's timer_list.function takes unsigned long and its "
        "timer.h has no TIMER_FUNC_TYPE to cast a converted callback to"
        for s in sites), sites


# A module converted with the compat header, and a program that fires its
# timers the way the old timer core does, function(data): each callback
# must receive its own timer, as a struct timer_list * callback expects.
STATIC_TIMER_MODULE = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

struct acme_poll {
	struct timer_list timer;
	int runs;
};

static struct acme_poll acme_poll;
static void *acme_seen;

static void acme_tick(unsigned long data);
static DEFINE_TIMER(acme_tick_timer, acme_tick, 0, 0);

static void acme_tick(unsigned long data)
{
	acme_seen = (void *)&acme_tick_timer;
}

static void acme_poll_fn(unsigned long data)
{
	struct acme_poll *p = (struct acme_poll *)data;

	p->runs++;
}

void acme_poll_init(void)
{
	init_timer(&acme_poll.timer);
}

void acme_poll_start(void)
{
	acme_poll.timer.data = (unsigned long)&acme_poll;
	acme_poll.timer.function = acme_poll_fn;
}
"""

FIRE_TIMERS = """
#include <stdio.h>

void init_timer_key(struct timer_list *timer, unsigned int flags)
{
	timer->flags = flags;
}

void init_timer_on_stack_key(struct timer_list *timer, unsigned int flags)
{
	timer->flags = flags;
}

int main(void)
{
	acme_seen = NULL;
	if (acme_tick_timer.data != (unsigned long)&acme_tick_timer)
		return 3;
	acme_tick_timer.function(acme_tick_timer.data);
	if (acme_seen != &acme_tick_timer)
		return 1;
	acme_poll_init();
	acme_poll_start();
	acme_poll.timer.function(acme_poll.timer.data);
	return acme_poll.runs == 1 ? 0 : 2;
}
"""


@pytest.mark.parametrize("level", ["old", "v4.14"])
def test_compat_callbacks_receive_their_own_timer(level, tmp_path):
    mod = tmp_path / "module"
    (mod / "src").mkdir(parents=True)
    src = mod / "src" / "acme_tick.c"
    src.write_text(STATIC_TIMER_MODULE)
    timerconv("convert", "-C", mod, "--in-place", "--compat-header",
              "include/acme_timer_compat.h", check=0)
    text = src.read_text()
    assert "static DEFINE_TIMER(acme_tick_timer, acme_tick);" in text
    assert "(TIMER_FUNC_TYPE)acme_poll_fn" in text
    src.write_text(text + FIRE_TIMERS)
    exe = tmp_path / "fire"
    build = subprocess.run(
        ["gcc", "-Wall", "-Werror", "-Wno-unused-function",
         "-I", str(SHIMS / "common"), "-I", str(SHIMS / level),
         "-o", str(exe), str(src)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert subprocess.run([str(exe)]).returncode == 0


def test_without_the_compat_header_old_kernels_do_not_build(tmp_path):
    """The three builds above test something: the same conversion
    without the header fails on the old API."""
    mod = tmp_path / "module"
    shutil.copytree(MODULE, mod)
    timerconv("convert", "-C", mod, "--in-place", "--target", "v6.16",
              check=0)
    src = mod / "src" / "acme_mod.c"
    assert compile_c(src, "v6.16").returncode == 0
    assert compile_c(src, "old").returncode != 0
    assert compile_c(src, "v4.15").returncode != 0


def test_compat_header_is_generated_and_stable(tmp_path):
    mod = build_module(tmp_path)
    header = (mod / "include" / "acme_timer_compat.h").read_text()
    assert "Generated by timerconv" in header
    assert "KERNEL_VERSION(4, 14, 0)" in header
    assert "timer_container_of" in header
    before = {p: p.read_text() for p in mod.rglob("*") if p.is_file()}
    proc = timerconv("convert", "-C", mod, "--target", "v6.16",
                     "--compat-header", "include/acme_timer_compat.h",
                     check=0)
    assert proc.stdout == ""
    assert {p: p.read_text() for p in mod.rglob("*") if p.is_file()} == \
        before


def test_compat_header_shows_as_a_new_file_in_the_diff(tmp_path):
    mod = tmp_path / "module"
    shutil.copytree(MODULE, mod)
    proc = timerconv("convert", "-C", mod, "--target", "v6.16",
                     "--compat-header", "include/acme_timer_compat.h",
                     check=0)
    assert "--- /dev/null\n+++ b/include/acme_timer_compat.h\n" in \
        proc.stdout
    subprocess.run(["patch", "-s", "-p1"], input=proc.stdout, text=True,
                   cwd=mod, check=True)
    assert compile_c(mod / "src" / "acme_mod.c", "old").returncode == 0


def test_compat_header_does_not_overwrite_a_users_file(tmp_path):
    mod = tmp_path / "module"
    shutil.copytree(MODULE, mod)
    (mod / "include").mkdir()
    (mod / "include" / "mine.h").write_text("/* mine */\n")
    proc = timerconv("convert", "-C", mod, "--target", "v6.16",
                     "--compat-header", "include/mine.h", check=2)
    assert "did not write it" in proc.stderr


def check_findings(tree, *args):
    proc = timerconv("check", "-C", tree, "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return {f["kind"] for f in json.loads(proc.stdout)}


def test_check_at_both_levels(tmp_path):
    old_tree = kernel_tree(tmp_path, "v4.15",
                           {"drivers/z.c": ALREADY_CONVERTED})
    assert check_findings(old_tree) == set()
    new_tree = kernel_tree(tmp_path, "v6.16",
                           {"drivers/z.c": ALREADY_CONVERTED})
    assert check_findings(new_tree) == {
        "old-timer-api/from_timer", "old-timer-api/del_timer",
        "old-timer-api/del_timer_sync",
        "old-timer-api/destroy_timer_on_stack"}
    assert check_findings(old_tree, "--target", "v6.16") == \
        check_findings(new_tree)
    # the converted result is clean at its own level
    out, _, _ = converted(tmp_path / "c", "v6.16", ALREADY_CONVERTED)
    assert check_findings(kernel_tree(tmp_path / "d", "v6.16",
                                      {"z.c": out})) == set()


DKMS = ["jool-dkms", "tp-smapi-dkms", "adv-17v35x-dkms",
        "lttng-modules-dkms", "dahdi-dkms"]


@pytest.fixture(scope="module")
def dkms_sources(tmp_path_factory):
    """Debian's DKMS module sources, fetched with apt-get download."""
    cache = Path.home() / ".cache" / "timerconv" / "dkms"
    cache.mkdir(parents=True, exist_ok=True)
    roots = []
    for pkg in DKMS:
        dest = cache / pkg
        if not dest.exists():
            got = subprocess.run(["apt-get", "download", pkg], cwd=cache,
                                 capture_output=True, text=True)
            debs = sorted(cache.glob(pkg + "_*.deb"))
            if got.returncode != 0 or not debs:
                continue
            subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(dest)],
                           check=True)
        src = dest / "usr" / "src"
        if src.exists():
            roots += [d for d in src.iterdir() if d.is_dir()]
    if not roots:
        pytest.skip("apt-get download of the DKMS packages failed here")
    return roots


def test_real_dkms_compat_code_is_silent_and_untouched(dkms_sources,
                                                       tmp_path):
    checked = 0
    for src in dkms_sources:
        tree = tmp_path / src.name
        shutil.copytree(src, tree, symlinks=True)
        proc = timerconv("check", "-C", tree, "--format", "json",
                         "--include-compat")
        notes = [f for f in json.loads(proc.stdout)
                 if f["severity"] == "note"]
        report = tmp_path / (src.name + ".json")
        timerconv("convert", "-C", tree, "--in-place", "--target", "v6.16",
                  "--report", report, check=0)
        sites = read_report(report)["sites"]
        for note in notes:
            # every compat site check knows of is left alone by convert
            match = [s for s in sites if s["file"] == note["file"] and
                     s["line"] == note["line"]]
            assert match, note
            assert all(s["outcome"] == "refused" for s in match), match
            line = (tree / note["file"]).read_text().splitlines()[
                note["line"] - 1]
            orig = (src / note["file"]).read_text().splitlines()[
                note["line"] - 1]
            assert line == orig, note
            checked += 1
    # the packages hold compat code: a run that found none tested nothing
    assert checked, [src.name for src in dkms_sources]


def test_check_on_a_v4_14_tree_advises_what_v4_14_builds(tmp_path):
    """A tree branched at v4.14 cannot take DEFINE_TIMER(name, fn) or
    timer_setup_on_stack(): check says what it can take instead."""
    text = (CASES / "define_timer_v4_14" / "input.c").read_text() + \
        (CASES / "setup_timer_on_stack_v4_14" / "input.c").read_text(
        ).split("#include <linux/timer.h>\n", 1)[1]
    tree = kernel_tree(tmp_path, "v4.14", {"drivers/x/x.c": text})
    proc = timerconv("check", "-C", tree, "--format", "json")
    messages = {f["kind"]: f["message"] for f in json.loads(proc.stdout)}
    assert "TIMER_FUNC_TYPE" in messages["old-timer-api/DEFINE_TIMER"]
    assert "DEFINE_TIMER(name, fn)" not in \
        messages["old-timer-api/DEFINE_TIMER"]
    assert "__setup_timer_on_stack(t, (TIMER_FUNC_TYPE)fn" in \
        messages["old-timer-api/setup_timer_on_stack"]
