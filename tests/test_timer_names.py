# SPDX-License-Identifier: GPL-2.0
"""Which timer a name stands for.  A timer named by a variable of its own
function (a local, or a parameter pointing at one) is not another
function's timer of the same name, so a refusal of one does not take the
other with it.  A name the file also declares outside its functions stays
one timer wherever it is used."""

from conftest import compile_c, read_report, timerconv

# kernel/time/timer.c's shape: debugobjects' fixup gives a stub callback
# to whatever timer it is handed; schedule_timeout() arms an on-stack
# timer whose data is the task to wake.  Both call it `timer`.
TWO_LOCALS = """\
#include <linux/kernel.h>
#include <linux/timer.h>

struct task;
struct task *get_current(void);
void wake_task(struct task *p);
void sleep_now(void);

void report_misuse(void);

static void stub_timer(unsigned long data)
{
	report_misuse();
}

int fixup_init(void *addr)
{
	struct timer_list *timer = addr;

	setup_timer(timer, stub_timer, 0);
	return 1;
}

static void wake_timeout(unsigned long data)
{
	wake_task((struct task *)data);
}

void sleep_for(unsigned long ticks)
{
	struct timer_list timer;

	setup_timer(&timer, wake_timeout, (unsigned long)get_current());
	mod_timer(&timer, jiffies + ticks);
	sleep_now();
	del_timer_sync(&timer);
}
"""

# The same name as a file-scope timer and as another function's
# parameter: the parameter may point at the file's timer, so the two stay
# one, and the .data write through the parameter keeps the unit refused
# (alone, the file's timer would convert: its data is one constant).
SHADOWED = """\
#include <linux/kernel.h>
#include <linux/timer.h>

struct panel {
	int level;
	struct timer_list timer;
};

#define PANEL_FULL	7

static struct timer_list timer;

void panel_set(unsigned long level);

static void panel_tick(unsigned long data)
{
	panel_set(data);
}

void panel_retarget(struct timer_list *timer, unsigned long level)
{
	timer->data = level;
}

void panel_start(void)
{
	setup_timer(&timer, panel_tick, PANEL_FULL);
	mod_timer(&timer, jiffies + HZ);
}
"""


def convert(tmp_path, text):
    tree = tmp_path / "tree"
    src = tree / "kernel" / "case.c"
    src.parent.mkdir(parents=True)
    src.write_text(text)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--report", report,
              check=0)
    return src, read_report(report)["sites"]


def by_callback(sites):
    out = {}
    for s in sites:
        name = s.get("callback")
        if name:
            out.setdefault(name, set()).add(s["outcome"])
    return out


def test_a_local_timer_is_not_another_functions_of_the_same_name(tmp_path):
    src, sites = convert(tmp_path, TWO_LOCALS)
    outcomes = by_callback(sites)
    assert outcomes["stub_timer"] == {"converted"}, sites
    assert outcomes["wake_timeout"] == {"refused"}, sites
    text = src.read_text()
    assert "static void stub_timer(struct timer_list *unused)" in text
    assert "timer_setup(timer, stub_timer, 0);" in text
    assert "setup_timer(&timer, wake_timeout," in text
    assert compile_c(src, "v4.14").returncode == 0


def test_a_file_scope_timer_name_stays_one_timer(tmp_path):
    src, sites = convert(tmp_path, SHADOWED)
    assert sites and all(s["outcome"] == "refused" for s in sites), sites
    assert src.read_text() == SHADOWED


def test_the_file_scope_timer_alone_converts(tmp_path):
    """The control case: without the write through the parameter, the
    same file converts, so the refusal above is the write's."""
    alone = SHADOWED.replace(
        "void panel_retarget(struct timer_list *timer, unsigned long level)"
        "\n{\n\ttimer->data = level;\n}\n\n", "")
    assert alone != SHADOWED
    src, sites = convert(tmp_path, alone)
    assert sites and all(s["outcome"] == "converted" for s in sites), sites
    assert "unsigned long data = PANEL_FULL;" in src.read_text()


# A function's own timer with the name of the file's: C gives the function
# its own, so its init_timer_on_stack() is not the file's timer's, and
# --keep-data's static goes beside the file's declaration only.
SHADOWING_LOCAL = """\
#include <linux/kernel.h>
#include <linux/timer.h>

static struct timer_list blink;

static void blink_fn(unsigned long rate)
{
	mod_timer(&blink, jiffies + rate);
}

void blink_selftest(void)
{
	struct timer_list blink;

	init_timer_on_stack(&blink);
	destroy_timer_on_stack(&blink);
}

void blink_start(void)
{
	setup_timer(&blink, blink_fn, HZ);
	mod_timer(&blink, jiffies + 1);
}

void blink_faster(void)
{
	blink.data = HZ / 4;
}
"""


def test_a_local_timer_with_the_files_name_is_the_functions_own(tmp_path):
    tree = tmp_path / "tree"
    src = tree / "kernel" / "case.c"
    src.parent.mkdir(parents=True)
    src.write_text(SHADOWING_LOCAL)
    report = tmp_path / "report.json"
    timerconv("convert", "-C", tree, "--in-place", "--keep-data",
              "--report", report, check=0)
    text = src.read_text()
    assert text.count("static unsigned long blink_data;") == 1
    assert "static struct timer_list blink;\n" \
           "static unsigned long blink_data;\n" in text
    assert "\tstruct timer_list blink;\n\n\tinit_timer_on_stack(&blink);" \
        in text
    assert "timer_setup(&blink, blink_fn, 0);\n\tblink_data = HZ;" in text
    sites = read_report(report)["sites"]
    lone = [s for s in sites if s["line"] == 15]
    assert lone and lone[0]["outcome"] == "refused", sites
    assert compile_c(src, "v4.14").returncode == 0
