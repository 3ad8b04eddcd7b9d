# SPDX-License-Identifier: GPL-2.0
"""Every line the conversion writes passes checkpatch.pl --strict's
spacing rules (issue 29, row 7).

spatch reprints the tokens it rewrites and keeps the author's blanks
around the rest, so an old driver's spacing came out on the lines the
patch adds: `mac_nosound(NULL )`, `amb_dev * dev = from_timer(...)`,
`link=from_timer(...)`, spaces for indentation, a blank before a
function's '(' and its '{' on the definition's line.  The cases
fixtures/cases/spacing_* are modelled on the drivers that do so; their
conversion, and the whole idiom catalogue's, is checked here with the
kernel's own checkpatch.pl, from the linux-source package (the test is
skipped only when no linux-source tarball is installed).
"""

import difflib
import glob
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import CASES, timerconv

# checkpatch's types for blanks, indentation and brace placement
SPACING = {"SPACING", "CODE_INDENT", "LEADING_SPACE", "POINTER_LOCATION",
           "SPACE_BEFORE_TAB", "TRAILING_WHITESPACE", "OPEN_BRACE",
           "PARENTHESIS_ALIGNMENT", "SUSPECT_CODE_INDENT", "TABSTOP",
           "WHITESPACE_AFTER_LINE_CONTINUATION"}
CHECKPATCH_FILES = ("checkpatch.pl", "spelling.txt", "const_structs.checkpatch")

SPACING_CASES = sorted(p.name for p in CASES.glob("spacing_*"))

# The one line checkpatch may warn about, and why: a tab would put it under
# the body of the braceless if before it (gcc -Wmisleading-indentation).
MISLEADING = {
    "spacing_four_space_after_braceless_if":
        ("LEADING_SPACE", "    timer_setup(&ft->tl, FsmExpireTimer, 0);"),
}


# checkpatch does not know that TIMER_DATA_TYPE, a macro of v4.14's
# timer.h, names a type: it reads the cast "(TIMER_DATA_TYPE)&t", written
# as timer.h writes its own, as a binary '&' wanting blanks (a CHECK).
NOT_A_BINARY_AND = re.compile(r"\(TIMER_DATA_TYPE\)&\w")


def linux_source_tarball():
    tars = sorted(glob.glob("/usr/src/linux-source-*.tar.*"))
    return Path(tars[-1]) if tars else None


@pytest.fixture(scope="session")
def checkpatch(request, tmp_path_factory):
    """scripts/checkpatch.pl with the files it reads, out of the newest
    linux-source tarball; kept in pytest's cache between sessions (a
    tarball is some 150 MB of xz: half a minute to read)."""
    tar = linux_source_tarball()
    if tar is None or not shutil.which("perl"):
        pytest.skip("no /usr/src/linux-source-*.tar.* (apt-get install "
                    "linux-source) or no perl")
    stamp = "%s %d %d" % (tar, tar.stat().st_size, int(tar.stat().st_mtime))
    # no cache when pytest runs without its cacheprovider (-p
    # no:cacheprovider) or cannot write beside the tests
    try:
        cache = request.config.cache.mkdir("linux-checkpatch")
    except (AttributeError, OSError):
        cache = tmp_path_factory.mktemp("checkpatch")
    script = cache / "checkpatch.pl"
    if (cache / "stamp").exists() and \
            (cache / "stamp").read_text() == stamp and script.exists():
        return script
    top = tar.name.split(".tar")[0]         # linux-source-6.12
    subprocess.run(["tar", "-xf", str(tar), "-C", str(cache),
                    "--strip-components=2",
                    *("%s/scripts/%s" % (top, n) for n in CHECKPATCH_FILES)],
                   check=True)
    (cache / "stamp").write_text(stamp)
    return script


def findings(checkpatch, patch):
    """checkpatch's spacing findings on a patch: (type, added line)."""
    # run beside the script: --strict leaves a CamelCase cache in its
    # working directory
    proc = subprocess.run(
        ["perl", str(checkpatch), "--no-tree", "--strict", "--no-signoff",
         "--terse", "--show-types", "--no-summary", "-"],
        input=patch, capture_output=True, text=True, cwd=checkpatch.parent)
    lines = patch.split("\n")
    res = []
    for m in re.finditer(r"^-:(\d+): (?:ERROR|WARNING|CHECK):(\w+):",
                         proc.stdout, re.M):
        if m.group(2) in SPACING:
            res.append((m.group(2), lines[int(m.group(1)) - 1][1:]))
    return res


def unified(path, old, new):
    return "".join(difflib.unified_diff(
        old.splitlines(True), new.splitlines(True),
        "a/" + path, "b/" + path))


def convert(tmp_path, name):
    tree = tmp_path / "tree"
    src = tree / "drivers" / "misc" / (name + ".c")
    src.parent.mkdir(parents=True)
    src.write_text((CASES / name / "input.c").read_text())
    return timerconv("convert", "-C", tree, check=0).stdout


@pytest.mark.parametrize("name", SPACING_CASES)
def test_written_lines_pass_checkpatch_spacing(name, checkpatch, tmp_path):
    """The diff the tool prints for each spacing case: no blank, indent
    or brace finding on any line it adds."""
    diff = convert(tmp_path, name)
    assert diff.count("\n+") > 2, diff
    want = [MISLEADING[name]] if name in MISLEADING else []
    assert findings(checkpatch, diff) == want, diff


def test_idiom_catalogue_passes_checkpatch_spacing(checkpatch):
    """Every case's conversion (expected.c, which test_cases checks the
    tool writes), as one patch: nothing for checkpatch's spacing rules
    but the one misleading-indentation line."""
    patch = "".join(
        unified("drivers/misc/%s.c" % name,
                (CASES / name / "input.c").read_text(),
                (CASES / name / "expected.c").read_text())
        for name in sorted(p.name for p in CASES.iterdir()
                           if (p / "input.c").exists()))
    assert patch.count("\n+") > 100
    got = [(kind, line) for kind, line in findings(checkpatch, patch)
           if not (kind == "SPACING" and NOT_A_BINARY_AND.search(line))]
    assert got == list(MISLEADING.values())


def test_checkpatch_finds_what_the_old_output_had(checkpatch):
    """The rules are checkpatch's own: on the lines spatch used to write
    (as the issue's 4.14 run saw them) it reports each kind."""
    old = ("static void mac_nosound(struct timer_list *unused);\n"
           "void f(void)\n{\n}\n")
    new = ("static void mac_nosound(struct timer_list *unused);\n"
           "void f(void)\n{\n"
           "\tmac_nosound(NULL );\n"
           "\tamb_dev * dev = from_timer(dev, t, housekeeping);\n"
           "\tlink=from_timer(link, t, link_state);\n"
           "        timer_setup(&ft->tl, FsmExpireTimer, 0);\n"
           "}\n")
    got = {kind for kind, _ in findings(checkpatch,
                                        unified("drivers/misc/x.c", old,
                                                new))}
    assert {"SPACING", "POINTER_LOCATION", "CODE_INDENT"} <= got
