/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Line diffs (Myers) and unified-diff output with git's conventions:
 * a/ and b/ paths, three lines of context, the enclosing function in the
 * hunk header.
 */
#ifndef TIMERCONV_DIFF_H
#define TIMERCONV_DIFF_H

#include <glib.h>
#include <stdbool.h>

struct line {
	const char *p;
	size_t len;		/* without the newline */
};

struct lines {
	GArray *v;		/* struct line */
	bool no_newline;	/* the last line has no newline */
};

void lines_split(struct lines *l, const char *text, size_t len);
void lines_clear(struct lines *l);

enum dop_kind {
	DOP_EQUAL,
	DOP_DELETE,
	DOP_INSERT,
};

struct dop {
	enum dop_kind kind;
	size_t a;		/* line in the old text (EQUAL, DELETE) */
	size_t b;		/* line in the new text (EQUAL, INSERT) */
};

/* The edit script from a to b, in order. */
GArray *diff_lines(const struct lines *a, const struct lines *b);

/* Append a unified diff of path from old to new to out. */
void diff_unified(GString *out, const char *path, const char *old,
		  size_t old_len, const char *new_text, size_t new_len);

/* The same for a file the change creates (--- /dev/null). */
void diff_unified_new(GString *out, const char *path, bool created,
		      const char *old, size_t old_len, const char *new_text,
		      size_t new_len);

/* Lines added and removed. */
void diff_count(const char *old, size_t old_len, const char *new_text,
		size_t new_len, guint *added, guint *removed);

#endif
