/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A progress line on stderr (phase, files done of total, elapsed time,
 * an estimate), redrawn in place on a terminal, absent elsewhere.
 */
#ifndef TIMERCONV_PROGRESS_H
#define TIMERCONV_PROGRESS_H

#include <glib.h>
#include <stdbool.h>

/* Show progress from now on if stderr is a terminal and not quiet. */
void progress_init(bool quiet);
void progress_update(const char *phase, guint done, guint total);
/* Clear the line, so that what follows (the summary) stands alone. */
void progress_end(void);
/* For spatch_env.progress. */
void progress_cb(void *ctx, const char *phase, guint done, guint total);

#endif
