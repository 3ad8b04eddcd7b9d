/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Facts and patch in one spatch pass.  While spatch runs, the patch rules
 * of each file ask the driver for the file's plan, sending the facts the
 * facts rules just gave; the driver plans that file as if the tree held
 * only it and the files already heard from that name its callbacks, and
 * answers.  Once every file's facts are in and the real plan is made, a
 * file's result is kept only if the plan it was rewritten with is the
 * real plan for it, or if no rule asked (then no plan could have changed
 * it); every other file is rewritten again, as before.
 */
#ifndef TIMERCONV_SPECULATE_H
#define TIMERCONV_SPECULATE_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "conv.h"

struct speculation;

/*
 * Listen on a socket in workdir; keep_in_scope: plan_keep_in_scope()
 * applies (PATHs given, units not followed).  NULL, with error set, when
 * there can be no socket (its path too long, say): the caller then runs
 * facts and patch as two passes.  TIMERCONV_SPEC_DEBUG=1 prints each
 * file rewritten again, with the plan it had and the real one.
 */
struct speculation *spec_start(struct conversion *cv, const char *workdir,
			       bool keep_in_scope, GError **error);
const char *spec_socket(const struct speculation *s);
/* Write a scratch copy of f for the pass and return its absolute path,
 * by which the rules will name it; blank: with the bodies of functions
 * that cannot matter blanked (blank.h). */
char *spec_input(struct speculation *s, struct cfile *f, bool blank,
		 GError **error);
/* Group the files that name the same callbacks (`sfiles`, struct
 * spatch_file *, are the inputs of `files`, struct cfile *, in order). */
void spec_group(struct speculation *s, GPtrArray *sfiles, GPtrArray *files);
/* spatch is done: stop answering, and end the thread. */
void spec_stop(struct speculation *s);
void spec_free(struct speculation *s);

/* The pass's result for f: its result and "done" records.  A result on
 * a blanked copy that cannot be merged back is not used. */
void spec_result(struct cfile *f, const char *input, struct file_facts *ff,
		 bool ok);
/* Whether f's result from the pass is the one `plan` (the real plan for
 * f) gives; if so, f takes it as its rewrite. */
bool spec_take(struct cfile *f, JsonObject *plan);

/* The plan as text with every object's members sorted: equal plans give
 * equal text.  NULL (nothing to do) is "{}". */
char *plan_canonical(JsonObject *plan);

#endif
