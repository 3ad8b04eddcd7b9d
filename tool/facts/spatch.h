/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running spatch: batches of files, one group each, N processes at a
 * time, each file with a timeout, all of them ended when timerconv is
 * interrupted.
 */
#ifndef TIMERCONV_SPATCH_H
#define TIMERCONV_SPATCH_H

#include <glib.h>
#include <stdbool.h>

#include "facts.h"

struct spatch_env {
	char *cocci_dir;	/* where the .cocci files and timerconv.py are */
	char *sp_file;		/* the rules combined into one file */
	char *spec_sp_file;	/* the same, facts rules first (spec mode) */
	char *workdir;		/* temporary directory of this run */
	char *macro_file;	/* the user's --macro-file, or NULL */
	char *macros;		/* what spatch's --macro-file gets: ours
				 * (kernel_macros.h), then the user's */
	int timeout;		/* seconds per file */
	int jobs;
	char *include_rule;	/* compat_include.cocci, kept apart */
	GHashTable *variants;	/* include path -> rule file with it */
	guint nbatches;
	/* called while spatch runs: files done of total, in a phase */
	void (*progress)(void *ctx, const char *phase, guint done,
			 guint total);
	void *progress_ctx;
};

/* One file for spatch, and what spatch said about it. */
struct spatch_file {
	/* in */
	char *input;		/* absolute path spatch reads (and rewrites,
				 * in place) */
	const char *sp_file;	/* rules to use instead of env->sp_file */
	size_t size;
	/* the callback names it contains (borrowed), or NULL: when set, the
	 * rules' callback-name constraint is narrowed to them, by batch */
	const GPtrArray *names;
	/* files that may share a unit (group > 0) go one after the other,
	 * the smallest first, where the largest of them (group_size) would
	 * go; the others go by size, the largest first */
	guint group;
	size_t group_size;
	/* out */
	struct file_facts *facts;	/* its records, NULL if it failed */
	bool timed_out;
	char *error;		/* spatch failed on it */
	/* its "TIMERCONV" lines as spatch printed them, kept only when
	 * TIMERCONV_FACTS_DUMP is set (facts_dump.h) */
	char *records;
};

/* Find the rules, check spatch and write the combined rule file. */
bool spatch_env_init(struct spatch_env *env, GError **error);
void spatch_env_clear(struct spatch_env *env);

/* The rules plus the one that adds #include "include" (cached). */
const char *spatch_sp_with_include(struct spatch_env *env,
				   const char *include, GError **error);

/*
 * Run spatch in `mode` ("facts" or "patch") over `files` (struct
 * spatch_file *) in batches, env->jobs processes at a time.  plan and
 * callbacks are the files timerconv.py reads; in_place rewrites the
 * inputs, which must then be scratch copies.
 */
void spatch_run_files(struct spatch_env *env, const char *mode,
		      GPtrArray *files, const char *plan,
		      const char *callbacks, bool in_place);

/* What spatch --out-place adds to an input's name for its result. */
#define SPATCH_RESULT ".cocci_res"

/*
 * Facts and patch in one run over `files`, which must be scratch copies:
 * the patch rules ask the driver for each file's plan over the Unix
 * socket `socket` (speculate.h) once its facts are out, and a rewritten
 * file is left beside its input, as INPUT SPATCH_RESULT.
 */
void spatch_run_spec(struct spatch_env *env, GPtrArray *files,
		     const char *callbacks, const char *socket);

/*
 * Whether spatch can be given `path`: it runs diff on its files through a
 * shell without quoting them, so only names a shell takes as one word
 * (letters, digits and / . _ - + , =) are; others go as copies under
 * other names (cfile.c).
 */
bool spatch_path_safe(const char *path);

struct spatch_file *spatch_file_new(char *input, const char *sp_file,
				    size_t size);
void spatch_file_free(struct spatch_file *f);

#endif
