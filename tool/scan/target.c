// SPDX-License-Identifier: GPL-2.0
/*
 * API levels.  The names and the releases that changed them:
 *   v4.15  timer_setup(), from_timer() (pulled into v4.14-rc3, 686fef928bba)
 *   v6.2   timer_delete(), timer_delete_sync() (del_timer*() wrap them)
 *   v6.15  del_timer*() and destroy_timer_on_stack() gone
 *   v6.16  from_timer() renamed timer_container_of()
 */
#include <string.h>

#include "lexer.h"
#include "target.h"

static const struct {
	const char *old_name;
	const char *new_name;
	enum api_level gone;	/* first of our levels without old_name */
} renames[] = {
	{ "from_timer", "timer_container_of", LEVEL_6_16 },
	{ "del_timer", "timer_delete", LEVEL_6_16 },
	{ "del_timer_sync", "timer_delete_sync", LEVEL_6_16 },
	{ "destroy_timer_on_stack", "timer_destroy_on_stack", LEVEL_6_16 },
};

GHashTable *header_identifiers(const char *path)
{
	GHashTable *ids;
	struct lexer lx;
	struct token tok;
	char *data;
	gsize len;

	if (!g_file_get_contents(path, &data, &len, NULL))
		return NULL;
	ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	lexer_init(&lx, data, len);
	for (lexer_next(&lx, &tok); tok.kind != TOK_EOF;
	     lexer_next(&lx, &tok)) {
		if (tok.kind == TOK_IDENT)
			g_hash_table_add(ids, g_strndup(tok.p, tok.len));
	}
	g_free(data);
	return ids;
}

static bool parse_level(const char *spec, enum api_level *level)
{
	if (!strcmp(spec, "v4.15") || !strcmp(spec, "4.15"))
		*level = LEVEL_4_15;
	else if (!strcmp(spec, "v6.2") || !strcmp(spec, "6.2"))
		*level = LEVEL_6_2;
	else if (!strcmp(spec, "v6.16") || !strcmp(spec, "6.16"))
		*level = LEVEL_6_16;
	else
		return false;
	return true;
}

static char *find_header(const char *root, const char *kernel_headers,
			 const char *api_header)
{
	char *path;

	if (kernel_headers)
		return g_build_filename(kernel_headers, "include", "linux",
					"timer.h", NULL);
	if (api_header)
		return g_strdup(api_header);
	path = g_build_filename(root, "include", "linux", "timer.h", NULL);
	if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return path;
	g_free(path);
	return NULL;
}

static void from_level(struct target *tg)
{
	tg->container_of = tg->level >= LEVEL_6_16 ? "timer_container_of" :
						     "from_timer";
	for (size_t i = 0; i < G_N_ELEMENTS(renames); i++)
		if (tg->level >= renames[i].gone)
			g_hash_table_insert(tg->renames,
					    (gpointer)renames[i].old_name,
					    (gpointer)renames[i].new_name);
}

static void from_header(struct target *tg, GHashTable *ids)
{
	bool has_delete = g_hash_table_contains(ids, "timer_delete");

	tg->has_timer_setup = g_hash_table_contains(ids, "timer_setup");
	if (g_hash_table_contains(ids, "timer_container_of"))
		tg->level = LEVEL_6_16;
	else if (has_delete)
		tg->level = LEVEL_6_2;
	else if (tg->has_timer_setup)
		tg->level = LEVEL_4_15;
	else
		tg->level = LEVEL_OLD;
	tg->container_of = g_hash_table_contains(ids, "timer_container_of") ?
			   "timer_container_of" : "from_timer";
	for (size_t i = 0; i < G_N_ELEMENTS(renames); i++)
		if (!g_hash_table_contains(ids, renames[i].old_name) &&
		    g_hash_table_contains(ids, renames[i].new_name))
			g_hash_table_insert(tg->renames,
					    (gpointer)renames[i].old_name,
					    (gpointer)renames[i].new_name);
}

bool target_resolve(struct target *tg, const char *spec, const char *root,
		    const char *kernel_headers, const char *api_header,
		    GError **error)
{
	GHashTable *ids;

	memset(tg, 0, sizeof(*tg));
	tg->renames = g_hash_table_new(g_str_hash, g_str_equal);
	if (!spec)
		spec = "auto";
	if (strcmp(spec, "auto")) {
		if (!parse_level(spec, &tg->level)) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--target %s: expected auto, v4.15, v6.2 or v6.16",
				    spec);
			return false;
		}
		tg->has_timer_setup = true;
		from_level(tg);
		tg->note = g_strdup_printf("target %s (--target)",
					   api_level_name(tg->level));
		return true;
	}
	tg->is_auto = true;
	tg->header = find_header(root, kernel_headers, api_header);
	ids = tg->header ? header_identifiers(tg->header) : NULL;
	if (tg->header && !ids) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: cannot read the kernel's timer header",
			    tg->header);
		return false;
	}
	if (!ids) {
		tg->level = LEVEL_4_15;
		tg->has_timer_setup = true;
		from_level(tg);
		tg->note = g_strdup("target v4.15 (no include/linux/timer.h in the tree; use --kernel-headers or --target)");
		return true;
	}
	from_header(tg, ids);
	g_hash_table_destroy(ids);
	{
		/* name the header as the tree does: include/linux/timer.h */
		size_t n = strlen(root);
		const char *shown = tg->header;

		if (!kernel_headers && !strncmp(shown, root, n) &&
		    shown[n] == '/')
			shown += n + 1;
		tg->note = g_strdup_printf("target %s (auto, from %s)",
					   api_level_name(tg->level), shown);
	}
	return true;
}

void target_free(struct target *tg)
{
	g_free(tg->header);
	g_free(tg->note);
	if (tg->renames)
		g_hash_table_destroy(tg->renames);
	memset(tg, 0, sizeof(*tg));
}
