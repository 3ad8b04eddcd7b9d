/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_CHECK_H
#define TIMERCONV_CHECK_H

#include <glib.h>
#include <stdbool.h>

#include "scan.h"

struct finding {
	const char *file;	/* root-relative, borrowed */
	const struct site *site;	/* borrowed */
	char *kind;		/* old-timer-api/<kind> */
	char *message;
	char *fingerprint;
	bool note;		/* compat code, shown with --include-compat */
};

enum check_format {
	FORMAT_TEXT,
	FORMAT_JSON,
	FORMAT_SARIF,
	FORMAT_GITHUB,
};

int cmd_check(int argc, char **argv);

/* check_format.c */
void check_print(GPtrArray *findings, enum check_format fmt,
		 guint nfiles_scanned);

/* check_baseline.c */
bool baseline_write(const char *path, GPtrArray *findings, GError **error);
GHashTable *baseline_read(const char *path, GError **error);
GHashTable *baseline_parse(const char *name, const char *text, gssize len,
			   GError **error);
GHashTable *since_added_lines(const char *root, const char *rev,
			      bool cached, GError **error);
struct tree;
bool staged_view(struct tree *t, GPtrArray *files, GHashTable *added,
		 GError **error);
bool since_has_line(GHashTable *added, const char *file, unsigned int line);

#endif
