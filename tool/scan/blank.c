// SPDX-License-Identifier: GPL-2.0
/*
 * Most functions of a driver have nothing to do with its timers, yet
 * spatch parses each of them and tries every rule on each: on the old-API
 * 6.12 tree that is most of a conversion's time.  The rules only ever
 * match where a function names the old or new API, a .data or .function
 * member, or a callback, so a body without any of those is blanked in the
 * copy spatch reads.
 *
 * Only the inside of the braces goes; the declarator stays, so that the
 * types spatch infers for calls of the function are the same.  A body with
 * a directive in it is kept whole: blanking part of an #if could change
 * what spatch makes of the rest of the file.
 */
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "blank.h"
#include "diff.h"
#include "env.h"

static const char *const not_functions[] = {
	"if", "for", "while", "switch", "return", "sizeof", NULL
};

static const char *const not_types[] = {
	"else", "return", "do", "case", "goto", NULL
};

/* A name a rule may match: today's or the old API, a member, a callback. */
static bool matters(const struct token *tok, const GPtrArray *names)
{
	if (tok->kind != TOK_IDENT)
		return false;
	if (TOK_IS(tok, "data") || TOK_IS(tok, "function") ||
	    api_holds_timer(tok->p, tok->len))
		return true;
	for (guint i = 0; names && i < names->len; i++)
		if (tok_is(tok, names->pdata[i], strlen(names->pdata[i])))
			return true;
	return false;
}

/* The '(' that the ')' at t[close] closes, or SIZE_MAX. */
static size_t open_paren(const struct token *t, size_t close)
{
	int depth = 0;

	for (size_t j = close + 1; j-- > 0;) {
		if (t[j].flags & TF_PP)
			return SIZE_MAX;
		if (tok_punct(&t[j], ')'))
			depth++;
		else if (tok_punct(&t[j], '(') && --depth == 0)
			return j;
	}
	return SIZE_MAX;
}

/*
 * Where the declarator starts (its name) if the '{' at t[i] opens a
 * function's body, `type name(...) {` with nothing between the ')' and
 * the '{'; else 0.
 */
static size_t body_of(const struct token *t, size_t i)
{
	size_t open;

	if (i < 3 || !tok_punct(&t[i - 1], ')') || t[i - 1].flags & TF_PP)
		return 0;
	open = open_paren(t, i - 1);
	if (open == SIZE_MAX || open < 2)
		return 0;
	if (t[open - 1].kind != TOK_IDENT ||
	    tok_in(&t[open - 1], not_functions))
		return 0;
	if (t[open - 2].flags & TF_PP)
		return 0;
	if (t[open - 2].kind == TOK_IDENT)
		return tok_in(&t[open - 2], not_types) ? 0 : open - 1;
	return tok_punct(&t[open - 2], '*') ? open - 1 : 0;
}

/*
 * The '}' that closes the body opened at t[i], if neither the function's
 * name, its parameters nor its body (t[name] on) holds a directive or a
 * name that matters: a callback's name is in its declarator; else 0.
 */
static size_t blank_end(const struct token *t, size_t n, size_t name,
			size_t i, const GPtrArray *names)
{
	int depth = 0;

	for (size_t j = name; j < i; j++)
		if (matters(&t[j], names))
			return 0;
	for (size_t j = i; j < n && t[j].kind != TOK_EOF; j++) {
		if (t[j].flags & TF_PP || matters(&t[j], names))
			return 0;
		if (tok_punct(&t[j], '{'))
			depth++;
		else if (tok_punct(&t[j], '}') && --depth == 0)
			return j;
	}
	return 0;
}

char *blank_bodies(const char *text, size_t len, const struct token *t,
		   size_t n, const GPtrArray *names, size_t *blanked)
{
	char *out = NULL;
	int depth = 0;

	*blanked = 0;
	for (size_t i = 0; i < n && t[i].kind != TOK_EOF; i++) {
		size_t name, close;

		if (t[i].flags & TF_PP || t[i].kind != TOK_PUNCT ||
		    t[i].len != 1)
			continue;
		if (t[i].p[0] == '}') {
			/* braces that #if branches leave unbalanced: stop */
			if (--depth < 0)
				break;
			continue;
		}
		if (t[i].p[0] != '{')
			continue;
		if (depth++ || !(name = body_of(t, i)))
			continue;
		close = blank_end(t, n, name, i, names);
		if (!close)
			continue;
		if (!out)
			out = g_memdup2(text, len);
		for (const char *p = t[i].p + 1; p < t[close].p; p++) {
			if (*p != '\n') {
				out[p - text] = ' ';
				(*blanked)++;
			}
		}
	}
	return out;
}

bool blank_wanted(const char *macro_file)
{
	return !macro_file && !env_no_blank();
}

char *blank_merge(const char *orig, size_t orig_len, const char *blanked,
		  size_t blanked_len, const char *result, size_t result_len,
		  size_t *out_len)
{
	struct lines o, b, r;
	GString *out = g_string_sized_new(result_len + orig_len / 8);
	GArray *ops;
	bool ok = true;

	lines_split(&o, orig, orig_len);
	lines_split(&b, blanked, blanked_len);
	lines_split(&r, result, result_len);
	ops = diff_lines(&b, &r);
	if (o.v->len != b.v->len)
		ok = false;
	for (guint i = 0; ok && i < ops->len; i++) {
		const struct dop *op = &g_array_index(ops, struct dop, i);
		const struct line *ol, *bl, *rl;

		switch (op->kind) {
		case DOP_EQUAL:
			ol = &g_array_index(o.v, struct line, op->a);
			g_string_append_len(out, ol->p, ol->len);
			g_string_append_c(out, '\n');
			break;
		case DOP_DELETE:
			/* a line blanking changed is not spatch's to drop */
			ol = &g_array_index(o.v, struct line, op->a);
			bl = &g_array_index(b.v, struct line, op->a);
			ok = ol->len == bl->len && !memcmp(ol->p, bl->p,
							   ol->len);
			break;
		case DOP_INSERT:
			rl = &g_array_index(r.v, struct line, op->b);
			g_string_append_len(out, rl->p, rl->len);
			g_string_append_c(out, '\n');
			break;
		}
	}
	if (ok && r.no_newline && out->len)
		g_string_truncate(out, out->len - 1);
	g_array_free(ops, TRUE);
	lines_clear(&o);
	lines_clear(&b);
	lines_clear(&r);
	if (!ok) {
		g_string_free(out, TRUE);
		return NULL;
	}
	*out_len = out->len;
	return g_string_free(out, FALSE);
}
