// SPDX-License-Identifier: GPL-2.0
/*
 * The source view kbuild builds from: links into the tree, real
 * directories only on the way to a replaced or hidden path.  Building it
 * costs a link per entry of those directories, so it is made afresh for
 * every build state.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "overlay.h"
#include "util.h"

struct view {
	const char *src;
	const char *dst;
	GHashTable *files;	/* path -> struct overlay_file * */
	GHashTable *hide;	/* path set */
	GHashTable *spine;	/* directories that must be real */
	GHashTable *written;	/* paths of files written */
};

static void add_spine(GHashTable *spine, const char *path)
{
	char *dir = g_path_get_dirname(path);

	while (strcmp(dir, ".") && strcmp(dir, "/") &&
	       !g_hash_table_contains(spine, dir)) {
		char *up = g_path_get_dirname(dir);

		g_hash_table_add(spine, dir);
		dir = up;
	}
	g_free(dir);
}

static bool write_one(struct view *v, const struct overlay_file *f,
		      GError **error)
{
	char *abs = g_build_filename(v->dst, f->path, NULL);
	char *dir = g_path_get_dirname(abs);
	bool ok = true;

	g_hash_table_add(v->written, (char *)f->path);
	if (f->text) {
		g_mkdir_with_parents(dir, 0755);
		ok = g_file_set_contents(abs, f->text, f->len, error);
	}
	g_free(dir);
	g_free(abs);
	return ok;
}

static bool fill(struct view *v, const char *rel, GError **error)
{
	char *from = rel ? g_build_filename(v->src, rel, NULL) :
			   g_strdup(v->src);
	GDir *d = g_dir_open(from, 0, error);
	const char *name;
	bool ok = d != NULL;

	while (ok && (name = g_dir_read_name(d))) {
		char *child = rel ? g_build_filename(rel, name, NULL) :
				    g_strdup(name);
		char *target = g_build_filename(from, name, NULL);
		char *at = g_build_filename(v->dst, child, NULL);
		const struct overlay_file *f =
			g_hash_table_lookup(v->files, child);

		if (g_hash_table_contains(v->hide, child)) {
			/* left out */
		} else if (f) {
			ok = write_one(v, f, error);
		} else if (g_hash_table_contains(v->spine, child) &&
			   g_file_test(target, G_FILE_TEST_IS_DIR)) {
			if (mkdir(at, 0755) < 0 && errno != EEXIST) {
				g_set_error(error, G_FILE_ERROR,
					    g_file_error_from_errno(errno),
					    "%s: %s", at, g_strerror(errno));
				ok = false;
			} else {
				ok = fill(v, child, error);
			}
		} else if (symlink(target, at) < 0) {
			g_set_error(error, G_FILE_ERROR,
				    g_file_error_from_errno(errno),
				    "%s: cannot link: %s", at, g_strerror(errno));
			ok = false;
		}
		g_free(at);
		g_free(target);
		g_free(child);
	}
	if (d)
		g_dir_close(d);
	g_free(from);
	return ok;
}

bool overlay_build(const char *dst, const char *src, GPtrArray *files,
		   const char *const *hide, GError **error)
{
	struct view v = {
		.src = src, .dst = dst,
		.files = g_hash_table_new(g_str_hash, g_str_equal),
		.hide = g_hash_table_new(g_str_hash, g_str_equal),
		.spine = g_hash_table_new_full(g_str_hash, g_str_equal,
					       g_free, NULL),
		.written = g_hash_table_new(g_str_hash, g_str_equal),
	};
	bool ok;

	for (guint i = 0; files && i < files->len; i++) {
		const struct overlay_file *f = files->pdata[i];

		g_hash_table_insert(v.files, (char *)f->path, (gpointer)f);
		add_spine(v.spine, f->path);
	}
	for (int i = 0; hide && hide[i]; i++) {
		g_hash_table_add(v.hide, (char *)hide[i]);
		add_spine(v.spine, hide[i]);
	}
	remove_tree(dst);
	if (g_mkdir_with_parents(dst, 0755) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: cannot create: %s", dst, g_strerror(errno));
		ok = false;
		goto out;
	}
	ok = fill(&v, NULL, error);
	/* files the tree does not have (a header the run creates) */
	for (guint i = 0; ok && files && i < files->len; i++) {
		const struct overlay_file *f = files->pdata[i];

		if (!g_hash_table_contains(v.written, f->path) &&
		    g_hash_table_lookup(v.files, f->path) == f)
			ok = write_one(&v, f, error);
	}
out:
	g_hash_table_destroy(v.files);
	g_hash_table_destroy(v.hide);
	g_hash_table_destroy(v.spine);
	g_hash_table_destroy(v.written);
	return ok;
}
