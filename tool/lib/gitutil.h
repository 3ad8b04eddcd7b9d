/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_GITUTIL_H
#define TIMERCONV_GITUTIL_H

#include <glib.h>
#include <stdbool.h>

/*
 * Every git the tool runs goes through here.  Run `git -C dir ARGS...`
 * (NULL-terminated); *out gets stdout byte for byte, NUL-terminated (out
 * may be NULL): `ls-files -z` separates names with NULs, and a file's
 * text need not be UTF-8.  A non-zero exit is an error carrying git's
 * stderr.
 */
bool git_run(const char *dir, char **out, GError **error, ...)
	G_GNUC_NULL_TERMINATED;
bool git_runv(const char *dir, const char *const *args, char **out,
	      GError **error);

/* The value of a git config key, or NULL. */
char *git_config(const char *dir, const char *key);

#endif
