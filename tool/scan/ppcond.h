/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Version-guarded compat code: #if groups that keep old-API code on
 * purpose for old kernels.
 */
#ifndef TIMERCONV_PPCOND_H
#define TIMERCONV_PPCOND_H

#include <glib.h>

#include "lexer.h"

#define MARK_OLD_API	0x01
#define MARK_NEW_API	0x02
/* A name that may be the API's: it holds "timer" or "TIMER". */
#define MARK_CANDIDATE	0x04

struct line_range {
	unsigned int first;
	unsigned int last;
};

/*
 * The line ranges (from the #if line to its #endif) of every conditional
 * group that is compat code: its condition names a kernel version at or
 * below 4.15 or a timer API macro, or one branch uses the old API while
 * a sibling uses the new one.  mark[i] carries MARK_* bits for tokens[i].
 * *dead receives the ranges that never compile: `#if 0` branches, and the
 * #else of `#if 1`.
 */
GArray *ppcond_compat_ranges(const struct token *tokens, size_t ntok,
			     const unsigned char *mark, GArray **dead);

bool line_in_ranges(const GArray *ranges, unsigned int line);

#endif
