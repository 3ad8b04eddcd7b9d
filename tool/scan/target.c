// SPDX-License-Identifier: GPL-2.0
/*
 * API levels.  The names and the releases that changed them:
 *   v4.14  timer_setup(), from_timer() (pulled into v4.14-rc3, 686fef928bba)
 *          beside the old DEFINE_TIMER(), TIMER_INITIALIZER() and
 *          .function type: v4.15's forms came in v4.15-rc1
 *   v4.15  timer_setup_on_stack(), DEFINE_TIMER(name, fn), callbacks
 *          stored as void (*)(struct timer_list *)
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

static GHashTable *identifiers_of(const struct token *t, size_t n)
{
	GHashTable *ids = g_hash_table_new_full(g_str_hash, g_str_equal,
						g_free, NULL);

	for (size_t i = 0; i < n; i++)
		if (t[i].kind == TOK_IDENT)
			g_hash_table_add(ids, g_strndup(t[i].p, t[i].len));
	return ids;
}

GHashTable *header_identifiers(const char *path)
{
	GHashTable *ids;
	struct token *t;
	size_t n;
	char *data;
	gsize len;

	if (!g_file_get_contents(path, &data, &len, NULL))
		return NULL;
	t = lex_all(data, len, &n);
	ids = identifiers_of(t, n);
	g_free(t);
	g_free(data);
	return ids;
}

/* How many parameters `#define name(...)` takes; -1 if it is not one. */
static int macro_arity(const struct token *t, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i + 2 < n; i++) {
		int args = 1;

		if (t[i].pp != PP_DEFINE || (t[i].flags & TF_DEFINE_BODY) ||
		    !tok_is(&t[i], name, len) || !tok_punct(&t[i + 1], '(') ||
		    t[i + 1].p != t[i].p + t[i].len)
			continue;
		for (size_t k = i + 2; k < n && t[k].kind != TOK_PP_END; k++) {
			if (tok_punct(&t[k], ')'))
				return tok_punct(&t[k - 1], '(') ? 0 : args;
			if (tok_punct(&t[k], ','))
				args++;
		}
		return -1;
	}
	return -1;
}

/*
 * Does struct timer_list's `function` member take unsigned long (v4.14
 * and before) or the timer (v4.15 on)?  *known: the header says.
 */
static bool function_takes_ulong(const struct token *t, size_t n,
				 bool *known)
{
	*known = false;
	for (size_t i = 0; i + 2 < n; i++) {
		size_t end;

		if (!TOK_IS(&t[i], "struct") || !TOK_IS(&t[i + 1], "timer_list") ||
		    !tok_punct(&t[i + 2], '{') || (t[i].flags & TF_PP))
			continue;
		end = tok_match_close(t, n, i + 2);
		for (size_t k = i + 3; k + 4 < end; k++) {
			size_t close;
			bool ulong = false, timer = false;

			if (!tok_punct(&t[k], '(') || !tok_punct(&t[k + 1], '*') ||
			    !TOK_IS(&t[k + 2], "function") ||
			    !tok_punct(&t[k + 3], ')') ||
			    !tok_punct(&t[k + 4], '('))
				continue;
			close = tok_match_close(t, n, k + 4);
			for (size_t a = k + 5; a < close && a < n; a++) {
				ulong |= TOK_IS(&t[a], "long") ||
					 TOK_IS(&t[a], "TIMER_DATA_TYPE");
				timer |= TOK_IS(&t[a], "timer_list");
			}
			*known = ulong != timer;
			return ulong && !timer;
		}
		return false;
	}
	return false;
}

/* The forms of a named level, as that release's timer.h defines them. */
static void forms_of_level(enum api_level level, struct target_forms *f)
{
	bool v415 = level >= LEVEL_4_15;

	memset(f, 0, sizeof(*f));
	f->timer_setup = level >= LEVEL_4_14;
	f->setup_on_stack = v415;
	f->define_short = v415;
	f->initializer_short = v415;
	f->function_ulong = !v415;
	/* gone again by v4.16; only v4.14's casts need them */
	f->func_type = level == LEVEL_4_14;
}

static void forms_of_header(struct target *tg, const struct token *t,
			    size_t n, GHashTable *ids)
{
	struct target_forms *f = &tg->forms;
	int define = macro_arity(t, n, "DEFINE_TIMER");
	int initializer = macro_arity(t, n, "__TIMER_INITIALIZER");
	bool known;

	f->timer_setup = g_hash_table_contains(ids, "timer_setup");
	f->setup_on_stack = g_hash_table_contains(ids, "timer_setup_on_stack");
	f->func_type = g_hash_table_contains(ids, "TIMER_FUNC_TYPE") &&
		       g_hash_table_contains(ids, "TIMER_DATA_TYPE");
	f->function_ulong = function_takes_ulong(t, n, &known);
	/* a header that does not say: what its other forms imply */
	if (!known)
		f->function_ulong = !f->setup_on_stack;
	f->define_short = define >= 0 ? define == 2 : !f->function_ulong;
	f->initializer_short = initializer >= 0 ? initializer == 2 :
						  f->define_short;
}

