/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --out directory of timerconv series: a series written over an
 * earlier one replaces it (the earlier patches the new series does not
 * overwrite are removed, so no stale 0003 is mailed with a new 0001),
 * and a directory holding files timerconv did not write is refused
 * before anything runs.
 */
#ifndef TIMERCONV_SERIES_OUT_H
#define TIMERCONV_SERIES_OUT_H

#include <glib.h>
#include <stdbool.h>

/*
 * Look at DIR before the run: the names of the patches an earlier
 * timerconv series left there go to *ours (sorted; empty when DIR does
 * not exist).  Anything else there (another file, a directory) is an
 * error naming it, unless force.
 */
bool series_out_check(const char *dir, bool force, GPtrArray **ours,
		      GError **error);

/* Is this file text a patch or cover letter timerconv series wrote? */
bool series_out_ours(const char *name, const char *text);

/*
 * After the new series is in DIR: remove the earlier patches (ours) that
 * it did not overwrite (written: the new names), saying so on stderr.
 */
void series_out_prune(const char *dir, GPtrArray *ours, GPtrArray *written);

#endif
