// SPDX-License-Identifier: GPL-2.0
/*
 * Which files make up a tree: git's view of it when the tree is a git work
 * tree (so .gitignore is respected and build output is not scanned), else
 * a plain directory walk.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	const char *argv[] = { "git", "-C", root, "rev-parse",
			       "--is-inside-work-tree", NULL };
	char *out = NULL, *err = NULL;
	int status = -1;
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
	if (!run_capture_err(argv, NULL, &out, &err, &status, NULL))
		status = -1;
	t->is_git = status == 0 && out && g_str_has_prefix(out, "true");
	/* a repository git will not touch (another user's: "dubious
	 * ownership") is read as a plain directory; say why.  Its message
	 * names safe.directory in every language git speaks. */
	if (status > 0 && err && strstr(err, "safe.directory"))
		t->git_refused = g_strdup(err);
	g_free(out);
	g_free(err);
	return true;
}

void tree_close(struct tree *t)
{
	g_free(t->root);
	t->root = NULL;
	g_free(t->git_refused);
	t->git_refused = NULL;
	if (t->blobs)
		g_hash_table_destroy(t->blobs);
	t->blobs = NULL;
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
	GBytes *blob = t->blobs ? g_hash_table_lookup(t->blobs, rel) : NULL;
	char *abs;
	char *data = NULL;
	gsize n = 0;

	if (blob) {
		const char *d = g_bytes_get_data(blob, &n);

		data = g_malloc(n + 1);
		if (n)
			memcpy(data, d, n);
		data[n] = '\0';
		if (len)
			*len = n;
		return data;
	}
	abs = tree_abspath(t, rel);
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
			if (w->link_left && S_ISLNK(st.st_mode) &&
			    w->want(name))
				w->link_left(sub, w->data);
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

/* The tree's root as the file system names it, without symlinks. */
static char *real_root(const struct tree *t)
{
	char *real = realpath(t->root, NULL);
	char *res = g_strdup(real ? real : t->root);

	free(real);
	return res;
}

/* path (real, absolute) relative to the real root, or NULL when it is
 * outside the tree. */
static char *inside(const char *real_top, const char *path)
{
	size_t n = strlen(real_top);

	if (!strcmp(path, real_top))
		return g_strdup("");
	if (!strcmp(real_top, "/"))
		return g_strdup(path + 1);
	if (!strncmp(path, real_top, n) && path[n] == '/')
		return g_strdup(path + n + 1);
	return NULL;
}

/*
 * A symbolic link to C in the tree is not followed: the file it points to
 * is converted where the tree has it, and a rename would replace the link
 * with a file.  It is never skipped silently: say so, and where it points.
 */
static void symlink_skipped(const struct tree *t, const char *rel)
{
	/* once a run: the tree is listed twice when PATHs are given */
	static GHashTable *told;
	char *abs, *real, *top, *in;

	if (!told)
		told = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     NULL);
	if (!g_hash_table_add(told, g_strdup(rel)))
		return;
	abs = g_build_filename(t->root, rel, NULL);
	real = realpath(abs, NULL);
	top = real_root(t);
	in = real ? inside(top, real) : NULL;
	if (!real)
		tc_warn("%s: symbolic link to nothing, skipped", rel);
	else if (!in)
		tc_warn("%s: symbolic link to %s, outside the tree: skipped",
			rel, real);
	else
		tc_warn("%s: symbolic link to %s, skipped (that file is taken by its own name)",
			rel, in);
	free(real);
	g_free(in);
	g_free(top);
	g_free(abs);
}

static void link_left(const char *rel, void *data)
{
	symlink_skipped(data, rel);
}

/* The C files below rel, as the tree lists them without git. */
static void walk(const struct tree *t, const char *rel, GPtrArray *out)
{
	const struct walk_rules rules = {
		.want = is_c_source,
		.skip_dot = true,
		.link_left = link_left,
		.data = (void *)t,
	};

	dir_walk(t->root, rel, &rules, out);
}

static GPtrArray *git_list(struct tree *t, const char *const *paths,
			   GError **error)
{
	GPtrArray *argv = g_ptr_array_new();
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *text = NULL;
	int status = -1;
	size_t len;

	g_ptr_array_add(argv, "git");
	g_ptr_array_add(argv, "-C");
	g_ptr_array_add(argv, t->root);
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
	if (!run_capture((const char *const *)argv->pdata, NULL, &text,
			 &status, false, error) || status != 0) {
		if (error && !*error)
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
				    "git ls-files failed in %s", t->root);
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
		/* Deleted but still in the index: skip; a symlink: say so. */
		abs = g_build_filename(t->root, p, NULL);
		if (lstat(abs, &st) == 0 && S_ISREG(st.st_mode))
			g_ptr_array_add(out, g_strdup(p));
		else if (lstat(abs, &st) == 0 && S_ISLNK(st.st_mode))
			symlink_skipped(t, p);
		g_free(abs);
	}
	g_free(text);
	return out;
}

/*
 * A PATH as the tree names it: relative to the root, without ".", "..",
 * doubled slashes or symbolic links ("drivers/../sound/" is "sound", "."
 * is "", an absolute path inside the tree is taken relative to it).  NULL,
 * with error set, when it does not exist or is outside the tree.
 */
static char *clean_rel(const struct tree *t, const char *path,
		       GError **error)
{
	char *abs = g_path_is_absolute(path) ? g_strdup(path) :
		    g_build_filename(t->root, path, NULL);
	char *real = realpath(abs, NULL);
	char *top, *rel;

	g_free(abs);
	if (!real) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: no such file or directory in %s", path,
			    t->root);
		return NULL;
	}
	top = real_root(t);
	rel = inside(top, real);
	if (!rel)
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: outside the tree %s", path, t->root);
	free(real);
	g_free(top);
	return rel;
}

GPtrArray *tree_list(struct tree *t, const char *const *paths,
		     GError **error)
{
	GPtrArray *clean = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *out = NULL;

	for (size_t i = 0; paths && paths[i]; i++) {
		char *rel = clean_rel(t, paths[i], error);

		if (!rel) {
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
			walk(t, "", out);
		for (guint i = 0; i + 1 < clean->len; i++) {
			const char *rel = clean->pdata[i];
			char *abs = g_build_filename(t->root, rel, NULL);

			if (g_file_test(abs, G_FILE_TEST_IS_DIR))
				walk(t, rel, out);
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
