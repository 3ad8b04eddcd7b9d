// SPDX-License-Identifier: GPL-2.0
/*
 * The refusal reasons: what the summary, the JSON report and the cover
 * letter say of every site left alone.  Users sort and grep them, so they
 * change only on purpose, and each reads as one clean phrase.
 *
 * tool/lib/reasons.h is the table: one REASON_* macro a reason (a printf
 * format where parts vary).  These tests read it, and the sources, with
 * the tool's own lexer:
 *   - every entry is well formed (the rules in check_format());
 *   - every reason the sources can emit is an entry, and every entry is
 *     emitted somewhere (as its text or by its REASON_* name), so the
 *     table is the whole list, no more;
 *   - the places reasons come from (PRODUCERS below) are all still there,
 *     so a rename cannot make the scan find nothing and pass.
 * A reason is a string literal in one of these places:
 *   - the reason argument of unit_refuse(), site_refuse(), poison(),
 *     verify.c's refuse() and keep.c's refuse();
 *   - a `return` of a function whose name ends in _reason, and of
 *     form_missing() and check_field(), which return one;
 *   - the value assigned to a plain `why` or to any `compat_why`.
 * Adding a reason: add its REASON_* line to reasons.h (HACKING.md).
 */
#include "lexer.h"
#include "tree.h"
#include "unit.h"

/* A reason spelled in the table or found in a source. */
struct reason {
	char *name;		/* REASON_X, or where it was found */
	char *text;
	bool used;
};

static void reason_free(gpointer p)
{
	struct reason *r = p;

	g_free(r->name);
	g_free(r->text);
	g_free(r);
}

/* Calls whose argument number `arg` (from 1) is a reason, in any file
 * or, for a file's own static helper, in that file. */
static const struct {
	const char *name;
	int arg;
	const char *file;
} calls[] = {
	{ "unit_refuse", 3 },
	{ "site_refuse", 2 },
	{ "poison", 3 },
	{ "refuse", 4, "build/verify.c" },
	{ "refuse", 3, "plan/keep.c" },
};

/* Functions, besides *_reason(), that return a reason. */
static const char *const returners[] = { "form_missing", "check_field" };

/*
 * Formats that only join other reasons: unit_refuse(u, at, "%s", why)
 * passes one on, verify.c's "%s: %s" puts the compiler's message after
 * its own reason.
 */
static const char *const pass_through[] = { "%s", "%s: %s" };

/* The text of the string literals t[i], t[i + 1]..., joined; *end: the
 * token after them. */
static char *literal(const struct token *t, size_t n, size_t i, size_t *end)
{
	GString *s = g_string_new(NULL);

	for (; i < n && t[i].kind == TOK_STRING; i++) {
		for (unsigned int k = 1; k + 1 < t[i].len; k++) {
			char c = t[i].p[k];

			if (c == '\\' && k + 2 < t[i].len) {
				c = t[i].p[++k];
				c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
			}
			g_string_append_c(s, c);
		}
	}
	*end = i;
	return g_string_free(s, FALSE);
}

static void add_literals(GPtrArray *out, const char *file,
			 const struct token *t, size_t n, size_t from,
			 size_t to)
{
	for (size_t i = from; i < to && i < n;) {
		struct reason *r;
		size_t end;

		if (t[i].kind != TOK_STRING) {
			i++;
			continue;
		}
		r = g_new0(struct reason, 1);
		r->name = g_strdup_printf("%s:%u", file, t[i].line);
		r->text = literal(t, n, i, &end);
		g_ptr_array_add(out, r);
		i = end;
	}
}

