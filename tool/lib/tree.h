/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_TREE_H
#define TIMERCONV_TREE_H

#include <glib.h>
#include <stdbool.h>

/* A source tree: a kernel tree, a module, or any directory of C. */
struct tree {
	char *root;		/* as given, without trailing slash */
	bool is_git;		/* root is inside a git work tree */
	char *git_refused;	/* git's message when it will not work in
				 * the repository (safe.directory), or NULL */
	GHashTable *blobs;	/* root-relative path -> GBytes that
				 * tree_read() gives instead of the file
				 * (check --cached: the index's), or NULL */
};

bool tree_open(struct tree *t, const char *root, GError **error);
void tree_close(struct tree *t);

/*
 * The .c and .h files below each of paths (relative to the root; NULL or
 * empty means the whole tree), as sorted root-relative paths.  In a git
 * work tree, git's ignore rules apply.  A path that does not exist is an
 * error.
 */
GPtrArray *tree_list(struct tree *t, const char *const *paths,
		     GError **error);

char *tree_abspath(const struct tree *t, const char *rel);

/* Is rel (root-relative, normalised) a .c or .h file of the tree? */
bool tree_has(const struct tree *t, const char *rel);

/* Read a root-relative file; NULL with error on failure. */
char *tree_read(const struct tree *t, const char *rel, size_t *len,
		GError **error);

bool is_c_source(const char *path);

#endif
