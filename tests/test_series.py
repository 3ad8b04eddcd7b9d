# SPDX-License-Identifier: GPL-2.0
"""timerconv series on fixtures/sample-tree, turned into a git repository
with a little history in a temporary directory."""

import re
import shutil
import subprocess

import pytest

from conftest import FIXTURES, SHIMS, git, make_git_tree, timerconv

SAMPLE = FIXTURES / "sample-tree"


def commit(tree, message, path, line="/* touched */\n"):
    with open(tree / path, "a") as f:
        f.write(line)
    git("add", path, cwd=tree)
    git("-c", "user.name=Ada Acme", "-c", "user.email=ada@acme.example",
        "commit", "-q", "-m", message, cwd=tree)


@pytest.fixture
def tree(tmp_path):
    t = make_git_tree(SAMPLE, tmp_path / "linux")
    commit(t, "acme: Fix the link check", "drivers/net/ethernet/acme/acme.h")
    commit(t, "acme: Use round_jiffies for the watchdog",
           "drivers/net/ethernet/acme/acme_main.c")
    commit(t, "Input: beeper - stop the tone on suspend",
           "drivers/input/misc/beeper.c")
    commit(t, "Input: beeper - fix a typo", "drivers/input/misc/beeper.c")
    return t


def series(tree, out, *args, status=0):
    return timerconv("series", "-C", tree, "--out", out, *args,
                     check=status)


def patches(out):
    return sorted(p for p in out.iterdir() if p.name != "0000-cover-letter.patch")


def header(text, name):
    """A mail header, unfolded."""
    m = re.search(r"^%s: (.*(?:\n .*)*)" % name, text, re.M)
    return re.sub(r"\n\s+", " ", m.group(1)) if m else None


def files_of(patch_text):
    return re.findall(r"^diff --git a/(\S+) ", patch_text, re.M)


