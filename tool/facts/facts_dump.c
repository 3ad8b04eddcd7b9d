// SPDX-License-Identifier: GPL-2.0
/*
 * The planner's fuzz seeds, recorded from a real run (facts_dump.h): the
 * fuzz target needs the facts spatch gives on real code, and spatch is far
 * too slow to run under the fuzzer.
 */
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "facts_dump.h"
#include "treescan.h"

/* A seed bigger than this is left out: the fuzzer's inputs stay small. */
#define MAX_SEED (32 * 1024)
/* Files of a seed at most; more share names only by accident. */
#define MAX_FILES 8
/* Headers bigger than this are not added for their structs. */
#define MAX_HEADER (16 * 1024)

static guint uf_find(GArray *parent, guint i)
{
	while (g_array_index(parent, guint, i) != i)
		i = g_array_index(parent, guint, i);
	return i;
}

/* Each record line with its "file" made the cfile's path. */
static void add_records(GString *out, const char *lines, const char *path)
{
	JsonParser *parser = json_parser_new();

	for (const char *line = lines; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		JsonNode *root;

		if (g_str_has_prefix(line, "TIMERCONV ") &&
		    json_parser_load_from_data(parser, line + 10,
					       (gssize)len - 10, NULL) &&
		    (root = json_parser_get_root(parser)) &&
		    JSON_NODE_HOLDS_OBJECT(root)) {
			char *text;

			json_object_set_string_member(
				json_node_get_object(root), "file", path);
			text = json_to_string(root, FALSE);
			g_string_append_printf(out, "#rec %s\n", text);
			g_free(text);
		}
		line = end ? end + 1 : NULL;
	}
	g_object_unref(parser);
}

static void add_text(GString *out, const char *path, const char *flags,
		     const char *text, size_t len)
{
	g_string_append_printf(out, "#file %s %s\n", path, flags);
	g_string_append_len(out, text, (gssize)len);
	if (len && text[len - 1] != '\n')
		g_string_append_c(out, '\n');
}

/* The quoted includes of f that the tree has, for their structs. */
static void add_headers(GString *out, struct conversion *cv, struct cfile *f,
			GHashTable *done)
{
	for (guint i = 0; f->scan && i < f->scan->includes->len; i++) {
		const char *inc = f->scan->includes->pdata[i];
		char *dir = g_path_get_dirname(f->path);
		char *joined = g_build_filename(dir, inc, NULL);
		char *rel = path_normalize(joined);
		char *text = NULL;
		size_t len = 0;

		g_free(dir);
		g_free(joined);
		if (!g_hash_table_contains(done, rel) && !conv_file(cv, rel))
			text = tree_read(cv->tree, rel, &len, NULL);
		if (text && len <= MAX_HEADER) {
			add_text(out, rel, "idx", text, len);
			g_hash_table_add(done, rel);
			rel = NULL;
		}
		g_free(text);
		g_free(rel);
	}
}

static void write_seed(const char *dir, GString *seed)
{
	char *sum, *path;

	if (seed->len > MAX_SEED)
		return;
	sum = g_compute_checksum_for_string(G_CHECKSUM_SHA1, seed->str,
					    (gssize)seed->len);
	path = g_strdup_printf("%s/plan-%s", dir, sum);
	g_file_set_contents(path, seed->str, (gssize)seed->len, NULL);
	g_free(path);
	g_free(sum);
}

void facts_dump(const char *dir, struct conversion *cv, bool paths,
		GPtrArray *files, GPtrArray *records)
{
	GHashTable *rec_of = g_hash_table_new(NULL, NULL);
	GHashTable *first = g_hash_table_new(g_str_hash, g_str_equal);
	GArray *parent = g_array_new(FALSE, FALSE, sizeof(guint));
	guint n = cv->files->len;

	g_mkdir_with_parents(dir, 0755);
	for (guint i = 0; i < files->len; i++)
		g_hash_table_insert(rec_of, files->pdata[i], records->pdata[i]);
	/* files that name the same callbacks go together */
	for (guint i = 0; i < n; i++) {
		struct cfile *f = cv->files->pdata[i];

		g_array_append_val(parent, i);
		for (guint k = 0; k < f->cb_names->len; k++) {
			char *name = f->cb_names->pdata[k];
			gpointer j;

			if (g_hash_table_lookup_extended(first, name, NULL, &j))
				g_array_index(parent, guint,
					uf_find(parent, GPOINTER_TO_UINT(j))) =
					uf_find(parent, i);
			else
				g_hash_table_insert(first, name,
						    GUINT_TO_POINTER(i));
		}
	}
	for (guint root = 0; root < n; root++) {
		GHashTable *done = g_hash_table_new_full(g_str_hash,
							 g_str_equal, g_free,
							 NULL);
		GString *seed = g_string_new(NULL);
		guint count = 0;

		if (uf_find(parent, root) != root)
			continue;
		g_string_append_printf(seed, "#plan %s%s\n",
				       api_level_name(cv->target->level),
				       paths ? " paths" : "");
		for (guint i = 0; i < n; i++) {
			struct cfile *f = cv->files->pdata[i];

			if (uf_find(parent, i) != root || f->is_new)
				continue;
			if (count++ == MAX_FILES) {
				write_seed(dir, seed);
				g_string_truncate(seed, 0);
				g_string_append_printf(seed, "#plan %s%s\n",
					api_level_name(cv->target->level),
					paths ? " paths" : "");
				count = 1;
			}
			add_text(seed, f->path, f->spatch_error ? "failed" :
				 f->in_scope ? "in" : "out", f->text, f->len);
			add_records(seed, g_hash_table_lookup(rec_of, f),
				    f->path);
			add_headers(seed, cv, f, done);
		}
		write_seed(dir, seed);
		g_string_free(seed, TRUE);
		g_hash_table_destroy(done);
	}
	g_array_free(parent, TRUE);
	g_hash_table_destroy(first);
	g_hash_table_destroy(rec_of);
}
