// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines (findings accepted today, matched by a fingerprint that does
 * not move with line numbers) and --since (only lines a change added).
 */
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pathname.h"
#include "tree.h"
#include "util.h"

bool baseline_write(const char *path, GPtrArray *findings, GError **error)
{
	JsonBuilder *b = json_builder_new();
	bool ok;

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "tool");
	json_builder_add_string_value(b, "timerconv check");
	json_builder_set_member_name(b, "version");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "findings");
	json_builder_begin_array(b);
	for (guint i = 0; i < findings->len; i++) {
		struct finding *f = findings->pdata[i];
		char *file;

		if (f->note)
			continue;
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "fingerprint");
		json_builder_add_string_value(b, f->fingerprint);
		json_builder_set_member_name(b, "file");
		file = text_utf8(f->file);
		json_builder_add_string_value(b, file);
		g_free(file);
		json_builder_set_member_name(b, "line");
		json_builder_add_int_value(b, f->site->line);
		json_builder_set_member_name(b, "kind");
		json_builder_add_string_value(b, f->kind);
		json_builder_set_member_name(b, "function");
		json_builder_add_string_value(b, f->site->func ?
						 f->site->func : "");
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	ok = write_json_atomic(path, b, -1, error);
	g_object_unref(b);
	return ok;
}

/* The string at key, or NULL when it is missing or not a string. */
static const char *string_member(JsonNode *node, const char *key)
{
	JsonNode *n;

	if (!JSON_NODE_HOLDS_OBJECT(node))
		return NULL;
	n = json_object_get_member(json_node_get_object(node), key);
	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    json_node_get_value_type(n) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(n);
}

/* fingerprint -> how many findings with it the baseline accepts */
static GHashTable *baseline_from(JsonParser *parser, const char *name,
				 GError **error)
{
	JsonNode *root = json_parser_get_root(parser);
	JsonNode *node;
	GHashTable *fps;
	JsonArray *arr;

	/* An empty file parses, with no root. */
	if (!root || !JSON_NODE_HOLDS_OBJECT(root))
		goto bad;
	node = json_object_get_member(json_node_get_object(root), "findings");
	if (!node || !JSON_NODE_HOLDS_ARRAY(node))
		goto bad;
	arr = json_node_get_array(node);
	fps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (guint i = 0; i < json_array_get_length(arr); i++) {
		const char *fp = string_member(
			json_array_get_element(arr, i), "fingerprint");
		guint n;

		if (!fp)
			continue;
		n = GPOINTER_TO_UINT(g_hash_table_lookup(fps, fp));
		g_hash_table_insert(fps, g_strdup(fp), GUINT_TO_POINTER(n + 1));
	}
	return fps;
bad:
	g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
		    "%s: not a timerconv baseline (no \"findings\" array)",
		    name);
	return NULL;
}

GHashTable *baseline_read(const char *path, GError **error)
{
	GError *err = NULL;
	char *text = NULL;
	gsize len;
	GHashTable *fps;

	if (!g_file_get_contents(path, &text, &len, error))
		return NULL;
	/* a baseline written before file names were escaped may hold a
	 * name that is not UTF-8: only the fingerprints matter */
	if (!g_utf8_validate(text, (gssize)len, NULL)) {
		char *valid = g_utf8_make_valid(text, (gssize)len);

		g_free(text);
		text = valid;
		len = strlen(valid);
	}
	fps = baseline_parse(path, text, (gssize)len, &err);
	if (!fps && err && !g_str_has_prefix(err->message, path))
		g_set_error(error, err->domain, err->code, "%s: %s", path,
			    err->message);
	else if (err)
		g_propagate_error(error, g_steal_pointer(&err));
	g_clear_error(&err);
	g_free(text);
	return fps;
}

/* The same for a baseline's text (len -1: NUL-terminated). */
GHashTable *baseline_parse(const char *name, const char *text, gssize len,
			   GError **error)
{
	JsonParser *parser = json_parser_new();
	GHashTable *fps = NULL;

	if (json_parser_load_from_data(parser, text, len, error))
		fps = baseline_from(parser, name, error);
	g_object_unref(parser);
	return fps;
}

static void add_range(GHashTable *added, const char *file, unsigned int from,
		      unsigned int count)
{
	GArray *lines = g_hash_table_lookup(added, file);

	if (!lines) {
		lines = g_array_new(FALSE, FALSE, sizeof(unsigned int) * 2);
		g_hash_table_insert(added, g_strdup(file), lines);
	}
	{
		unsigned int r[2] = { from, from + count - 1 };

		g_array_append_vals(lines, r, 1);
	}
}

static void free_array(gpointer p)
{
	g_array_free(p, TRUE);
}

/*
 * What REV names: itself, or for HEAD on a branch with no commit yet (a
 * repository's first commit) the empty tree, against which every line
 * is added.
 */
static char *since_base(const char *root, const char *rev)
{
	const char *verify[] = { "git", "-C", root, "rev-parse", "--verify",
				 "--quiet", "HEAD", NULL };
	const char *unborn[] = { "git", "-C", root, "symbolic-ref", "--quiet",
				 "HEAD", NULL };
	const char *empty[] = { "git", "-C", root, "hash-object", "-t", "tree",
				"/dev/null", NULL };
	char *out = NULL;
	int status = -1;

	if (strcmp(rev, "HEAD") ||
	    (run_capture(verify, NULL, NULL, &status, true, NULL) &&
	     status == 0) ||
	    !run_capture(unborn, NULL, NULL, &status, true, NULL) ||
	    status != 0 ||
	    !run_capture(empty, NULL, &out, &status, true, NULL) ||
	    status != 0) {
		g_free(out);
		return g_strdup(rev);
	}
	return g_strchomp(out);
}

