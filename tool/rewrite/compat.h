/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --compat-header: one generated header that lets converted out-of-tree
 * code build on kernels from before the API it was converted to.
 */
#ifndef TIMERCONV_COMPAT_H
#define TIMERCONV_COMPAT_H

#include <glib.h>
#include <stdbool.h>

#include "api.h"

/* The header's text for a target level. */
char *compat_header_text(enum api_level level);

/* Did timerconv write this file? (It may then be written again.) */
bool compat_header_ours(const char *text);

/* How `file` includes `header`, both root-relative: "../compat/t.h". */
char *compat_include_path(const char *file, const char *header);
/* ... as its #include line spells it: <linux/t.h> for a header under a
 * kernel tree's include/, "../compat/t.h" otherwise. */
char *compat_include_spec(const char *file, const char *header,
			  bool kernel_tree);

#endif