/* The tokens of argument `arg` of the call whose '(' is t[open]. */
static bool call_arg(const struct token *t, size_t n, size_t open, int arg,
		     size_t *from, size_t *to)
{
	size_t close = tok_match_close(t, n, open);
	int depth = 0, k = 1;

	*from = open + 1;
	for (size_t i = open + 1; i < close && i < n; i++) {
		if (tok_punct(&t[i], '(') || tok_punct(&t[i], '[') ||
		    tok_punct(&t[i], '{'))
			depth++;
		else if (tok_punct(&t[i], ')') || tok_punct(&t[i], ']') ||
			 tok_punct(&t[i], '}'))
			depth--;
		else if (!depth && tok_punct(&t[i], ',')) {
			if (k == arg) {
				*to = i;
				return true;
			}
			k++;
			*from = i + 1;
		}
	}
	*to = close;
	return k == arg;
}

static bool returns_reason(const struct token *t)
{
	char *name = g_strndup(t->p, t->len);
	bool res = g_str_has_suffix(name, "_reason");

	for (size_t i = 0; i < G_N_ELEMENTS(returners); i++)
		res |= !strcmp(name, returners[i]);
	g_free(name);
	return res;
}

/* The literals of `return ...;` in the function body t[open..close]. */
static void returned(GPtrArray *out, const char *file, const struct token *t,
		     size_t n, size_t open, size_t close)
{
	for (size_t i = open; i < close; i++) {
		size_t end = i;

		if (!TOK_IS(&t[i], "return"))
			continue;
		while (end < close && !tok_punct(&t[end], ';'))
			end++;
		add_literals(out, file, t, n, i + 1, end);
		i = end;
	}
}

static bool assigns_reason(const struct token *t, size_t i)
{
	if (!tok_punct(&t[i + 1], '='))
		return false;
	if (TOK_IS(&t[i], "compat_why"))
		return true;
	/* a plain why, not a member (kbuild's d->why is no reason) */
	return TOK_IS(&t[i], "why") && i > 0 && !TOK_IS(&t[i - 1], "->") &&
	       !tok_punct(&t[i - 1], '.');
}

/*
 * Every reason one source file can emit; counts[] the producers seen;
 * macros: the REASON_* names it uses.
 */
static void scan_source(const char *file, const char *text, size_t len,
			GPtrArray *out, guint *counts, guint *defs,
			GHashTable *macros)
{
	size_t n;
	struct token *t = lex_all(text, len, &n);

	for (size_t i = 0; i + 1 < n; i++) {
		size_t from, to, end;

		if (t[i].kind != TOK_IDENT || (t[i].flags & TF_PP))
			continue;
		if (t[i].len > 7 && !strncmp(t[i].p, "REASON_", 7))
			g_hash_table_add(macros, g_strndup(t[i].p, t[i].len));
		if (assigns_reason(t, i)) {
			for (end = i; end < n && !tok_punct(&t[end], ';');)
				end++;
			add_literals(out, file, t, n, i + 2, end);
			continue;
		}
		if (!tok_punct(&t[i + 1], '('))
			continue;
		end = tok_match_close(t, n, i + 1);
		if (returns_reason(&t[i]) && end + 1 < n &&
		    tok_punct(&t[end + 1], '{')) {
			(*defs)++;
			returned(out, file, t, n, end + 1,
				 tok_match_close(t, n, end + 1));
			continue;
		}
		for (size_t c = 0; c < G_N_ELEMENTS(calls); c++) {
			if (!tok_is(&t[i], calls[c].name,
				    strlen(calls[c].name)) ||
			    (calls[c].file && strcmp(calls[c].file, file)))
				continue;
			counts[c]++;
			if (call_arg(t, n, i + 1, calls[c].arg, &from, &to))
				add_literals(out, file, t, n, from, to);
		}
	}
	g_free(t);
}

static bool any_c(const char *name)
{
	return g_str_has_suffix(name, ".c");
}

/* Every reason tool/ can emit, by where it is; the rest as
 * scan_source(). */
