// SPDX-License-Identifier: GPL-2.0
/*
 * Which files make up a tree: git's view of it when the tree is a git work
 * tree (so .gitignore is respected and build output is not scanned), else
 * a plain directory walk.
 */
#include <string.h>
#include <sys/stat.h>

#include "gitutil.h"
#include "tree.h"
#include "util.h"

bool is_c_source(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && path[n - 2] == '.' &&
	       (path[n - 1] == 'c' || path[n - 1] == 'h');
}

char *path_normalize(const char *path)
{
	char **parts = g_strsplit(path, "/", -1);
	GPtrArray *out = g_ptr_array_new();
	char *res;

	for (int i = 0; parts[i]; i++) {
		if (!parts[i][0] || !strcmp(parts[i], "."))
			continue;
		if (!strcmp(parts[i], "..") && out->len &&
		    strcmp(out->pdata[out->len - 1], "..")) {
			g_ptr_array_set_size(out, out->len - 1);
			continue;
		}
		g_ptr_array_add(out, parts[i]);
	}
	g_ptr_array_add(out, NULL);
	res = g_strjoinv("/", (char **)out->pdata);
	g_ptr_array_free(out, TRUE);
	g_strfreev(parts);
	return res;
}

bool tree_open(struct tree *t, const char *root, GError **error)
{
	char *out = NULL;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!g_file_test(root, G_FILE_TEST_IS_DIR)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: no such directory", root);
		return false;
	}
	t->root = g_strdup(root);
	n = strlen(t->root);
	while (n > 1 && t->root[n - 1] == '/')
		t->root[--n] = '\0';
	t->is_git = git_run(root, &out, NULL, "rev-parse",
			    "--is-inside-work-tree", NULL) &&
		    g_str_has_prefix(out, "true");
	g_free(out);
	return true;
}

void tree_close(struct tree *t)
{
	g_free(t->root);
	t->root = NULL;
}

char *tree_abspath(const struct tree *t, const char *rel)
{
	return g_build_filename(t->root, rel, NULL);
}

bool tree_has(const struct tree *t, const char *rel)
{
	char *abs;
	bool res;

	if (g_path_is_absolute(rel) || g_str_has_prefix(rel, "../") ||
	    !is_c_source(rel))
		return false;
	abs = tree_abspath(t, rel);
	res = g_file_test(abs, G_FILE_TEST_IS_REGULAR);
	g_free(abs);
	return res;
}

char *tree_read(const struct tree *t, const char *rel, size_t *len,
		GError **error)
{
	char *abs = tree_abspath(t, rel);
	char *data = NULL;
	gsize n = 0;

	if (!g_file_get_contents(abs, &data, &n, error))
		data = NULL;
	g_free(abs);
	if (len)
		*len = n;
	return data;
}

static void walk_in(const char *root, const char *rel,
		    const struct walk_rules *w, int depth, GPtrArray *out)
{
	char *abs = rel[0] ? g_build_filename(root, rel, NULL) :
			     g_strdup(root);
	GDir *d = !w->max_depth || depth < w->max_depth ?
		  g_dir_open(abs, 0, NULL) : NULL;
	const char *name;

	g_free(abs);
	if (!d)
		return;
	while ((name = g_dir_read_name(d))) {
		char *sub = rel[0] ? g_strconcat(rel, "/", name, NULL) :
				     g_strdup(name);
		char *path = g_build_filename(root, sub, NULL);
		struct stat st;

		if ((w->skip_dot && name[0] == '.') || lstat(path, &st) < 0) {
			g_free(sub);
		} else if (S_ISDIR(st.st_mode)) {
			walk_in(root, sub, w, depth + 1, out);
			g_free(sub);
		} else if (w->want(name) &&
			   (S_ISREG(st.st_mode) ||
			    (w->file_links && S_ISLNK(st.st_mode) &&
			     stat(path, &st) == 0 && S_ISREG(st.st_mode)))) {
			g_ptr_array_add(out, sub);
		} else {
			g_free(sub);
		}
		g_free(path);
	}
	g_dir_close(d);
}

void dir_walk(const char *root, const char *rel, const struct walk_rules *w,
	      GPtrArray *out)
{
	walk_in(root, rel, w, 0, out);
}

