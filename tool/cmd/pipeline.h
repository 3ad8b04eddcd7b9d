/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The conversion pipeline shared by `convert` and `series`: scan, facts,
 * plan, rewrite, wrap.  Nothing is written to the tree here.
 */
#ifndef TIMERCONV_PIPELINE_H
#define TIMERCONV_PIPELINE_H

#include <glib.h>

#include "conv.h"
#include "spatch.h"
#include "target.h"
#include "tree.h"

struct verify_opts;

/* --timeout and --macro-file: the same options for every command that
 * runs spatch (o: its options, with those members). */
#define PIPELINE_SPATCH_OPTIONS(o)					\
	{ "timeout", 0, 0, G_OPTION_ARG_INT, &(o).timeout,		\
	  "Seconds spatch may spend on a file of up to 128 kB (default: 120); bigger files get more, up to 8 times", \
	  "S" },							\
	{ "macro-file", 0, 0, G_OPTION_ARG_FILENAME, &(o).macro_file,	\
	  "Macro definitions that help spatch parse this tree, added after timerconv's own kernel macros (spatch then reads every function body whole, not only those that can matter)", \
	  "FILE" }

struct pipeline_opts {
	const char *tree;
	char **paths;
	int jobs;
	int timeout;
	const char *macro_file;
	const char *target;
	const char *kernel_headers;
	char **include_dirs;		/* -I: more headers for the index */
	const char *api_header;
	const char *compat_header;	/* root-relative path, or NULL */
	bool scan_only;			/* stop before spatch */
	bool follow_units;		/* convert units across PATHs whole */
	bool keep_data;			/* --keep-data (tool/plan/keep.c) */
	const struct verify_opts *verify; /* --verify (verify.h), or NULL */
	/* Called once the plan is made, before anything is rewritten: may
	 * refuse units (series --upstream). */
	void (*after_plan)(struct conversion *cv, void *ctx);
	void *ctx;
};

struct run {
	struct tree tree;
	struct target target;
	struct conversion cv;
	struct spatch_env env;
	GPtrArray *scope;		/* in-scope files */
	GPtrArray *whole;		/* the whole tree, when PATHs narrow */
	guint nfiles_scanned;
};

bool pipeline_run(struct run *r, const struct pipeline_opts *o,
		  GError **error);
void pipeline_free(struct run *r);

/* The sites the summary and the report account for. */
bool csite_counted(const struct csite *s);

/* Files the facts pass takes (candidates and the files that use their
 * callbacks), sorted by path. */
GPtrArray *pipeline_candidates(struct run *r);

/* Files the conversion changes, sorted by path. */
GPtrArray *pipeline_changed(struct run *r);

#endif
