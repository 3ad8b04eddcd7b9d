// SPDX-License-Identifier: GPL-2.0
/*
 * The progress line: one line on stderr, redrawn in place, while spatch
 * works through the files of a phase.  Only on a terminal, and never
 * with --quiet: a pipe or a log file gets nothing of it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"

#define REDRAW_US (G_USEC_PER_SEC / 10)

static bool enabled;
static bool shown;
static gint64 started;
static gint64 last_draw;
static char *last_phase;
static gint64 phase_started;

void progress_init(bool quiet)
{
	const char *term = g_getenv("TERM");

	enabled = !quiet && isatty(STDERR_FILENO) &&
		  !(term && !strcmp(term, "dumb"));
	started = g_get_monotonic_time();
}

static void clock_text(char *buf, size_t n, gint64 us)
{
	long s = (long)(us / G_USEC_PER_SEC);

	snprintf(buf, n, "%ld:%02ld", s / 60, s % 60);
}

void progress_update(const char *phase, guint done, guint total)
{
	gint64 now = g_get_monotonic_time();
	char elapsed[32], left[64] = "";

	if (!enabled || (now - last_draw < REDRAW_US && done < total))
		return;
	if (g_strcmp0(phase, last_phase)) {
		g_free(last_phase);
		last_phase = g_strdup(phase);
		phase_started = now;
	}
	last_draw = now;
	clock_text(elapsed, sizeof(elapsed), now - started);
	/* the estimate: this phase's pace so far, once there is one */
	if (done > 0 && done < total) {
		char est[32];

		clock_text(est, sizeof(est), (now - phase_started) /
			   (gint64)done * (gint64)(total - done));
		snprintf(left, sizeof(left), ", about %s left", est);
	}
	fprintf(stderr, "\r\033[Ktimerconv: %s: %u/%u files, %s elapsed%s",
		phase, done, total, elapsed, left);
	fflush(stderr);
	shown = true;
}

void progress_end(void)
{
	if (shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	shown = false;
	g_clear_pointer(&last_phase, g_free);
}

void progress_cb(void *ctx, const char *phase, guint done, guint total)
{
	progress_update(phase, done, total);
}
