# SPDX-License-Identifier: GPL-2.0
"""The semantic patches themselves: kernel scripts/coccinelle conventions,
and report mode, which works without timerconv."""

import re
import subprocess

import pytest

from conftest import CASES, ROOT

COCCI = ROOT / "cocci"
FILES = sorted(p.name for p in COCCI.glob("*.cocci"))


@pytest.mark.parametrize("name", FILES)
def test_rule_file_follows_kernel_conventions(name):
    text = (COCCI / name).read_text()
    assert text.startswith("// SPDX-License-Identifier: GPL-2.0\n///")
    for tag in ("// Confidence:", "// Options:"):
        assert tag in text, tag
    for mode in ("virtual patch", "virtual report"):
        assert re.search("^%s$" % mode, text, re.M), mode


@pytest.mark.parametrize("name", ["setup_timer.cocci", "init_timer.cocci",
                                  "timer_fields.cocci"])
def test_member_chain_rules_disable_ptr_to_array(name):
    """ptr_to_array would turn &isar->ch[1].ftimer into &isar->ch->ftimer."""
    text = (COCCI / name).read_text()
    heads = re.findall(r"^@(\w+) depends on (?:facts|patch)[^@]*@$", text,
                       re.M)
    assert heads
    for head in re.findall(r"^@\w+ depends on (?:facts|patch)[^@]*@$", text,
                           re.M):
        assert "disable ptr_to_array" in head, head


def report(rule, case):
    proc = subprocess.run(["spatch", "--very-quiet", "--no-includes", "-D",
                           "report", "--sp-file", str(COCCI / rule),
                           str(CASES / case / "input.c")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for line in lines:
        assert re.match(r"^\S+\.c:\d+: \S.*$", line), line
    return lines


def test_report_says_what_it_would_convert():
    lines = report("setup_timer.cocci", "setup_timer_container_pointer")
    assert lines == ["%s:27: setup_timer(): can become timer_setup(); "
                     "foo_watchdog() then recovers its container with "
                     "from_timer()" % (CASES / "setup_timer_container_pointer"
                                       / "input.c")]
    lines = report("timer_callback.cocci", "setup_timer_container_pointer")
    assert len(lines) == 1 and "foo_watchdog() takes unsigned long" in lines[0]


@pytest.mark.parametrize("case,rule,reason", [
    ("setup_timer_variable_index", "setup_timer.cocci",
     "callback cannot recover its container (variable array index)"),
    ("refuse_data_not_container", "setup_timer.cocci",
     "data is not the timer's container"),
    ("refuse_setup_in_helper", "setup_timer.cocci",
     "setup inside a helper that receives fn as a parameter"),
    ("init_timer_conditional_assignments", "init_timer.cocci",
     "no .function assignment on every path after it"),
    ("define_timer_nonzero_expires", "define_timer.cocci",
     "expires is"),
])
def test_report_says_what_it_refuses(case, rule, reason):
    lines = report(rule, case)
    assert any("refused" in l and reason in l for l in lines), lines


def test_report_of_the_other_rules():
    assert any("can become timer_setup() with" in l for l in
               report("init_timer.cocci", "init_timer_function_then_data"))
    assert any("DEFINE_TIMER(name, zap_wdt_timer_ping)" in l for l in
               report("define_timer.cocci", "define_timer"))
    assert any("timer_delete_sync()" in l for l in
               report("timer_api_rename.cocci", "define_timer"))
