/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert --in-place writes its files through a journal, so that a run
 * killed between two renames (SIGKILL, the OOM killer, a CI timeout, a
 * power cut) leaves a tree the next run finishes or puts back, never one
 * with half a unit converted.  See journal.c for the steps.
 */
#ifndef TIMERCONV_JOURNAL_H
#define TIMERCONV_JOURNAL_H

#include <glib.h>
#include <stdbool.h>

#include "tree.h"

struct jfile {
	const char *path;		/* root-relative */
	const char *old_text;		/* as read; NULL: a new file */
	size_t old_len;
	const char *new_text;
	size_t new_len;
};

/* Where the journal of tree t lives: in its git directory, or in the
 * tree's top directory when it is not a git work tree. */
char *journal_path(const struct tree *t);

/*
 * Replace the files with their new texts, all of them or none.  A file
 * whose text on disk is no longer old_text (edited while the run
 * worked) stops it before any rename: nothing is written, false is
 * returned with *stale holding those jfiles (error stays unset), for the
 * caller to drop them, and what depends on them, and try again.  Any
 * other failure sets error; nothing is written then either.
 */
bool journal_write(const char *jpath, const char *root, GPtrArray *files,
		   GPtrArray **stale, GError **error);

/*
 * Finish or undo what a killed run left (a no-op without a journal):
 * finished when every file is either written or has its new text ready
 * beside it, else put back as it was, but for files edited since, which
 * are left as they are.  *msg (NULL when there was no journal) says
 * which, and names the files.  false with error when the journal cannot
 * be read or another timerconv is writing the tree.
 */
bool journal_recover(const char *jpath, char **msg, GError **error);

/* For commands that only read the tree: warn that a killed convert left
 * it half written. */
void journal_warn(const struct tree *t);

#endif
