/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The candidate scan over a whole file list, in parallel, with each
 * file's quoted headers consulted for its timer names.
 */
#ifndef TIMERCONV_TREESCAN_H
#define TIMERCONV_TREESCAN_H

#include <glib.h>

#include "scan.h"
#include "tree.h"

struct treescan {
	const struct tree *tree;
	GPtrArray *files;		/* root-relative paths (borrowed) */
	struct scan_result **results;	/* NULL where the prefilter failed */
	char **errors;			/* read errors, by file */
	GHashTable *index;		/* path -> index + 1 */
	guint nerrors;
	size_t bytes;
};

struct treescan *treescan_run(const struct tree *tree, GPtrArray *files,
			      const struct scan_opts *opts, int jobs);
void treescan_free(struct treescan *ts);

/* The callbacks the scanned files hand to timers that are not static in
 * the file that hands them: other files' functions of that name may be
 * them.  The names belong to ts. */
GHashTable *treescan_handed(const struct treescan *ts);

#endif
