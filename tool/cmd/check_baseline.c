// SPDX-License-Identifier: GPL-2.0
/*
 * Baselines (findings accepted today, matched by a fingerprint that does
 * not move with line numbers) and --since (only lines a change added).
 */
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gitutil.h"
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

		if (f->note)
			continue;
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "fingerprint");
		json_builder_add_string_value(b, f->fingerprint);
		json_builder_set_member_name(b, "file");
		json_builder_add_string_value(b, f->file);
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
	JsonParser *parser = json_parser_new();
	GHashTable *fps = NULL;

	if (json_parser_load_from_file(parser, path, error))
		fps = baseline_from(parser, path, error);
	g_object_unref(parser);
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
 * file -> array of [first, last] added line ranges, from `git diff -U0
 * REV`; untracked files count as added in full.
 */
GHashTable *since_added_lines(const char *root, const char *rev,
			      GError **error)
{
	GHashTable *added;
	char *out = NULL;
	char **lines;
	char *file = NULL;

	if (!git_run(root, &out, NULL, "diff", "-U0", "--no-color",
		     "--no-ext-diff", "--relative", rev, "--", NULL)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "--since %s: git diff failed in %s (not a git repository, or no such revision)",
			    rev, root);
		return NULL;
	}
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
	if (git_run(root, &out, NULL, "ls-files", "-z", "--others",
		    "--exclude-standard", NULL)) {
		for (const char *p = out; *p; p += strlen(p) + 1)
			add_range(added, p, 1, G_MAXUINT - 1);
	}
	g_free(out);
	return added;
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
