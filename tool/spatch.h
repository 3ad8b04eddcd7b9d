/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running spatch: one process per file, N at a time, each with a
 * timeout, all of them ended when timerconv is interrupted.
 */
#ifndef TIMERCONV_SPATCH_H
#define TIMERCONV_SPATCH_H

#include <glib.h>
#include <stdbool.h>

struct spatch_env {
	char *cocci_dir;	/* where the .cocci files and timerconv.py are */
	char *sp_file;		/* the rules combined into one file */
	char *workdir;		/* temporary directory of this run */
	char *macro_file;	/* --macro-file, or NULL */
	int timeout;		/* seconds per file */
	int jobs;
	char *include_rule;	/* compat_include.cocci, kept apart */
	GHashTable *variants;	/* include path -> rule file with it */
};

struct spatch_job {
	/* in */
	char *input;		/* absolute path of the file to process */
	const char *mode;	/* "facts" or "patch" */
	char *output;		/* patch mode: where the result goes */
	char *plan;		/* patch mode: the plan file */
	char *callbacks;	/* file of callback names, or NULL */
	const char *sp_file;	/* rules to use instead of env->sp_file */
	/* out */
	char *out_text;
	char *err_text;
	int status;		/* exit status, -1 if it did not exit */
	bool timed_out;
	bool failed;		/* could not run, or crashed */
};

/* Find the rules, check spatch and write the combined rule file. */
bool spatch_env_init(struct spatch_env *env, GError **error);
void spatch_env_clear(struct spatch_env *env);

/* The rules plus the one that adds #include "include" (cached). */
const char *spatch_sp_with_include(struct spatch_env *env,
				   const char *include, GError **error);

void spatch_run_all(struct spatch_env *env, GPtrArray *jobs);
void spatch_job_free(struct spatch_job *job);

#endif
