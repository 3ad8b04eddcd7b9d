/* SPDX-License-Identifier: GPL-2.0 */
/*
 * checkpatch.pl --strict's spacing rules on the lines a conversion adds.
 *
 * spatch reprints the tokens it rewrites and keeps the author's blanks
 * around the others, and checkpatch judges every line a patch adds, so
 * an old driver's spacing comes out on lines the tool wrote:
 * `mac_nosound(NULL )` from `mac_nosound( 0 )`, `struct sbni * nl =
 * from_timer(...)`, `g=from_timer(...)`, `button_done (struct timer_list
 * *unused)`, indentation in spaces, a function's `{` on its definition's
 * line.  Those lines are re-spaced here; no other line changes, and on
 * the lines that do only blanks (and a definition's line break) change,
 * never a token, a string or a comment.
 */
#ifndef TIMERCONV_RESPACE_H
#define TIMERCONV_RESPACE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * new_text with the lines that are not in old_text re-spaced; NULL when
 * none needed it.
 */
char *respace_changed(const char *old_text, size_t old_len,
		      const char *new_text, size_t new_len, size_t *out_len);

/*
 * The same on text whose added lines are flagged (added[i] for line i,
 * nlines lines): the worker behind respace_changed(), for the fuzzer.
 */
char *respace_lines(const char *text, size_t len, const bool *added,
		    size_t nlines, size_t *out_len);

#endif
