/* SPDX-License-Identifier: GPL-2.0 */
/* Inside kbuild.c, kbuild_run.c and kbuild_query.c. */
#ifndef TIMERCONV_KBUILD_INT_H
#define TIMERCONV_KBUILD_INT_H

#include <glib.h>
#include <stdbool.h>

#include "kbuild.h"

struct kbuild {
	char *src;		/* realpath of the sources */
	char *key;		/* realpath of the tree kept for */
	char *config;		/* spec, as given, or "the tree's .config" */
	char *config_file;	/* the file a .config is copied from */
	char *build;		/* O= */
	char *view;		/* kbuild's srctree: build/.timerconv-src */
	char *view_real;
	char *kdir;		/* out-of-tree: -C KDIR */
	char *copy;		/* out-of-tree: our copy of the tree */
	GHashTable *dirty;	/* out-of-tree: paths of the copy changed */
	GPtrArray *base;
	GPtrArray *hide;	/* char *, NULL-terminated */
	char *tmp;
	char *describe;
	char **make_args;	/* --make-arg VAR=VALUE, for every make */
	int jobs;
	int lock_fd;
	struct kbuild_stats stats;
};

double kb_now(void);

/*
 * Run make with argv (and the environment variables in env, "NAME=VALUE",
 * NULL-terminated, if given), stdout and stderr together in *out.  make
 * runs in a process group of its own, ended with everything it started
 * when timerconv is interrupted.
 */
bool kb_run_make(const char *const *argv, const char *const *env,
		 char **out, int *status, GError **error);
/* The last lines of make's output, for an error message. */
char *kb_tail(const char *out, int lines);
/* Its first compiler error line, or NULL. */
char *kb_first_error(const char *out);
/* The likely cause of a failed make (a missing host tool or header and
 * its Debian package, objtool and a newer compiler...), or NULL. */
char *kb_hint(struct kbuild *kb, const char *out);
/* make's output with the view's and the copy's paths taken out. */
char *kb_unprefix(struct kbuild *kb, const char *out);
/* "make: *** [Makefile:12: a/b.o] Error 1" -> "a/b.o" */
char *kb_failed_target(const char *line);
/* "No rule to make target 'a/b.o'" -> "a/b.o" */
char *kb_no_rule(const char *line);
/* make -C VIEW O=BUILD (or -C KDIR), to add arguments to. */
GPtrArray *kb_make_argv(struct kbuild *kb);

/* "./a/b/../c.o" -> "a/c.o", "." for the top (path_normalize()) */
char *kb_norm(const char *path);
/* What follows "CC" in kbuild's "  CC [M]  a/b.o": the object's start. */
const char *kb_cc_object(const char *after_cc);
/* A path make printed, relative to the tree. */
char *kb_tree_rel(struct kbuild *kb, const char *path);

/* The source view: the tree as of base, with state on top. */
bool kb_view_build(struct kbuild *kb, GPtrArray *state, GError **error);
/* Out of tree: the module directory an object belongs to. */
char *kb_module_dir(struct kbuild *kb, const char *obj);

/* Give each failed object the first error line of its compile; count
 * the CC lines, those of the objects, and the objects make named. */
void kb_parse_errors(struct kbuild *kb, const char *raw, GPtrArray *objects,
		     const char *mod, struct kbuild_result *res, guint *ccs,
		     guint *ours, guint *named);
/* The tree's files the compile of obj read, from kbuild's .cmd file. */
GHashTable *kb_read_deps(struct kbuild *kb, const char *obj);

#endif
