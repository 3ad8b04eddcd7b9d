/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel style for the lines a conversion adds: spatch is run with a wide
 * --max-width so that nothing is broken one argument per line, and the
 * statements it touched are wrapped here, the way the kernel wraps them.
 */
#ifndef TIMERCONV_WRAP_H
#define TIMERCONV_WRAP_H

#include <stddef.h>

#define WRAP_COLUMNS 80

/*
 * Re-space the lines of new_text that the change from old_text added
 * (respace.h), then re-wrap the statements it touched: a line over 80
 * columns is broken after '=' (the continuation
 * one tab deeper) or at the commas of its call (aligned after the
 * parenthesis); a call whose continuation lines were aligned under its
 * parenthesis is re-aligned when the name before it changed length.
 * Returns a new string, or NULL when nothing needed changing.
 */
char *wrap_changed(const char *old_text, size_t old_len,
		   const char *new_text, size_t new_len, size_t *out_len);

/* Display width of a line (tabs to multiples of 8). */
size_t line_width(const char *p, size_t len);

#endif
