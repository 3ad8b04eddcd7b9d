/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A view of a source tree made of symbolic links, in a directory of its
 * own, with some files replaced and some paths hidden.  kbuild reads it
 * as its source tree, so the converted files can be built while the tree
 * itself is never written; and since the view always has the same path,
 * a build directory made from it stays valid from run to run.
 */
#ifndef TIMERCONV_OVERLAY_H
#define TIMERCONV_OVERLAY_H

#include <glib.h>
#include <stdbool.h>

struct overlay_file {
	const char *path;	/* relative to the tree */
	const char *text;	/* the content; NULL: hide the file */
	size_t len;
};

/*
 * Make dst a view of src (an absolute path): every entry a link into
 * src, except the files in files (written as given) and the paths in
 * hide (left out); the directories on their way are real directories
 * with a link for each other entry.  What dst held before is removed.
 */
bool overlay_build(const char *dst, const char *src, GPtrArray *files,
		   const char *const *hide, GError **error);

#endif
