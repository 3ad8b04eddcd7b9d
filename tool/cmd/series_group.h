/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Grouping converted units into patches: by MAINTAINERS section, by
 * directory, or all in one; never splitting a unit, and never letting
 * two patches change the same file, so every prefix of the series builds.
 */
#ifndef TIMERCONV_SERIES_GROUP_H
#define TIMERCONV_SERIES_GROUP_H

#include <glib.h>
#include <stdbool.h>

#include "maintainers.h"
#include "pipeline.h"

enum split_mode {
	SPLIT_MAINTAINERS,
	SPLIT_DIRECTORY,
	SPLIT_NONE,
};

struct patch {
	char *key;			/* section title or directory */
	char *anchor;			/* the setup file that placed it */
	GPtrArray *units;		/* struct unit * */
	GPtrArray *files;		/* struct cfile *, sorted by path */
	GPtrArray *to;			/* recipients (char *) */
	GPtrArray *cc;
	char *prefix;			/* subject prefix */
	GPtrArray *callbacks;		/* names, for the message */
	bool whole_tree;		/* --split none: not one subsystem's */
};

GPtrArray *series_group(struct run *r, enum split_mode mode,
			const struct maintainers *m);
void patch_free(struct patch *p);

/* series_prefix.c: the subject prefix git history uses for these files,
 * or the one the path's subsystem names itself with. */
char *series_prefix(const char *git_dir, const char *base,
		    struct patch *p);

/* Without history: the subsystem's own prefix for the patch's files. */
char *series_path_prefix(struct patch *p);

/* Make every patch's prefix its own: where two share one, each gets its
 * driver names after it. */
void series_unique_prefixes(GPtrArray *patches);

#endif
