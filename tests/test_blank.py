# SPDX-License-Identifier: GPL-2.0
"""spatch reads only what can matter.

spatch reads a copy of each file (in the facts+patch pass and in patch
passes) in which the body of every function that names neither the old
nor the new API, nor a .data or .function member, nor a callback (and
holds no directive) is blanked: spaces, with the newlines kept, so that
every position stays.  Its result is merged back into the real file; one
that touched a blanked line is not used, and the file is rewritten again
from the real text.
"""

from conftest import CASES, spatch_wrapper, timerconv

CASE = CASES / "unrelated_functions_around"

# A spatch that drops the lines of spaces from each result it writes
# (only blanking makes such lines: beside the input with --out-place, the
# input itself with --in-place), and logs the -D options of each run with
# its files.
MANGLER = """#!%(python)s
import os, subprocess, sys
args = sys.argv[1:]
rc = subprocess.call([%(real)r] + args)
if "--file-groups" in args:
    files = open(args[args.index("--file-groups") + 1]).read().split()
    modes = [args[i + 1] for i, a in enumerate(args) if a == "-D"]
    with open(%(log)r, "a") as log:
        log.write("%%s %%s\\n" %% ("+".join(modes),
                                 " ".join(os.path.basename(f) for f in files)))
    for f in files:
        res = (f + ".cocci_res" if "--out-place" in args else
               f if "--in-place" in args else None)
        if res and os.path.exists(res):
            lines = open(res).read().split("\\n")
            open(res, "w").write("\\n".join(
                l for l in lines if not (l and not l.strip(" "))))
sys.exit(rc)
"""


def bar_tree(tmp_path):
    tree = tmp_path / "tree"
    src = tree / "drivers" / "misc" / "bar.c"
    src.parent.mkdir(parents=True)
    src.write_text((CASE / "input.c").read_text())
    return tree, src


def spatch_copy(tmp_path, *args, env=None):
    """Convert bar.c; the copy spatch read in the facts+patch pass."""
    tree, src = bar_tree(tmp_path)
    keep = tmp_path / "keep"
    keep.mkdir()
    timerconv("convert", "-C", tree, "--in-place", *args, check=0,
              env=dict(env or {}, TIMERCONV_KEEP_TMP="1", TMPDIR=str(keep)))
    assert src.read_text() == (CASE / "expected.c").read_text()
    copies = list(keep.glob("timerconv-run-*/spec/drivers/misc/bar.c"))
    assert len(copies) == 1
    return copies[0].read_text()


def test_bodies_that_cannot_matter_are_blanked_in_spatchs_copy(tmp_path):
    orig = (CASE / "input.c").read_text()
    copy = spatch_copy(tmp_path)
    # the same bytes, or spaces; every newline where it was
    assert len(copy) == len(orig)
    assert all(b == a or (b == " " and a != "\n")
               for a, b in zip(orig, copy))
    # blanked: a one-line body and a loop, the declarators kept
    assert "static inline u32 bar_read(struct bar_priv *priv, " \
        "unsigned int reg)" in copy
    assert "return priv->regs[reg];" not in copy
    assert "static int bar_reset(struct bar_priv *priv)" in copy
    assert "while (tries--)" not in copy
    assert "the reset bit clears itself" not in copy
    # kept whole: a .data member (no timer's), a directive, the timer code,
    # and a callback whose body names nothing that matters (its name is
    # in its declarator)
    assert "struct bar_priv *priv = (struct bar_priv *)arg;" in copy
    assert "sum += buf->data[i];" in copy
    assert "#ifdef CONFIG_BAR_STATS" in copy
    assert "return bar_read(priv, 4);" in copy
    assert "struct bar_priv *priv = (struct bar_priv *)data;" in copy
    assert "setup_timer(&priv->poll_timer, bar_poll, (unsigned long)priv);" \
        in copy


def test_no_blanking_with_a_macro_file_or_when_told(tmp_path):
    """A macro of --macro-file may expand to the API in any body."""
    macros = tmp_path / "macros.h"
    macros.write_text("#define BAR_UNUSED(x) x\n")
    orig = (CASE / "input.c").read_text()
    (tmp_path / "a").mkdir()
    assert spatch_copy(tmp_path / "a", "--macro-file", macros) == orig
    (tmp_path / "b").mkdir()
    assert spatch_copy(tmp_path / "b",
                       env={"TIMERCONV_NO_BLANK": "1"}) == orig


def mangled_runs(tmp_path, env=None):
    """Convert bar.c behind MANGLER: the modes of the runs that read it."""
    tree, src = bar_tree(tmp_path)
    log = tmp_path / "spatch.log"
    log.write_text("")
    path = spatch_wrapper(tmp_path, MANGLER, log=str(log))
    timerconv("convert", "-C", tree, "--in-place", check=0,
              env=dict(env or {}, PATH=path))
    assert src.read_text() == (CASE / "expected.c").read_text()
    runs = [line.split(" ", 1) for line in log.read_text().splitlines()]
    return [modes for modes, files in runs if "bar.c" in files]


def test_a_result_that_touched_a_blanked_line_is_not_used(tmp_path):
    """The facts+patch pass's result is dropped; the patch pass, blanked
    too, is mangled too and redone from the real text."""
    assert mangled_runs(tmp_path) == ["facts+patch", "patch", "patch"]


def test_a_patch_pass_result_that_touched_a_blanked_line_is_redone(
        tmp_path):
    assert mangled_runs(tmp_path, {"TIMERCONV_NO_SPECULATE": "1"}) == \
        ["facts", "patch", "patch"]