/*
 * file -> array of [first, last] added line ranges, from `git diff -U0
 * REV` (with cached, `git diff --cached`: what a commit would add);
 * untracked files count as added in full, unless cached (a commit does
 * not take them).
 */
GHashTable *since_added_lines(const char *root, const char *rev,
			      bool cached, GError **error)
{
	char *base = since_base(root, rev);
	const char *diff_argv[] = { "git", "-C", root, "diff", "-U0",
				    "--no-color", "--no-ext-diff",
				    "--relative", cached ? "--cached" : base,
				    cached ? base : "--", cached ? "--" : NULL,
				    NULL };
	const char *others_argv[] = { "git", "-C", root, "ls-files", "-z",
				      "--others", "--exclude-standard", NULL };
	const char *opt = cached ? "--cached" : "--since";
	GHashTable *added;
	char *out = NULL, *err = NULL;
	int status = -1;
	char **lines;
	char *file = NULL;

	if (!run_capture_err(diff_argv, NULL, &out, &err, &status, error)) {
		g_free(base);
		return NULL;
	}
	if (status != 0) {
		/* git says best what is wrong: no such revision, not a
		 * repository, one owned by another user (safe.directory) */
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "%s %s: git diff failed in %s: %s", opt, rev, root,
			    err && *err ? err : "(no message)");
		g_free(out);
		g_free(err);
		g_free(base);
		return NULL;
	}
	g_free(err);
	g_free(base);
	added = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				      free_array);
	lines = g_strsplit(out, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (g_str_has_prefix(l, "+++ ")) {
			g_free(file);
			file = g_str_has_prefix(l, "+++ b/") ?
			       g_strdup(l + 6) : NULL;
		} else if (file && g_str_has_prefix(l, "@@ ")) {
			const char *plus = strstr(l, " +");
			unsigned long from, count = 1;
			char *end;

			if (!plus)
				continue;
			from = strtoul(plus + 2, &end, 10);
			if (*end == ',')
				count = strtoul(end + 1, NULL, 10);
			if (count)
				add_range(added, file, from, count);
		}
	}
	g_free(file);
	g_strfreev(lines);
	g_free(out);
	out = NULL;
	if (!cached &&
	    run_capture(others_argv, NULL, &out, &status, true, NULL) &&
	    status == 0) {
		for (const char *p = out; *p; p += strlen(p) + 1)
			add_range(added, p, 1, G_MAXUINT - 1);
	}
	g_free(out);
	return added;
}

/*
 * check --cached reads what is staged: the files whose work-tree text is
 * not the index's (edited since `git add`, or deleted) are read from the
 * index instead, and staged files missing from the work tree join the
 * list.  Everything else is the same in both.
 */
bool staged_view(struct tree *t, GPtrArray *files, GHashTable *added,
		 GError **error)
{
	const char *argv[] = { "git", "-C", t->root, "diff", "--name-only",
			       "-z", "--relative", "--no-ext-diff", NULL };
	GHashTable *listed = g_hash_table_new(g_str_hash, g_str_equal);
	char *out = NULL, *err = NULL;
	int status = -1;
	bool ok = false;

	if (!run_capture_err(argv, NULL, &out, &err, &status, error))
		goto out;
	if (status != 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "--cached: git diff failed in %s: %s", t->root,
			    err && *err ? err : "(no message)");
		goto out;
	}
	t->blobs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 (GDestroyNotify)g_bytes_unref);
	for (const char *p = out; *p; p += strlen(p) + 1) {
		char *spec = g_strdup_printf(":./%s", p);
		const char *show[] = { "git", "-C", t->root, "cat-file",
				       "blob", spec, NULL };
		char *blob = NULL;
		gsize n = 0;
		int st = -1;

		if (is_c_source(p) &&
		    run_capture_len(show, NULL, &blob, &n, &st, NULL) &&
		    st == 0)
			g_hash_table_insert(t->blobs, g_strdup(p),
					    g_bytes_new_take(blob, n));
		else
			g_free(blob);
		g_free(spec);
	}
	for (guint i = 0; i < files->len; i++)
		g_hash_table_add(listed, files->pdata[i]);
	/* staged, gone from the work tree: still committed */
	{
		GHashTableIter it;
		gpointer path;
		bool more = false;

		g_hash_table_iter_init(&it, added);
		while (g_hash_table_iter_next(&it, &path, NULL)) {
			if (!is_c_source(path) ||
			    g_hash_table_contains(listed, path) ||
			    !g_hash_table_contains(t->blobs, path))
				continue;
			g_ptr_array_add(files, g_strdup(path));
			more = true;
		}
		if (more)
			g_ptr_array_sort(files, cmp_strings);
	}
	ok = true;
out:
	g_hash_table_destroy(listed);
	g_free(out);
	g_free(err);
	return ok;
}

bool since_has_line(GHashTable *added, const char *file, unsigned int line)
{
	GArray *lines = g_hash_table_lookup(added, file);

	for (guint i = 0; lines && i < lines->len; i++) {
		unsigned int *r = &((unsigned int *)lines->data)[2 * i];

		if (line >= r[0] && line <= r[1])
			return true;
	}
	return false;
}