def test_patch_files_are_git_format_patch(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "0000-cover-letter.patch"
    total = len(names) - 1
    for n, p in enumerate(patches(out), 1):
        assert re.match(r"%04d-[\w-]+\.patch$" % n, p.name)
        text = p.read_text()
        assert text.startswith("From ")
        assert header(text, "From") and header(text, "Date")
        assert re.search(r"^Subject: \[PATCH %d/%d\] [\w /:.-]+: Convert "
                         r"timers to use timer_setup\(\)$" % (n, total),
                         text, re.M)
        assert "from_timer()" in text
        assert re.search(r"^Signed-off-by: .+ <.+>$", text, re.M)
        assert re.search(r"^ \d+ files? changed", text, re.M)
        assert "\nbase-commit: " in text


def test_seed_unit_stays_in_one_patch(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    owners = [p for p in patches(out) if "mm/page-writeback.c" in
              files_of(p.read_text())]
    assert len(owners) == 1
    assert set(files_of(owners[0].read_text())) == {
        "block/blk-core.c", "include/linux/writeback.h",
        "mm/page-writeback.c"}


def test_grouping_follows_maintainers(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    by_to = {header(p.read_text(), "To"): files_of(p.read_text())
             for p in patches(out)}
    # most specific F: wins: acme beats NETWORKING DRIVERS' drivers/net/
    assert by_to["Ada Acme <ada@acme.example>"] == [
        "drivers/net/ethernet/acme/acme_main.c"]
    # X: takes the legacy speaker out of INPUT, to THE REST
    assert by_to["Ines Input <ines@input.example>"] == [
        "drivers/input/misc/beeper.c"]
    assert sorted(by_to["Tom Rest <tom@rest.example>"]) == [
        "drivers/input/misc/pcspkr_legacy.c",
        "drivers/watchdog/acme_wdt.c"]


def test_unit_spanning_sections_goes_with_its_setup_and_ccs_the_rest(
        tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    block = [p.read_text() for p in patches(out)
             if "block/blk-core.c" in files_of(p.read_text())][0]
    assert header(block, "To") == "Bo Block <bo@block.example>"
    cc = header(block, "Cc")
    assert "Mia Memory <mia@mm.example>" in cc      # mm/ and writeback.h
    assert "linux-mm@kvack.example.org" in cc
    assert "linux-block@vger.example.org" in cc


def test_reviewers_and_lists_are_cc(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    inp = [p.read_text() for p in patches(out)
           if "drivers/input/misc/beeper.c" in files_of(p.read_text())][0]
    assert header(inp, "Cc") == ("Rui Reviewer <rui@input.example>, "
                                 "linux-input@vger.example.org")


def test_subject_prefix_comes_from_history(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    subjects = [header(p.read_text(), "Subject") for p in patches(out)]
    assert ("[PATCH 4/4] acme: Convert timers to use timer_setup()"
            in subjects)
    assert ("[PATCH 2/4] Input: Convert timers to use timer_setup()"
            in subjects)
    # no history for block/: the path names it
    assert ("[PATCH 1/4] block: Convert timers to use timer_setup()"
            in subjects)


def test_note_below_the_dashes_names_the_required_commit(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    text = patches(out)[0].read_text()
    below = text.split("\n---\n", 1)[1]
    assert below.startswith("This requires commit 686fef928bba")
    assert "v4.14-rc3" in below.split("---")[0]


def test_cover_letter_lists_patches_refusals_and_base(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    cover = (out / "0000-cover-letter.patch").read_text()
    base = git("rev-parse", "HEAD", cwd=tree).strip()
    assert re.search(r"^Subject: \[PATCH 0/4\] Convert timers to use "
                     r"timer_setup\(\)$", cover, re.M)
    assert "*** SUBJECT HERE ***" not in cover
    assert "*** BLURB HERE ***" not in cover
    for n in range(1, 5):
        assert "  %d/4 " % n in cover
    assert ("sound/isa/acme_snd.c:23: setup_timer: data is not the "
            "timer's container") in cover
    assert "686fef928bba" in cover and "v4.14-rc3" in cover
    assert base in cover
    to = header(cover, "To")
    for who in ("Bo Block", "Ines Input", "Tom Rest", "Ada Acme"):
        assert who in to


def test_git_am_of_the_series_reproduces_convert(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out)
    clone = tmp_path / "clone"
    git("clone", "-q", str(tree), str(clone), cwd=tmp_path)
    git("-c", "user.name=Bo Block", "-c", "user.email=bo@block.example",
        "am", "-q", *map(str, patches(out)), cwd=clone)
    converted = tmp_path / "converted"
    shutil.copytree(tree, converted)
    timerconv("convert", "-C", converted, "--in-place", check=0)
    diff = subprocess.run(["diff", "-r", "-x", ".git", str(converted),
                           str(clone)], capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout


def test_every_prefix_of_the_series_applies(tree, tmp_path):
    """git am of patches 1..n on a fresh clone, for every n: each prefix
    applies and makes n commits, the last one patch n's."""
    out = tmp_path / "out"
    series(tree, out)
    every = patches(out)
    assert len(every) == 4, [p.name for p in every]
    base = git("rev-parse", "HEAD", cwd=tree).strip()
    for n in range(1, len(every) + 1):
        clone = tmp_path / ("c%d" % n)
        git("clone", "-q", str(tree), str(clone), cwd=tmp_path)
        git("-c", "user.name=B", "-c", "user.email=b@x", "am", "-q",
            *map(str, every[:n]), cwd=clone)
        log = git("log", "--format=%s", base + "..HEAD", cwd=clone)
        assert len(log.splitlines()) == n, log
        text = every[n - 1].read_text()
        subject = header(text, "Subject")
        assert log.splitlines()[0] == re.sub(r"^\[PATCH \d+/\d+\] ", "",
                                             subject)
        changed = git("diff", "--name-only", "HEAD~1", "HEAD", cwd=clone)
        assert sorted(changed.split()) == sorted(files_of(text))


def test_checkpatch_is_run_and_finds_no_errors(tree, tmp_path):
    proc = series(tree, tmp_path / "out")
    lines = [l for l in proc.stderr.splitlines() if "checkpatch" in l]
    assert len(lines) == 4
    assert all(l.endswith("no errors") for l in lines), lines
    # run --jobs at a time, reported in patch order
    names = [l.split(": ")[2] for l in lines]
    assert names == sorted(names) and len(set(names)) == 4, names


def test_the_tree_is_not_modified(tree, tmp_path):
    before = git("status", "--porcelain", cwd=tree)
    head = git("rev-parse", "HEAD", cwd=tree)
    series(tree, tmp_path / "out")
    assert git("status", "--porcelain", cwd=tree) == before
    assert git("rev-parse", "HEAD", cwd=tree) == head
    assert git("worktree", "list", cwd=tree).count("\n") == 1


def test_base_check_refuses_a_tree_without_timer_setup(tree, tmp_path):
    shutil.copy(SHIMS / "old" / "linux" / "timer.h",
                tree / "include" / "linux" / "timer.h")
    git("commit", "-q", "-am", "timer: go back to v4.13", cwd=tree)
    proc = series(tree, tmp_path / "out", status=2)
    assert "has no timer_setup()" in proc.stderr
    assert "v4.15-rc1" in proc.stderr and "v4.14-rc3" in proc.stderr
    assert not (tmp_path / "out").exists()
    series(tree, tmp_path / "forced", "--force")


def test_base_rev_is_used_for_patches_and_for_the_check(tree, tmp_path):
    old = git("rev-parse", "HEAD", cwd=tree).strip()
    shutil.copy(SHIMS / "old" / "linux" / "timer.h",
                tree / "include" / "linux" / "timer.h")
    git("commit", "-q", "-am", "timer: go back to v4.13", cwd=tree)
    out = tmp_path / "out"
    series(tree, out, "--base", old)
    cover = (out / "0000-cover-letter.patch").read_text()
    assert "base-commit: %s" % old in cover
    proc = series(tree, tmp_path / "o2", "--base", "HEAD", status=2)
    assert "has no timer_setup()" in proc.stderr


def test_upstream_drops_an_already_converted_unit(tree, tmp_path):
    # upstream took the acme conversion already
    up = tmp_path / "up"
    git("checkout", "-q", "-b", "next", cwd=tree)
    timerconv("convert", "-C", tree, "--in-place",
              "drivers/net/ethernet/acme", check=0)
    git("commit", "-q", "-am", "acme: Convert timers to use timer_setup()",
        cwd=tree)
    git("checkout", "-q", "master", cwd=tree)
    out = tmp_path / "out"
    series(tree, out, "--upstream", "next")
    assert len(patches(out)) == 3
    assert not any("acme_main.c" in files_of(p.read_text())
                   for p in patches(out))
    assert "already in next" in (out / "0000-cover-letter.patch").read_text()


def test_branch_creates_one_commit_per_patch(tree, tmp_path):
    head = git("rev-parse", "HEAD", cwd=tree).strip()
    timerconv("series", "-C", tree, "--branch", "timers", check=0)
    log = git("log", "--format=%s", "%s..timers" % head, cwd=tree)
    assert len(log.splitlines()) == 4
    assert all(l.endswith(": Convert timers to use timer_setup()")
               for l in log.splitlines())
    author = git("log", "-1", "--format=%an <%ae>", "timers", cwd=tree)
    assert author.strip() == git("config", "user.name", cwd=tree).strip() \
        + " <" + git("config", "user.email", cwd=tree).strip() + ">"
    assert git("rev-parse", "HEAD", cwd=tree).strip() == head
    # no patch files unless --out is given as well
    assert not (tree / "timerconv-series").exists()


def test_branch_refuses_a_dirty_tree(tree, tmp_path):
    with open(tree / "block" / "blk-core.c", "a") as f:
        f.write("/* local change */\n")
    proc = timerconv("series", "-C", tree, "--branch", "timers", check=2)
    assert "uncommitted changes" in proc.stderr


def test_out_that_is_not_empty_is_refused_unless_force(tree, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.patch").write_text("x")
    proc = series(tree, out, status=2)
    assert "not empty" in proc.stderr
    series(tree, out, "--force")


def test_not_a_git_repository(tmp_path):
    plain = tmp_path / "plain"
    shutil.copytree(SAMPLE, plain)
    proc = timerconv("series", "-C", plain, "--out", tmp_path / "o",
                     check=2)
    assert "not a git repository" in proc.stderr
    # --split directory with --out needs only files
    out = tmp_path / "dir"
    timerconv("series", "-C", plain, "--split", "directory", "--out", out,
              check=0)
    assert len(patches(out)) >= 4
    assert "base-commit" not in (out / "0000-cover-letter.patch").read_text()


def test_split_directory_and_none(tree, tmp_path):
    out = tmp_path / "dir"
    series(tree, out, "--split", "directory")
    dirs = [sorted({f.rsplit("/", 1)[0] for f in files_of(p.read_text())})
            for p in patches(out)]
    assert ["drivers/net/ethernet/acme"] in dirs
    one = tmp_path / "none"
    series(tree, one, "--split", "none")
    assert len(patches(one)) == 1
    assert "[PATCH 1/1]" in patches(one)[0].read_text()


def test_dry_run_writes_nothing(tree, tmp_path):
    out = tmp_path / "out"
    proc = series(tree, out, "--dry-run")
    assert not out.exists()
    assert "[PATCH 1/4]" in proc.stdout


# ---- issue 29: a maintainer's day with it ----

def test_upstream_that_names_no_revision_is_an_error(tree, tmp_path):
    """A typo in --upstream must not compare against nothing and keep
    every patch: it is refused up front, as --base's is."""
    out = tmp_path / "out"
    proc = series(tree, out, "--upstream", "nosuch", "--dry-run", status=2)
    assert "--upstream nosuch: no such revision" in proc.stderr
    assert "[PATCH" not in proc.stdout
    proc = series(tree, out, "--upstream", "nosuch", status=2)
    assert "--upstream nosuch: no such revision" in proc.stderr
    assert not out.exists()
    proc = series(tree, out, "--base", "nosuch", status=2)
    assert "--base nosuch: no such revision" in proc.stderr


CALLBACK_TEMPLATE = """\
// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/timer.h>

struct NAME_adapter {
	struct timer_list watchdog_timer;
	bool link_up;
};

static void NAME_watchdog_timeout(unsigned long data)
{
	struct NAME_adapter *adapter = (struct NAME_adapter *)data;

	adapter->link_up = false;
}

int NAME_probe(struct NAME_adapter *adapter)
{
	setup_timer(&adapter->watchdog_timer, NAME_watchdog_timeout,
		    (unsigned long)adapter);
	return 0;
}
"""


def test_converted_callbacks_line_is_wrapped_at_75_columns(tmp_path):
    """A directory of many drivers converts many callbacks: the commit
    message lists them all, in lines of at most 75 columns (git's and
    checkpatch's limit for a commit message), not on one long line."""
    src = tmp_path / "src"
    drv = src / "drivers" / "net" / "ethernet" / "acme"
    drv.mkdir(parents=True)
    shutil.copytree(SAMPLE / "include", src / "include")
    names = ["acme_gigabit_%02d" % i for i in range(12)]
    for name in names:
        (drv / (name + ".c")).write_text(
            CALLBACK_TEMPLATE.replace("NAME", name))
    tree = make_git_tree(src, tmp_path / "linux")
    out = tmp_path / "out"
    series(tree, out, "--split", "directory")
    (patch,) = patches(out)
    text = patch.read_text()
    message = text.split("\n\n", 1)[1].split("\n---\n", 1)[0]
    body = [l for l in message.splitlines()   # not the Cc:, Signed-off-by:
            if not re.match(r"[\w-]+: .*<.*>$", l)]
    assert all(len(l) <= 75 for l in body), message
    listed = message.split("Converted callbacks:", 1)[1].split("\n\n")[0]
    assert re.findall(r"(\w+)\(\)", listed) == \
        sorted(n + "_watchdog_timeout" for n in names)
    assert listed.count("\n") >= 3


def test_out_over_an_earlier_series_removes_its_stale_patches(
        tree, tmp_path):
    """A second run into the same --out replaces the first series: its
    0002-0004 do not stay beside the new 0001 (git send-email would mail
    them all), and the run says what it removed."""
    out = tmp_path / "out"
    series(tree, out)
    old = sorted(p.name for p in out.iterdir())
    assert len(old) == 5
    proc = series(tree, out, "--split", "none")
    new = sorted(p.name for p in out.iterdir())
    assert len(new) == 2 and new[0] == "0000-cover-letter.patch"
    assert "[PATCH 1/1]" in (out / new[1]).read_text()
    for name in set(old) - set(new):
        assert "removed %s" % (out / name) in proc.stderr


def test_out_holding_files_timerconv_did_not_write_is_refused(
        tree, tmp_path):
    """Files the tool did not write are never removed: a directory that
    holds any (notes, the user's own format-patch series) is refused
    before anything runs, naming them; --force writes beside them and
    still removes only timerconv's own stale patches."""
    out = tmp_path / "out"
    series(tree, out)
    earlier = {p.name: p.read_text() for p in out.iterdir()}
    (out / "notes.txt").write_text("ask Bo about the block patch\n")
    mine = out / "0001-mydrv-fix-a-leak.patch"
    mine.write_text("From %s Mon Sep 17 00:00:00 2001\nFrom: Me <me@x>\n"
                    "Subject: [PATCH] mydrv: Fix a leak\n\n---\n" % ("a" * 40))
    proc = series(tree, out, "--split", "none", status=2)
    assert "did not write" in proc.stderr
    assert "0001-mydrv-fix-a-leak.patch" in proc.stderr
    assert "notes.txt" in proc.stderr
    for name, text in earlier.items():
        assert (out / name).read_text() == text
    series(tree, out, "--split", "none", "--force")
    ours = [p.name for p in out.glob("000[01]-*.patch")
            if "Convert timers to use timer_setup()" in p.read_text()]
    assert len(ours) == 2
    assert {p.name for p in out.iterdir()} == {
        *ours, "notes.txt", "0001-mydrv-fix-a-leak.patch"}
SUBJECT_TREE = FIXTURES / "subject-tree"

# file of each patch -> the prefix the kernel's own subjects use there
SUBSYSTEM_PREFIXES = {
    "arch/alpha/kernel/srmcons.c": "alpha",
    "arch/x86/kernel/apm_32.c": "x86",
    "arch/um/drivers/net_kern.c": "um",
    "arch/xtensa/platforms/iss/network.c": "xtensa",
    "drivers/gpu/drm/msm/dsi/dsi_host.c": "drm/msm/dsi",
    "drivers/gpu/drm/msm/msm_gpu.c": "drm/msm",
    "drivers/block/DAC960.c": "block",
    "drivers/input/input.c": "Input",
    "kernel/irq/spurious.c": "genirq",
    "net/dccp/timer.c": "net",
}


def subject_prefixes(out):
    """patch file list -> subject prefix, for every patch of a series."""
    res = {}
    for p in patches(out):
        text = p.read_text()
        m = re.match(r"\[PATCH \d+/\d+\] (.*): Convert timers to use "
                     r"timer_setup\(\)$", header(text, "Subject"))
        assert m, header(text, "Subject")
        res[tuple(files_of(text))] = m.group(1)
    return res


def test_subject_prefixes_without_history_name_the_subsystem(tmp_path):
    """A tree imported in one commit has no subjects to learn from: each
    patch is named the way its subsystem names itself (alpha:, x86:,
    drm/msm/dsi:, Input:, genirq:), never with a file's name alone
    (srmcons:, network:), never with a word twice (dsi: dsi:, input.c
    under Input), and a MAINTAINERS section is never "treewide": THE
    REST's five block drivers and a CD-ROM driver are block's, and
    NETWORKING [GENERAL]'s lib/random32.c goes with net/."""
    tree = make_git_tree(SUBJECT_TREE, tmp_path / "linux",
                         message="Linux 4.14")
    out = tmp_path / "out"
    series(tree, out)
    prefixes = subject_prefixes(out)
    for path, want in SUBSYSTEM_PREFIXES.items():
        got = [pre for files, pre in prefixes.items() if path in files]
        assert got == [want], (path, prefixes)
    block = [files for files in prefixes if "drivers/block/DAC960.c" in files]
    assert "drivers/cdrom/gdrom.c" in block[0] and len(block[0]) == 6
    net = [files for files in prefixes if "net/dccp/timer.c" in files]
    assert "lib/random32.c" in net[0]
    for pre in prefixes.values():
        words = re.split(r"[:/ ,]+", pre.lower())
        assert len(words) == len(set(words)), pre
        assert "treewide" not in pre


def test_subject_prefix_of_one_driver_names_it_after_its_subsystem(
        tree, tmp_path):
    """--split directory without history for those files: one driver's
    patch is "subsystem: driver" (watchdog: acme_wdt), a driver's own
    directory names it (net: acme for acme/acme_main.c)."""
    out = tmp_path / "out"
    series(tree, out, "--split", "directory")
    prefixes = subject_prefixes(out)
    assert prefixes[("drivers/watchdog/acme_wdt.c",)] == "watchdog: acme_wdt"
    assert prefixes[("block/blk-core.c", "include/linux/writeback.h",
                     "mm/page-writeback.c")] == "block"


def test_treewide_only_for_one_patch_across_subsystems(tree, tmp_path):
    out = tmp_path / "out"
    series(tree, out, "--split", "none")
    assert list(subject_prefixes(out).values()) == ["treewide"]
    # THE REST's input and watchdog drivers: the directory they share
    out = tmp_path / "rest"
    series(tree, out)
    rest = [pre for files, pre in subject_prefixes(out).items()
            if "drivers/watchdog/acme_wdt.c" in files]
    assert rest == ["drivers"]


def test_cover_letter_lists_the_units_whose_data_was_kept(tmp_path):
    """series --keep-data: the cover letter names each unit converted
    with its data in a member beside the timer, and where."""
    src = tmp_path / "src"
    drv = src / "drivers" / "net" / "wan"
    drv.mkdir(parents=True)
    shutil.copytree(SAMPLE / "include", src / "include")
    shutil.copy(FIXTURES / "cases" / "keep_data_device_in_private_state" /
                "input.c", drv / "zap_proto.c")
    tree = make_git_tree(src, tmp_path / "linux")
    out = tmp_path / "out"
    series(tree, out, "--keep-data", "--split", "directory")
    cover = (out / "0000-cover-letter.patch").read_text()
    assert ("Converted with their data kept beside the timer (--keep-data):"
            "\n\n  zap_keepalive() in struct zap_proto_state.timer_data\n"
            ) in cover, cover
    (patch,) = patches(out)
    assert "+\tunsigned long timer_data;\n" in patch.read_text()
