# SPDX-License-Identifier: GPL-2.0
"""convert --verify and series --verify on fixtures/kbuild-tree, a small
tree with a stand-in kbuild (its Makefile compiles one object with
gcc -fsyntax-only -Werror, honours O= and reads which objects the config
builds from the directories' Makefiles).

In that tree, drivers/fan/fan.c declares fan_stall_check() through a
macro that pastes the name together, so its conversion does not build;
drivers/alpha's handler takes its type from drivers/beta's, so neither
builds converted without the other; drivers/legacy is not in defconfig.
"""

import os
import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES, git, make_git_tree, read_report, timerconv

KTREE = FIXTURES / "kbuild-tree"
BUILT = ["drivers/acme/acme_core.o", "drivers/acme/acme_poll.o",
         "drivers/alpha/alpha.o", "drivers/beta/beta.o", "drivers/fan/fan.o"]
CONFLICT = (r"drivers/fan/fan\.c:\d+:\d+: error: conflicting types for "
            r"'fan_stall_check'")


@pytest.fixture
def tree(tmp_path):
    return make_git_tree(KTREE, tmp_path / "linux")


def convert(tree, tmp_path, *args, status=0, build="build"):
    return timerconv("convert", "-C", tree, "--verify",
                     "--build-dir", tmp_path / build, *args, check=status,
                     env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


def make(tree, *args):
    env = dict(os.environ, LC_ALL="C")
    return subprocess.run(["make", "-C", str(tree), *map(str, args)],
                          capture_output=True, text=True, env=env)


def stand_in_build(tree, objdir, objects):
    """Build objects of tree with its stand-in kbuild and defconfig."""
    assert make(tree, "O=%s" % objdir, "defconfig").returncode == 0
    return make(tree, "O=%s" % objdir, "-k", *objects)


def apply(tree, diff):
    subprocess.run(["git", "apply"], input=diff, text=True, cwd=tree,
                   check=True)


def unit(report, callback):
    return next(u for u in report["units"] if callback in u["callbacks"])


def sites(report, callback):
    """The sites of a callback; every caller names one the tree has."""
    found = [s for s in report["sites"] if s["callback"] == callback]
    assert found, "no site of %s() in the report" % callback
    return found


def clean(tree):
    return git("status", "--porcelain", "--ignored", cwd=tree) == ""


def test_the_fan_conversion_does_not_build_without_verify(tree, tmp_path):
    """What --verify is for: the shims' checks pass this conversion, the
    tree's own header does not."""
    proc = timerconv("convert", "-C", tree, check=0)
    assert "fan_stall_check(struct timer_list *t)" in proc.stdout
    apply(tree, proc.stdout)
    res = stand_in_build(tree, tmp_path / "o", ["drivers/fan/fan.o"])
    assert res.returncode != 0
    assert re.search(CONFLICT, res.stdout + res.stderr)


def test_a_unit_that_does_not_build_is_put_back_and_refused(tree, tmp_path):
    rep = tmp_path / "report.json"
    proc = convert(tree, tmp_path, "--config", "defconfig", "--report", rep)
    r = read_report(rep)
    u = unit(r, "fan_stall_check")
    assert u["outcome"] == "refused"
    assert re.match("does not build after conversion: " + CONFLICT,
                    u["reason"])
    for s in sites(r, "fan_stall_check"):
        assert s["outcome"] == "refused"
        assert re.match("failed: " + CONFLICT, s["verify"])
    # the other timer of the same file is kept, and was built
    spin = sites(r, "fan_spinup_done")
    assert spin and all(s["outcome"] == "converted" and
                        s["verify"] == "built" for s in spin)
    assert "fan_stall_check(struct timer_list" not in proc.stdout
    assert "+static void fan_spinup_done(struct timer_list *t)" in \
        proc.stdout
    assert re.search("refused: does not build after conversion: " +
                     CONFLICT, proc.stderr)
    # the tree is not written, and the result builds
    assert clean(tree)
    apply(tree, proc.stdout)
    res = stand_in_build(tree, tmp_path / "check", BUILT)
    assert res.returncode == 0, res.stdout + res.stderr


def test_summary_and_report_count_what_was_built(tree, tmp_path):
    rep = tmp_path / "report.json"
    proc = convert(tree, tmp_path, "--config", "defconfig", "--report", rep)
    v = read_report(rep)["summary"]["verify"]
    assert v["config"] == "defconfig"
    assert v["build_dir"] == str((tmp_path / "build").resolve())
    assert (v["files"], v["verified"], v["not_built"], v["reverted"]) == \
        (6, 5, 1, 1)
    assert ("5 files built before and after the conversion, 1 not built "
            "by this config; 1 unit reverted") in proc.stderr


def test_a_file_the_config_does_not_build_is_not_verified(tree, tmp_path):
    rep = tmp_path / "report.json"
    proc = convert(tree, tmp_path, "--config", "defconfig", "--report", rep)
    r = read_report(rep)
    legacy = sites(r, "legacy_blink")
    assert legacy and all(s["outcome"] == "converted" and
                          s["verify"] == "not-built" for s in legacy)
    assert ("drivers/legacy/legacy.c: not built by this config"
            in proc.stderr)
    # kbuild compiles any object it is asked for: the answer comes from
    # the Makefiles, so legacy.o was never compiled
    log = (tmp_path / "build" / "compile.log").read_text()
    assert "drivers/legacy/legacy.o" not in log


def test_a_config_file_that_builds_it(tree, tmp_path):
    config = tmp_path / "my.config"
    config.write_text((KTREE / "configs" / "defconfig").read_text() +
                      "CONFIG_LEGACY=y\n")
    rep = tmp_path / "report.json"
    convert(tree, tmp_path, "--config", config, "--report", rep)
    legacy = sites(read_report(rep), "legacy_blink")
    assert legacy and all(s["verify"] == "built" for s in legacy)


def test_the_trees_own_config(tree, tmp_path):
    """An in-tree .config is used, and the tree stays as it is: the build
    runs out of tree (where kbuild refuses a tree with a .config, were it
    not hidden from it)."""
    (tree / ".config").write_text("CONFIG_FAN=y\n")
    rep = tmp_path / "report.json"
    proc = convert(tree, tmp_path, "--report", rep)
    r = read_report(rep)
    assert "the tree's .config" in proc.stderr
    assert all(s["verify"] == "not-built" for s in sites(r, "acme_watchdog"))
    assert all(s["verify"] == "built" for s in sites(r, "fan_spinup_done"))
    assert git("status", "--porcelain", "--ignored", cwd=tree) == \
        "?? .config\n"


def test_no_config(tree, tmp_path):
    proc = convert(tree, tmp_path, status=2)
    assert "has no .config: give --config" in proc.stderr
    assert clean(tree)


def test_not_a_kernel_tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(KTREE / "drivers" / "legacy" / "legacy.c", src)
    proc = convert(src, tmp_path, "--config", "defconfig", status=2)
    assert "has no Makefile: not a kernel tree" in proc.stderr


def test_options_that_need_verify(tree):
    proc = timerconv("convert", "-C", tree, "--config", "defconfig",
                     check=2)
    assert "go with --verify" in proc.stderr


def test_a_build_dir_timerconv_did_not_make(tree, tmp_path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "vmlinux").write_text("mine\n")
    proc = convert(tree, tmp_path, "--config", "defconfig", status=2)
    assert "timerconv did not make it" in proc.stderr
    assert (tmp_path / "build" / "vmlinux").read_text() == "mine\n"


def test_the_build_dir_is_prepared_once(tree, tmp_path):
    first = convert(tree, tmp_path, "--config", "defconfig")
    assert "running make prepare" in first.stderr
    second = convert(tree, tmp_path, "--config", "defconfig")
    assert "running make prepare" not in second.stderr
    assert second.stdout == first.stdout
    log = tmp_path / "build" / "prepare.log"
    assert log.read_text().count("prepared") == 1
    # another config: the directory is configured again
    config = tmp_path / "my.config"
    config.write_text("CONFIG_FAN=y\n")
    third = convert(tree, tmp_path, "--config", config)
    assert "running make prepare" in third.stderr
    assert log.read_text().count("prepared") == 2


def test_the_default_build_dir_is_kept_in_the_cache(tree, tmp_path):
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    timerconv("convert", "-C", tree, "--verify", "--config", "defconfig",
              check=0, env=env)
    dirs = list((tmp_path / "cache" / "timerconv" / "kbuild").iterdir())
    assert len(dirs) == 1 and dirs[0].name.startswith("linux-")
    assert (dirs[0] / ".config").exists()
    second = timerconv("convert", "-C", tree, "--verify", "--config",
                       "defconfig", check=0, env=env)
    assert "running make prepare" not in second.stderr


def test_in_place_writes_what_builds(tree, tmp_path):
    convert(tree, tmp_path, "--config", "defconfig", "--in-place")
    fan = (tree / "drivers" / "fan" / "fan.c").read_text()
    assert "void fan_stall_check(unsigned long data)" in fan
    assert "fan_spinup_done(struct timer_list *t)" in fan
    res = stand_in_build(tree, tmp_path / "check", BUILT)
    assert res.returncode == 0, res.stdout + res.stderr


# ---- out-of-tree modules ----

WIDGET_KBUILD = "obj-m += widget.o\n"


@pytest.fixture
def kdir(tmp_path):
    """A kernel build directory: the stand-in tree, configured in it."""
    k = tmp_path / "kdir"
    shutil.copytree(KTREE, k)
    assert make(k, "defconfig").returncode == 0
    assert make(k, "prepare").returncode == 0
    return k


@pytest.fixture
def module(tmp_path):
    m = tmp_path / "module"
    (m / "src").mkdir(parents=True)
    (m / "src" / "Kbuild").write_text(WIDGET_KBUILD)
    fan = (KTREE / "drivers" / "fan")
    (m / "src" / "widget.c").write_text((fan / "fan.c").read_text())
    (m / "src" / "fan.h").write_text((fan / "fan.h").read_text())
    # not in the Kbuild file: not built
    shutil.copy(KTREE / "drivers" / "legacy" / "legacy.c", m / "src")
    return m


def test_a_module_is_built_against_the_kernel_headers(module, kdir,
                                                      tmp_path):
    rep = tmp_path / "report.json"
    before = sorted(p.relative_to(module) for p in module.rglob("*"))
    proc = timerconv("convert", "-C", module, "--verify",
                     "--kernel-headers", kdir, "--report", rep, check=0)
    r = read_report(rep)
    assert re.match(r"does not build after conversion: src/widget\.c:\d+:"
                    r"\d+: error: conflicting types for 'fan_stall_check'",
                    unit(r, "fan_stall_check")["reason"])
    assert all(s["verify"] == "built" for s in sites(r, "fan_spinup_done"))
    assert all(s["verify"] == "not-built" for s in sites(r, "legacy_blink"))
    assert "src/legacy.c: not built by this config" in proc.stderr
    # built in a copy: the module's tree has no objects
    assert sorted(p.relative_to(module) for p in module.rglob("*")) == before


def test_kernel_headers_that_are_not_a_build_dir(module, tmp_path):
    """Headers alone decide the API level, but do not build."""
    headers = tmp_path / "headers"
    shutil.copytree(KTREE / "include", headers / "include")
    proc = timerconv("convert", "-C", module, "--verify",
                     "--kernel-headers", headers, check=2)
    assert "not a kernel build directory" in proc.stderr


# ---- series ----

def patch_files(text):
    return re.findall(r"^diff --git a/(\S+) ", text, re.M)


def series(tree, out, tmp_path, *args, status=0):
    return timerconv("series", "-C", tree, "--out", out, *args,
                     check=status,
                     env={"XDG_CACHE_HOME": str(tmp_path / "cache")})


def test_series_without_verify_has_a_prefix_that_does_not_build(tree,
                                                                tmp_path):
    """The alpha patch comes before the beta one and needs it."""
    out = tmp_path / "out"
    series(tree, out, tmp_path)
    alpha = next(p for p in sorted(out.glob("0*.patch"))
                 if "drivers/alpha/alpha.c" in patch_files(p.read_text()))
    git("am", "-q", str(alpha), cwd=tree)
    res = stand_in_build(tree, tmp_path / "check", ["drivers/alpha/alpha.o"])
    assert res.returncode != 0
    assert "conflicting types for 'alpha_tick'" in res.stdout + res.stderr


def test_series_verify_leaves_out_what_does_not_build(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out, tmp_path, "--verify", "--config", "defconfig",
           "--build-dir", tmp_path / "build")
    assert clean(tree)
    cover = (out / "0000-cover-letter.patch").read_text()
    patches = sorted(p for p in out.glob("0*.patch")
                     if p.name != "0000-cover-letter.patch")
    changed = [f for p in patches for f in patch_files(p.read_text())]
    assert "drivers/acme/acme_core.c" in changed
    assert "drivers/fan/fan.c" in changed
    for left_out in ("drivers/alpha/alpha.c", "drivers/beta/beta.c",
                     "include/linux/beta.h"):
        assert left_out not in changed
    assert "Left out, as they do not build on top of the patches" in cover
    assert re.search(r"ALPHA BOARD: alpha_tick\(\)\n    drivers/alpha/"
                     r"alpha\.c:\d+:\d+: error: conflicting types", cover)
    assert "BETA CORE: beta_tick()" in cover
    assert "Build-tested with the tree's kbuild (defconfig)" in cover
    assert "not build-tested:\n  drivers/legacy/legacy.c" in cover
    assert re.search(r"drivers/fan/fan\.c:\d+: ulong-callback: does not "
                     r"build after conversion: " + CONFLICT, cover)
    # every prefix of the series applies to a fresh clone and builds
    clone = tmp_path / "clone"
    git("clone", "-q", str(tree), str(clone), cwd=tmp_path)
    for p in patches:
        git("-c", "user.name=T", "-c", "user.email=t@example.org", "am",
            "-q", str(p), cwd=clone)
        res = stand_in_build(clone, tmp_path / "check", BUILT)
        assert res.returncode == 0, (p.name, res.stdout + res.stderr)


# ---- how kbuild is asked, make arguments, make's failures ----

def test_the_dry_run_finds_again_what_an_earlier_run_compiled(tree,
                                                              tmp_path):
    """kbuild lists only what is out of date: the objects an earlier run
    left in the build directory are still found built."""
    rep = tmp_path / "report.json"
    convert(tree, tmp_path, "--config", "defconfig")
    assert (tmp_path / "build" / "drivers" / "acme" / "acme_core.o").exists()
    convert(tree, tmp_path, "--config", "defconfig", "--report", rep)
    v = read_report(rep)["summary"]["verify"]
    assert (v["verified"], v["not_built"], v["reverted"]) == (5, 1, 1)


def test_when_the_config_builds_none_of_the_files_it_says_where(tree,
                                                                tmp_path):
    proc = convert(tree, tmp_path, "--config", "defconfig",
                   "drivers/legacy")
    assert "0 files built before and after the conversion, 1 not built" \
        in proc.stderr
    assert ("warning: this config builds none of the 1 changed file "
            "(is it the config this tree is built with?): drivers does "
            "not build drivers/legacy/") in proc.stderr


def test_kbuild_that_names_no_directory_is_an_error(tree, tmp_path):
    """Never "not built by this config" for every file because the
    answer could not be read: a top that builds nothing is an error."""
    (tree / "Kbuild").write_text("# SPDX-License-Identifier: GPL-2.0\n")
    git("-c", "user.name=T", "-c", "user.email=t@example.org", "commit",
        "-qam", "empty top", cwd=tree)
    proc = convert(tree, tmp_path, "--config", "defconfig", status=2)
    assert "kbuild names no directory it builds from the top" in proc.stderr
    assert "not built by this config" not in proc.stderr


def test_make_args_reach_every_make(tree, tmp_path):
    """--make-arg CC=... is the compiler of every compile: one that is
    not installed compiles nothing, before as after; which objects the
    config builds is still known (the dry run compiles nothing).  Each
    set of make arguments has a build directory configured for it."""
    convert(tree, tmp_path, "--config", "defconfig")
    rep = tmp_path / "report.json"
    proc = convert(tree, tmp_path, "--config", "defconfig",
                   "--make-arg", "CC=tc-no-such-gcc", "--report", rep)
    assert "running make prepare" in proc.stderr
    v = read_report(rep)["summary"]["verify"]
    assert (v["verified"], v["not_building_before"], v["not_built"]) == \
        (0, 5, 1)
    log = (tmp_path / "build" / "compile.log").read_text()
    assert "drivers/legacy/legacy.o" not in log


def test_series_takes_make_args_too(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out, tmp_path, "--verify", "--config", "defconfig",
           "--build-dir", tmp_path / "build",
           "--make-arg", "CC=tc-no-such-gcc")
    cover = (out / "0000-cover-letter.patch").read_text()
    assert "Build-tested with the tree's kbuild (defconfig)" in cover
    assert "0 files built" in cover


@pytest.mark.parametrize("arg,message", [
    ("ARCH", "--make-arg ARCH: expected VAR=VALUE"),
    ("-j8", "--make-arg -j8: expected VAR=VALUE"),
    ("O=/tmp/elsewhere", "timerconv sets O itself"),
    ("M=drivers/fan", "timerconv sets M itself"),
])
def test_a_make_arg_that_is_not_a_variable(tree, tmp_path, arg, message):
    proc = convert(tree, tmp_path, "--config", "defconfig",
                   "--make-arg", arg, status=2)
    assert message in proc.stderr
    assert clean(tree)


def test_make_args_go_with_verify(tree):
    proc = timerconv("convert", "-C", tree, "--make-arg", "ARCH=arm64",
                     check=2)
    assert "--make-arg go with --verify" in proc.stderr


def path_without(tmp_path, *tools):
    """A PATH with every command of this one, less tools."""
    bindir = tmp_path / "path"
    bindir.mkdir()
    for d in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            dst = bindir / name
            if name not in tools and not os.path.lexists(dst):
                os.symlink(os.path.join(d, name), dst)
    return str(bindir)


def test_a_missing_host_tool_is_named_with_its_debian_package(tree,
                                                              tmp_path):
    """make prepare runs bc (kbuild's timeconst.h); without it, the error
    keeps make's last lines and names the package."""
    proc = timerconv("convert", "-C", tree, "--verify", "--config",
                     "defconfig", "--build-dir", tmp_path / "build",
                     check=2, env={"PATH": path_without(tmp_path, "bc"),
                                   "XDG_CACHE_HOME": str(tmp_path)})
    assert "make prepare failed in" in proc.stderr
    assert "bc: not found" in proc.stderr
    assert ("likely cause: bc is not installed (Debian: apt-get install "
            "bc)") in proc.stderr
