# SPDX-License-Identifier: GPL-2.0
"""Whole-program mutation test: broken, odd and hostile C files.

Fixture inputs (fixtures/cases/*/input.c) and, when it is there, the
third-party corpus in ../shared/corpus (read at run time, never copied
into the repository) are mutated the ways real files are broken: a line
or a token deleted, a file cut in the middle of a name, a function
duplicated, a comment or a string left open, `#if 0` without `#endif`, a
NUL byte, invalid UTF-8 and Latin-1 comments, a 100 kB line, CRLF line
endings; and layout that changes nothing: comments between tokens, a
line splice, spaces for tabs.  `check` and `convert --in-place --report` run on each mutant:

- the exit status is 0, 1 (check's findings) or 2 (an error), never a
  crash, and no run outlives its timeout;
- no sanitizer report (conftest fails the test when TIMERCONV_BIN is the
  sanitized build);
- a file convert refuses, or an error run, leaves the file byte-identical;
- when the mutant still builds against the old-API shims and every site
  in it was converted, the result builds against the shims of its level
  (v4.15, or the case's --target).

The mutants are chosen by a seeded generator, so a failure names a
mutant that the same seed makes again: TIMERCONV_MUTANTS (default 36)
sets how many, TIMERCONV_MUTATION_SEED (default 11) which ones.
`make fuzz` runs a long version.
"""

import json
import os
import random
import re
from pathlib import Path

import pytest

from conftest import CASES, ROOT, compile_c, read_report, timerconv

CORPUS = (ROOT / ".." / "shared" / "corpus").resolve()
COUNT = int(os.environ.get("TIMERCONV_MUTANTS", "36"))
SEED = int(os.environ.get("TIMERCONV_MUTATION_SEED", "11"))
# What spatch may take on one file, and a whole run (sanitized, loaded).
SPATCH_TIMEOUT = 120
RUN_TIMEOUT = 300
# A file to append "<mutant>\t<what was checked>" to, to see which
# assertions the mutants reach.
OUTCOME_LOG = os.environ.get("TIMERCONV_MUTATION_LOG")


def fixture_sources():
    out = []
    for d in sorted(CASES.iterdir()):
        if not (d / "input.c").exists():
            continue
        args = (d / "args").read_text().split() if (d / "args").exists() \
            else []
        out.append(("case:" + d.name, d / "input.c", args))
    return out


def corpus_sources():
    if not CORPUS.is_dir():
        return []
    return [("corpus:" + str(p.relative_to(CORPUS)), p, [])
            for p in sorted(CORPUS.rglob("*.c"))]


# --- mutators: (rng, bytes) -> bytes -------------------------------------

TOKEN = re.compile(rb"[A-Za-z_]\w*|\d\w*|->|&&|\|\||<<|>>|[^\s\w]")
IDENT = re.compile(rb"[A-Za-z_]\w+")
FUNCTION = re.compile(rb"^[A-Za-z_][^\n;#]*\)\s*\n\{\n.*?^\}\n",
                      re.M | re.S)


def _lines(data):
    return data.splitlines(keepends=True)


def _insert_line(rng, data, text):
    lines = _lines(data)
    lines.insert(rng.randrange(len(lines) + 1), text)
    return b"".join(lines)


def delete_line(rng, data):
    lines = _lines(data)
    code = [i for i, l in enumerate(lines) if l.strip()]
    del lines[rng.choice(code)]
    return b"".join(lines)


def delete_token(rng, data):
    m = rng.choice(list(TOKEN.finditer(data)))
    return data[:m.start()] + data[m.end():]


def truncate_mid_token(rng, data):
    m = rng.choice(list(IDENT.finditer(data)))
    return data[:m.start() + rng.randrange(1, len(m.group()))]


def duplicate_function(rng, data):
    funcs = list(FUNCTION.finditer(data))
    if not funcs:
        return delete_line(rng, data)
    m = rng.choice(funcs)
    return data[:m.end()] + b"\n" + m.group() + data[m.end():]


def unterminated_comment(rng, data):
    return _insert_line(rng, data, b"/* this comment never ends\n")


def unterminated_string(rng, data):
    m = rng.choice(list(TOKEN.finditer(data)))
    return data[:m.start()] + b'"' + data[m.start():]


def if0_without_endif(rng, data):
    return _insert_line(rng, data, b"#if 0\n")


def nul_byte(rng, data):
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\0" + data[at:]


def invalid_utf8(rng, data):
    return _insert_line(rng, data,
                        b"/* bad UTF-8: \xc3\x28 \xa0\xa1 \xe2\x82 \xff */\n")


def latin1_comment(rng, data):
    return _insert_line(rng, data,
                        b"/* Gr\xfc\xdfe aus M\xfcnchen, \xa9 caf\xe9 */\n")


def long_line(rng, data):
    if rng.random() < 0.5:
        text = b"/* " + b"x" * 100000 + b" */\n"
    else:
        text = b"static const int big[] = {" + b"0, " * 33400 + b"};\n"
    return _insert_line(rng, data, text)


def crlf(rng, data):
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


# Layout only: the result means what the input did.

def comment_between_tokens(rng, data):
    for _ in range(3):
        m = rng.choice(list(TOKEN.finditer(data)))
        data = data[:m.start()] + b"/* c */" + data[m.start():]
    return data


