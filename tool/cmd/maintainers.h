/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MAINTAINERS file: sections with their people, lists and file
 * patterns, matched the way scripts/get_maintainer.pl matches them.
 */
#ifndef TIMERCONV_MAINTAINERS_H
#define TIMERCONV_MAINTAINERS_H

#include <glib.h>
#include <stdbool.h>

struct msection {
	char *title;
	guint index;		/* order in the file */
	GPtrArray *maintainers;	/* M: */
	GPtrArray *reviewers;	/* R: */
	GPtrArray *lists;	/* L: */
	GPtrArray *files;	/* F: */
	GPtrArray *excludes;	/* X: */
	GPtrArray *regexes;	/* N: (GRegex *) */
	GPtrArray *keywords;	/* K: (GRegex *) */
};

struct maintainers {
	GPtrArray *sections;	/* struct msection * */
	char *root;		/* tree root, to tell directories from files */
};

struct maintainers *maintainers_load(const char *root, GError **error);
/* The same from the file's text; root is where its paths are. */
struct maintainers *maintainers_parse(const char *root, const char *text);
void maintainers_free(struct maintainers *m);

/*
 * The section that covers `path` best: the most specific F: or N: match
 * (deepest pattern) among sections that do not exclude it with X:, or a
 * K: match on `text`.  NULL if none.
 */
const struct msection *maintainers_for(const struct maintainers *m,
				       const char *path, const char *text);

#endif
