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

/* Normalise a relative path: "./a/b/../c.h" -> "a/c.h"; "" for "." (a
 * ".." that nothing cancels stays). */
char *path_normalize(const char *path);

/*
 * Which files a directory walk collects.  The tree's own walk (tree_list()
 * outside git) leaves out names starting with '.', as git does, and
 * links: the files it lists may be rewritten, and writing through a link
 * would change a file elsewhere.  The walk of the -I and --kernel-headers
 * directories (cfile.c) only reads: it takes a link to a header, as the
 * compiler would, and stops 16 directories down.
 */
struct walk_rules {
	bool (*want)(const char *name);	/* by the file's name */
	bool file_links;		/* a link to a regular file counts */
	bool skip_dot;			/* leave out names starting with '.' */
	int max_depth;			/* directories below root/rel; 0: any */
	/* a link the rules want by name but do not take, if not NULL */
	void (*link_left)(const char *rel, void *data);
	void *data;
};

/*
 * Append the regular files below root/rel (rel "" for root itself) that
 * the rules want to out, as paths relative to root, depth first in the
 * order the directories list them.  Links to directories are not followed.
 * A link the rules want by name and do not take goes to link_left.
 */
void dir_walk(const char *root, const char *rel, const struct walk_rules *w,
	      GPtrArray *out);

#endif