static bool parse_level(const char *spec, enum api_level *level)
{
	if (!strcmp(spec, "v4.14") || !strcmp(spec, "4.14"))
		*level = LEVEL_4_14;
	else if (!strcmp(spec, "v4.15") || !strcmp(spec, "4.15"))
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
	forms_of_level(tg->level, &tg->forms);
	tg->container_of = tg->level >= LEVEL_6_16 ? "timer_container_of" :
						     "from_timer";
	for (size_t i = 0; i < G_N_ELEMENTS(renames); i++)
		if (tg->level >= renames[i].gone)
			g_hash_table_insert(tg->renames,
					    (gpointer)renames[i].old_name,
					    (gpointer)renames[i].new_name);
}

static void from_header(struct target *tg, const struct token *t, size_t n,
			GHashTable *ids)
{
	bool has_delete = g_hash_table_contains(ids, "timer_delete");

	forms_of_header(tg, t, n, ids);
	tg->has_timer_setup = tg->forms.timer_setup;
	if (g_hash_table_contains(ids, "timer_container_of"))
		tg->level = LEVEL_6_16;
	else if (has_delete)
		tg->level = LEVEL_6_2;
	else if (tg->has_timer_setup && !tg->forms.function_ulong)
		tg->level = LEVEL_4_15;
	else if (tg->has_timer_setup)
		tg->level = LEVEL_4_14;
	else
		tg->level = LEVEL_OLD;
	/* A tree without timer_setup() gets v4.15's forms (and a warning),
	 * unless --compat-header brings the API along (target_use_compat). */
	if (tg->level == LEVEL_OLD)
		forms_of_level(LEVEL_4_15, &tg->forms);
	tg->container_of = g_hash_table_contains(ids, "timer_container_of") ?
			   "timer_container_of" : "from_timer";
	for (size_t i = 0; i < G_N_ELEMENTS(renames); i++)
		if (!g_hash_table_contains(ids, renames[i].old_name) &&
		    g_hash_table_contains(ids, renames[i].new_name))
			g_hash_table_insert(tg->renames,
					    (gpointer)renames[i].old_name,
					    (gpointer)renames[i].new_name);
}

/* The header named as the tree does: include/linux/timer.h. */
static const char *shown_header(const char *root, const char *header)
{
	size_t n = strlen(root);

	if (!strncmp(header, root, n) && header[n] == '/')
		header += n + 1;
	while (g_str_has_prefix(header, "./"))
		header += 2;
	return header;
}

bool target_resolve(struct target *tg, const char *spec, const char *root,
		    const char *kernel_headers, const char *api_header,
		    GError **error)
{
	GHashTable *ids;
	struct token *t;
	char *text;
	size_t n;
	gsize len;

	memset(tg, 0, sizeof(*tg));
	tg->renames = g_hash_table_new(g_str_hash, g_str_equal);
	if (!spec)
		spec = "auto";
	if (strcmp(spec, "auto")) {
		if (!parse_level(spec, &tg->level)) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--target %s: expected auto, v4.14, v4.15, v6.2 or v6.16",
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
	if (tg->header &&
	    !g_file_get_contents(tg->header, &text, &len, NULL)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s: cannot read the kernel's timer header",
			    tg->header);
		return false;
	}
	if (!tg->header) {
		tg->level = LEVEL_4_15;
		tg->has_timer_setup = true;
		from_level(tg);
		tg->note = g_strdup("target v4.15 (no include/linux/timer.h in the tree; use --kernel-headers or --target)");
		return true;
	}
	t = lex_all(text, len, &n);
	ids = identifiers_of(t, n);
	from_header(tg, t, n, ids);
	g_hash_table_destroy(ids);
	g_free(t);
	g_free(text);
	tg->note = g_strdup_printf("target %s (auto, from %s)",
				   api_level_name(tg->level),
				   kernel_headers ? tg->header :
				   shown_header(root, tg->header));
	return true;
}

void target_use_compat(struct target *tg)
{
	struct target_forms *f = &tg->forms;

	f->timer_setup = true;
	f->setup_on_stack = true;
	f->define_short = true;
	/* nothing spells a static initialiser for both sides of v4.15 */
	f->initializer_short = false;
	f->func_type = true;
	f->function_ulong = true;
	f->compat = true;
}

void target_free(struct target *tg)
{
	g_free(tg->header);
	g_free(tg->note);
	if (tg->renames)
		g_hash_table_destroy(tg->renames);
	memset(tg, 0, sizeof(*tg));
}