static GPtrArray *source_reasons(guint *counts, guint *defs,
				 GHashTable *macros)
{
	static const struct walk_rules sources = { .want = any_c };
	GPtrArray *out = g_ptr_array_new_with_free_func(reason_free);
	GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
	char *tool = unit_source("tool");

	dir_walk(tool, "", &sources, files);
	g_assert_cmpuint(files->len, >, 20);
	for (guint i = 0; i < files->len; i++) {
		char *path = g_build_filename(tool, files->pdata[i], NULL);
		GError *error = NULL;
		char *text;
		gsize len;

		g_file_get_contents(path, &text, &len, &error);
		g_assert_no_error(error);
		scan_source(files->pdata[i], text, len, out, counts, defs,
			    macros);
		g_free(text);
		g_free(path);
	}
	g_ptr_array_free(files, TRUE);
	g_free(tool);
	return out;
}

/* The table: every #define REASON_X "..." of tool/lib/reasons.h. */
static GPtrArray *table(void)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(reason_free);
	char *path = unit_source("tool/lib/reasons.h");
	GError *error = NULL;
	struct token *t;
	char *text;
	gsize len;
	size_t n;

	g_file_get_contents(path, &text, &len, &error);
	g_assert_no_error(error);
	t = lex_all(text, len, &n);
	for (size_t i = 1; i + 2 < n; i++) {
		struct reason *r;
		size_t end;

		if (t[i].pp != PP_DEFINE || !TOK_IS(&t[i], "define") ||
		    t[i + 1].len < 8 || strncmp(t[i + 1].p, "REASON_", 7))
			continue;
		r = g_new0(struct reason, 1);
		r->name = g_strndup(t[i + 1].p, t[i + 1].len);
		r->text = literal(t, n, i + 2, &end);
		/* one string, nothing else */
		g_assert_cmpint(t[end].kind, ==, TOK_PP_END);
		g_assert_cmpuint(end, >, i + 2);
		g_ptr_array_add(out, r);
	}
	g_free(t);
	g_free(text);
	g_free(path);
	return out;
}

/* Why fmt is not a well-formed reason, or NULL. */
static const char *check_format(const char *fmt)
{
	size_t len = strlen(fmt);
	const char *first_end = strchr(fmt, ' ');
	int parens = 0, brackets = 0;
	char *first;
	bool code;

	if (!len)
		return "empty";
	if (fmt[0] == ' ' || fmt[len - 1] == ' ')
		return "a blank at an end";
	if (strstr(fmt, "  "))
		return "two blanks in a row";
	if (strpbrk(fmt, "\n\t\r"))
		return "a newline or a tab";
	if (strchr(".:;,", fmt[len - 1]))
		return "punctuation at the end (a reason is a phrase)";
	for (const char *p = fmt; *p; p++) {
		if (*p == '%' && p[1] != 's')
			return "a conversion other than %s";
		parens += (*p == '(') - (*p == ')');
		brackets += (*p == '[') - (*p == ']');
		if (parens < 0 || brackets < 0)
			return "a bracket closed before it opened";
	}
	if (parens || brackets)
		return "a bracket left open";
	/* lower case, unless it starts with a name from the code:
	 * "DEFINE_TIMER() here ...", "%s() uses ...", "--keep-data: ..." */
	first = g_strndup(fmt, first_end ? (size_t)(first_end - fmt) : len);
	code = strchr(first, '(') || strchr(first, '_') || fmt[0] == '%' ||
	       fmt[0] == '.' || g_str_has_prefix(fmt, "--");
	for (const char *p = first; !code && *p; p++)
		code = g_ascii_isupper(*p) && p[1] && g_ascii_isupper(p[1]);
	g_free(first);
	if (!code && !g_ascii_islower(fmt[0]))
		return "starts with a capital (a reason follows a colon)";
	return NULL;
}

