/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the C unit tests in this directory (GLib's gtest, one program
 * a test_*.c, linked against the tool's objects: see HACKING.md).  Each
 * program calls g_test_init(), which makes a GLib warning or critical
 * fatal, adds its cases with g_test_add_func() and returns g_test_run().
 */
#ifndef TIMERCONV_UNIT_H
#define TIMERCONV_UNIT_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <string.h>

#include "util.h"

/*
 * A path in the source tree: under $G_TEST_SRCDIR (make unit sets it),
 * else two levels above the test program (build-san/unit/test_x).
 */
static inline char *unit_source(const char *rel)
{
	const char *top = g_getenv("G_TEST_SRCDIR");

	if (top)
		return g_build_filename(top, rel, NULL);
	return g_build_filename(g_test_get_dir(G_TEST_BUILT), "..", "..",
				rel, NULL);
}

/* A fresh temporary directory; unit_tmp_remove() takes it away. */
static inline char *unit_tmpdir(void)
{
	GError *error = NULL;
	char *dir = g_dir_make_tmp("timerconv-unit-XXXXXX", &error);

	g_assert_no_error(error);
	return dir;
}

static inline void unit_tmp_remove(char *dir)
{
	remove_tree(dir);
	g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
	g_free(dir);
}

/* Write text to dir/rel, making the directories on the way. */
static inline void unit_write(const char *dir, const char *rel,
			      const char *text)
{
	char *path = g_build_filename(dir, rel, NULL);
	char *parent = g_path_get_dirname(path);
	GError *error = NULL;

	g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
	g_file_set_contents(path, text, -1, &error);
	g_assert_no_error(error);
	g_free(parent);
	g_free(path);
}

#endif