/* Outside git, the tree's files as git would list them. */
static void walk(const char *root, const char *rel, GPtrArray *out)
{
	static const struct walk_rules sources = {
		.want = is_c_source,
		.skip_dot = true,
	};

	dir_walk(root, rel, &sources, out);
}

static GPtrArray *git_list(struct tree *t, const char *const *paths,
			   GError **error)
{
	GPtrArray *argv = g_ptr_array_new();
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *text = NULL;
	GError *err = NULL;
	size_t len;

	g_ptr_array_add(argv, "ls-files");
	g_ptr_array_add(argv, "-z");
	g_ptr_array_add(argv, "--cached");
	g_ptr_array_add(argv, "--others");
	g_ptr_array_add(argv, "--exclude-standard");
	g_ptr_array_add(argv, "--");
	/* "" (the whole tree) is not a pathspec git takes; "." is */
	for (size_t i = 0; paths && paths[i]; i++)
		g_ptr_array_add(argv, paths[i][0] ? (char *)paths[i] : ".");
	g_ptr_array_add(argv, NULL);
	if (!git_runv(t->root, (const char *const *)argv->pdata, &text,
		      &err)) {
		g_propagate_prefixed_error(error, err, "%s: ", t->root);
		g_ptr_array_free(argv, TRUE);
		g_ptr_array_free(out, TRUE);
		g_free(text);
		return NULL;
	}
	g_ptr_array_free(argv, TRUE);
	len = 0;
	for (const char *p = text; *p; p += len + 1) {
		char *abs;
		struct stat st;

		len = strlen(p);
		if (!is_c_source(p))
			continue;
		/* Deleted but still in the index, or a symlink: skip. */
		abs = g_build_filename(t->root, p, NULL);
		if (lstat(abs, &st) == 0 && S_ISREG(st.st_mode))
			g_ptr_array_add(out, g_strdup(p));
		g_free(abs);
	}
	g_free(text);
	return out;
}

static char *clean_rel(const char *path)
{
	char *s = g_strdup(path);
	size_t n;

	while (g_str_has_prefix(s, "./")) {
		char *tmp = g_strdup(s + 2);

		g_free(s);
		s = tmp;
	}
	n = strlen(s);
	while (n > 0 && s[n - 1] == '/')
		s[--n] = '\0';
	if (!strcmp(s, ".")) {
		g_free(s);
		s = g_strdup("");
	}
	return s;
}

GPtrArray *tree_list(struct tree *t, const char *const *paths,
		     GError **error)
{
	GPtrArray *clean = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *out = NULL;

	for (size_t i = 0; paths && paths[i]; i++) {
		char *rel = clean_rel(paths[i]);
		char *abs = g_build_filename(t->root, rel, NULL);
		bool exists = g_file_test(abs, G_FILE_TEST_EXISTS);

		g_free(abs);
		if (!exists || g_path_is_absolute(rel) ||
		    !strcmp(rel, "..") || g_str_has_prefix(rel, "../") ||
		    strstr(rel, "/../") || g_str_has_suffix(rel, "/..")) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "%s: no such file or directory in %s",
				    paths[i], t->root);
			g_free(rel);
			g_ptr_array_free(clean, TRUE);
			return NULL;
		}
		g_ptr_array_add(clean, rel);
	}
	g_ptr_array_add(clean, NULL);

	if (t->is_git) {
		out = git_list(t, (const char *const *)clean->pdata, error);
	} else {
		out = g_ptr_array_new_with_free_func(g_free);
		if (clean->len == 1)
			walk(t->root, "", out);
		for (guint i = 0; i + 1 < clean->len; i++) {
			const char *rel = clean->pdata[i];
			char *abs = g_build_filename(t->root, rel, NULL);

			if (g_file_test(abs, G_FILE_TEST_IS_DIR))
				walk(t->root, rel, out);
			else if (is_c_source(rel))
				g_ptr_array_add(out, g_strdup(rel));
			g_free(abs);
		}
	}
	g_ptr_array_free(clean, TRUE);
	if (!out)
		return NULL;
	g_ptr_array_sort(out, cmp_strings);
	/* Overlapping PATHs must not list a file twice. */
	for (guint i = 1; i < out->len;) {
		if (!strcmp(out->pdata[i], out->pdata[i - 1]))
			g_ptr_array_remove_index(out, i);
		else
			i++;
	}
	return out;
}
