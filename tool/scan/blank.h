/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What spatch is shown of a file: the bodies of the functions that cannot
 * matter to the rules blanked out, so that it neither parses them nor
 * tries every rule on them, and its result merged back into the file.
 */
#ifndef TIMERCONV_BLANK_H
#define TIMERCONV_BLANK_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "lexer.h"

/*
 * A copy of text in which the body of every function definition that
 * holds no name the rules look for (the old or new API's, "data",
 * "function", nor one of `names`, the callback names) and no directive is
 * blanked: each of its bytes but newlines becomes a space, so that every
 * line and column stays where it was.  NULL when no body is blanked.
 */
char *blank_bodies(const char *text, size_t len, const struct token *t,
		   size_t n, const GPtrArray *names, size_t *blanked);

/* Whether spatch reads blanked copies: not with --macro-file (a macro
 * may expand to the API in any body), nor with TIMERCONV_NO_BLANK set. */
bool blank_wanted(const char *macro_file);

/*
 * spatch's result on the blanked copy, as a result on the original text:
 * the blanked lines are the original's again.  NULL when spatch changed a
 * line that blanking had changed (the result is then not used).
 */
char *blank_merge(const char *orig, size_t orig_len, const char *blanked,
		  size_t blanked_len, const char *result, size_t result_len,
		  size_t *out_len);

#endif
