/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text that is not C a compiler would take, in a way spatch does not
 * say: merge conflict markers around code (spatch skips the functions
 * they cut, and would convert the rest), and a comment left open at the
 * end of the file (spatch closes it, and drops the final newline).  Such
 * a file is left alone, and its sites refused with the reason.
 */
#ifndef TIMERCONV_DAMAGE_H
#define TIMERCONV_DAMAGE_H

#include <stddef.h>

#include "lexer.h"

#define DAMAGE_CONFLICT		"merge conflict markers in the file"
#define DAMAGE_OPEN_COMMENT	"the file ends inside a comment (no */)"

/*
 * One of the DAMAGE_ reasons, or NULL; *line: where it starts.  toks: the
 * text's tokens (lex_all()).  A conflict around directives and comments
 * alone (an #include one side dropped) is no damage: the file converts,
 * and *conflict_line (else 0) says where it is, for a warning.
 */
const char *damage_find(const char *text, size_t len,
			const struct token *toks, size_t ntok,
			unsigned int *line, unsigned int *conflict_line);

#endif