static void test_check_format_catches_stray_formatting(void)
{
	static const char *const bad[] = {
		"", " lead", "trail ", "two  blanks", "line\nbreak",
		"ends with a period.", "ends with a colon:", "Capital letter",
		"width %d", "unbalanced (paren", "unbalanced paren)",
		"])([",
	};
	static const char *const good[] = {
		"callback uses data more than once",
		"DEFINE_TIMER() here would name %s() before anything declares it",
		"%s() uses its data but init_timer() here sets no .data",
		"dead code (#if 0)",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		g_assert_nonnull(check_format(bad[i]));
	for (size_t i = 0; i < G_N_ELEMENTS(good); i++)
		g_assert_null(check_format(good[i]));
}

static void test_table_is_well_formed(void)
{
	GPtrArray *tab = table();
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);

	g_assert_cmpuint(tab->len, >, 0);
	for (guint i = 0; i < tab->len; i++) {
		struct reason *r = tab->pdata[i];
		const char *why = check_format(r->text);

		if (why)
			g_test_message("%s \"%s\": %s", r->name, r->text, why);
		g_assert_null(why);
		/* one entry a reason, one name an entry */
		g_assert_false(g_hash_table_contains(seen, r->text));
		g_assert_false(g_hash_table_contains(seen, r->name));
		g_hash_table_add(seen, r->text);
		g_hash_table_add(seen, r->name);
	}
	g_hash_table_destroy(seen);
	g_ptr_array_free(tab, TRUE);
}

static bool passes_through(const char *text)
{
	for (size_t i = 0; i < G_N_ELEMENTS(pass_through); i++)
		if (!strcmp(text, pass_through[i]))
			return true;
	return false;
}

static void test_sources_emit_the_table_no_more_no_less(void)
{
	guint counts[G_N_ELEMENTS(calls)] = { 0 };
	guint defs = 0;
	GHashTable *macros = g_hash_table_new_full(g_str_hash, g_str_equal,
						   g_free, NULL);
	GPtrArray *tab = table();
	GPtrArray *found = source_reasons(counts, &defs, macros);
	GHashTable *by_text = g_hash_table_new(g_str_hash, g_str_equal);
	guint missing = 0, unused = 0;

	for (guint i = 0; i < tab->len; i++) {
		struct reason *r = tab->pdata[i];

		g_hash_table_insert(by_text, r->text, r);
		/* a call site that uses the macro emits it too */
		r->used = g_hash_table_contains(macros, r->name);
	}
	for (guint i = 0; i < found->len; i++) {
		struct reason *f = found->pdata[i];
		struct reason *r = g_hash_table_lookup(by_text, f->text);

		if (r)
			r->used = true;
		else if (!passes_through(f->text)) {
			g_test_message("%s: \"%s\" is not in tool/lib/reasons.h",
				       f->name, f->text);
			missing++;
		}
	}
	for (guint i = 0; i < tab->len; i++) {
		struct reason *r = tab->pdata[i];

		if (!r->used) {
			g_test_message("%s \"%s\" is emitted nowhere", r->name,
				       r->text);
			unused++;
		}
	}
	g_assert_cmpuint(missing, ==, 0);
	g_assert_cmpuint(unused, ==, 0);
	/* the scan saw every kind of place a reason comes from */
	for (size_t c = 0; c < G_N_ELEMENTS(calls); c++) {
		g_test_message("%s(): %u calls%s%s", calls[c].name, counts[c],
			       calls[c].file ? " in " : "",
			       calls[c].file ? calls[c].file : "");
		g_assert_cmpuint(counts[c], >, 0);
	}
	g_assert_cmpuint(defs, >=, 4 + G_N_ELEMENTS(returners));
	g_hash_table_destroy(by_text);
	g_hash_table_destroy(macros);
	g_ptr_array_free(found, TRUE);
	g_ptr_array_free(tab, TRUE);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/reasons/check-format-catches-stray-formatting",
			test_check_format_catches_stray_formatting);
	g_test_add_func("/reasons/table-is-well-formed",
			test_table_is_well_formed);
	g_test_add_func("/reasons/sources-emit-the-table-no-more-no-less",
			test_sources_emit_the_table_no_more_no_less);
	return g_test_run();
}