def line_splice(rng, data):
    m = rng.choice(list(TOKEN.finditer(data)))
    return data[:m.start()] + b"\\\n" + data[m.start():]


def spaces_for_tabs(rng, data):
    return data.replace(b"\t", b" " * rng.choice((2, 4, 8)))


MUTATORS = [delete_line, delete_token, truncate_mid_token,
            duplicate_function, unterminated_comment, unterminated_string,
            if0_without_endif, nul_byte, invalid_utf8, latin1_comment,
            long_line, crlf, comment_between_tokens, line_splice,
            spaces_for_tabs]


def mutants(count, seed):
    """(id, source label, path, args, mutator, seed): fixtures and the
    corpus in turn, every mutator in turn."""
    fixtures, corpus = fixture_sources(), corpus_sources()
    out = []
    for i in range(count):
        rng = random.Random("%d:%d" % (seed, i))
        pool = corpus if corpus and i % 2 else fixtures
        label, path, args = rng.choice(pool)
        mut = MUTATORS[(i // 2 if corpus else i) % len(MUTATORS)]
        out.append(("%03d-%s-%s" % (i, mut.__name__,
                                    label.split("/")[-1].split(":")[-1]),
                    label, path, args, mut, "%d:%d:m" % (seed, i)))
    return out


MUTANTS = mutants(COUNT, SEED)


def make(mutant):
    _, label, path, _, mut, seed = mutant
    return mut(random.Random(seed), path.read_bytes())


def test_mutants_are_deterministic_and_cover_every_mutator():
    again = mutants(COUNT, SEED)
    assert [m[0] for m in again] == [m[0] for m in MUTANTS]
    for a, b in list(zip(again, MUTANTS))[:12]:
        assert make(a) == make(b)
    if COUNT >= 2 * len(MUTATORS):
        assert {m[4] for m in MUTANTS} == set(MUTATORS)


def test_mutators_do_what_they_say():
    rng = random.Random(1)
    src = (CASES / "setup_timer_on_stack" / "input.c").read_bytes()
    assert b"\r\n" in crlf(rng, src) and b"\n\n" not in crlf(rng, src)
    assert b"\0" in nul_byte(rng, src)
    assert len(long_line(rng, src)) > len(src) + 100000
    assert b"#if 0\n" in if0_without_endif(rng, src)
    assert b"\t" not in spaces_for_tabs(rng, src)
    assert comment_between_tokens(rng, src).count(b"/* c */") == 3
    assert b"\\\n" in line_splice(rng, src)
    assert src.startswith(truncate_mid_token(rng, src))
    assert len(duplicate_function(rng, src)) > len(src)
    with pytest.raises(UnicodeDecodeError):
        invalid_utf8(rng, src).decode("utf-8")
    with pytest.raises(UnicodeDecodeError):
        latin1_comment(rng, src).decode("utf-8")


def outcome(mutant, what):
    if OUTCOME_LOG:
        with open(OUTCOME_LOG, "a") as f:
            f.write("%s\t%s\n" % (mutant[0], what))


def run(*args):
    proc = timerconv(*args, timeout=RUN_TIMEOUT)
    assert proc.returncode in (0, 1, 2), (
        "%s: exit %d\n%s" % (args[0], proc.returncode, proc.stderr[-3000:]))
    return proc


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_mutant(mutant, tmp_path):
    _, label, path, args, _, _ = mutant
    data = make(mutant)
    tree = tmp_path / "tree"
    rel = "drivers/misc/" + path.name
    src = tree / rel
    src.parent.mkdir(parents=True)
    src.write_bytes(data)

    proc = run("check", "-C", tree, "--format", "json")
    if proc.returncode != 2:
        json.loads(proc.stdout)

    report = tmp_path / "report.json"
    proc = run("convert", "-C", tree, "--in-place", "--report", report,
               "--timeout", SPATCH_TIMEOUT, *args)
    assert proc.returncode != 1, "convert has no exit status 1"
    out = src.read_bytes()
    if proc.returncode == 2:
        assert out == data, "an error run changed the file"
        outcome(mutant, "error, unchanged")
        return
    sites = [s for s in read_report(report)["sites"] if s["file"] == rel]
    converted = [s for s in sites if s["outcome"] == "converted"]
    if not converted:
        assert out == data, "a refused file changed"
        outcome(mutant, "refused, unchanged" if sites else "no sites")
        return
    # What convert wrote is input for the next run.
    run("check", "-C", tree, "--format", "json")
    if not label.startswith("case:") or len(converted) < len(sites):
        outcome(mutant, "converted %d of %d sites" % (len(converted),
                                                       len(sites)))
        return
    before = tmp_path / "before.c"
    before.write_bytes(data)
    if compile_c(before, "old").returncode != 0:
        outcome(mutant, "converted, input does not build")
        return
    # the level the case converts to (its --target), v4.15 by default
    level = args[args.index("--target") + 1] if "--target" in args \
        else "v4.15"
    built = compile_c(src, level)
    assert built.returncode == 0, "output does not build:\n%s\n%s" % (
        built.stderr, proc.stderr)
    outcome(mutant, "converted, output builds")
