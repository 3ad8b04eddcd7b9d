// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "expr.h"
#include "lexer.h"

static void free_seg(gpointer p)
{
	struct seg *s = p;

	g_free(s->name);
	g_free(s->index);
	g_free(s);
}

void chain_clear(struct chain *c)
{
	g_free(c->base);
	if (c->segs)
		g_ptr_array_free(c->segs, TRUE);
	memset(c, 0, sizeof(*c));
}

static bool const_index(const struct token *t, size_t from, size_t to)
{
	if (to != from + 1)
		return false;
	if (t[from].kind == TOK_NUMBER)
		return true;
	if (t[from].kind != TOK_IDENT)
		return false;
	/* FOO_IDX: an enum or macro constant by kernel convention */
	for (unsigned int i = 0; i < t[from].len; i++)
		if (g_ascii_islower(t[from].p[i]))
			return false;
	return true;
}

static char *join(const struct token *t, size_t from, size_t to)
{
	GString *s = g_string_new(NULL);

	for (size_t i = from; i < to; i++)
		g_string_append_len(s, t[i].p, t[i].len);
	return g_string_free(s, FALSE);
}

/* Names, numbers and commas only: priv(dev), ports[i], regs(bus, 2). */
static bool simple_args(const struct token *t, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (t[i].kind != TOK_IDENT && t[i].kind != TOK_NUMBER &&
		    !tok_punct(&t[i], ','))
			return false;
	return true;
}

bool chain_parse(const char *text, struct chain *c)
{
	size_t n;
	struct token *t = lex_all(text, strlen(text), &n);
	size_t i = 0;
	bool ok = false;

	memset(c, 0, sizeof(*c));
	c->segs = g_ptr_array_new_with_free_func(free_seg);
	n--;	/* the EOF token */
	/* (&p->t): parentheses around the whole thing */
	while (n >= 2 && tok_punct(&t[i], '(') && tok_punct(&t[n - 1], ')') &&
	       tok_match_close(t, n, i) == n - 1) {
		i++;
		n--;
	}
	if (i < n && tok_punct(&t[i], '&')) {
		c->addr = true;
		i++;
	}
	if (i >= n || t[i].kind != TOK_IDENT)
		goto out;
	/* priv(dev)->timer, ports[i].timer: an accessor or an element as
	 * the base, kept whole as its text */
	if (i + 1 < n && (tok_punct(&t[i + 1], '(') ||
			  tok_punct(&t[i + 1], '['))) {
		size_t close = tok_match_close(t, n, i + 1);

		if (close >= n || !simple_args(t, i + 2, close))
			goto out;
		c->base = join(t, i, close + 1);
		c->base_opaque = true;
		i = close + 1;
	} else {
		c->base = g_strndup(t[i].p, t[i].len);
		i++;
	}
	while (i < n) {
		struct seg *s;

		if (tok_punct(&t[i], '[') && c->segs->len) {
			size_t close = tok_match_close(t, n, i);
			struct seg *last = c->segs->pdata[c->segs->len - 1];

			if (close >= n || last->index)
				goto out;
			last->index = join(t, i + 1, close);
			last->index_const = const_index(t, i + 1, close);
			i = close + 1;
			continue;
		}
		if (!(TOK_IS(&t[i], "->") || tok_punct(&t[i], '.')) ||
		    i + 1 >= n || t[i + 1].kind != TOK_IDENT)
			goto out;
		s = g_new0(struct seg, 1);
		s->arrow = TOK_IS(&t[i], "->");
		s->name = g_strndup(t[i + 1].p, t[i + 1].len);
		g_ptr_array_add(c->segs, s);
		i += 2;
	}
	ok = true;
out:
	g_free(t);
	if (!ok)
		chain_clear(c);
	return ok;
}

static bool is_type_word(const struct token *t)
{
	static const char *const words[] = {
		"unsigned", "signed", "long", "int", "char", "short", "void",
		"ulong", "u_long", "uintptr_t", "intptr_t", "u64", "u32", "size_t",
		"const", "__force", NULL
	};

	return tok_in(t, words);
}

char *strip_casts(const char *text)
{
	size_t n;
	struct token *t;
	size_t i = 0;
	char *res;

	if (!text)
		return NULL;
	t = lex_all(text, strlen(text), &n);
	n--;
	for (;;) {
		size_t j = i + 1;
		bool words = false;

		if (i >= n || !tok_punct(&t[i], '('))
			break;
		while (j < n && (is_type_word(&t[j]) ||
				 tok_punct(&t[j], '*'))) {
			words |= t[j].kind == TOK_IDENT;
			j++;
		}
		if (!words || j >= n || !tok_punct(&t[j], ')') || j + 1 >= n)
			break;
		i = j + 1;
	}
	/* (p): parentheses left around what was cast */
	while (n > i + 2 && tok_punct(&t[i], '(') &&
	       tok_match_close(t, n, i) == n - 1) {
		i++;
		n--;
	}
	{
		GString *s = g_string_new(NULL);

		for (size_t k = i; k < n; k++) {
			if (s->len)
				g_string_append_c(s, ' ');
			g_string_append_len(s, t[k].p, t[k].len);
		}
		res = g_string_free(s, FALSE);
	}
	g_free(t);
	return res;
}

char *expr_compact(const char *text)
{
	size_t n;
	struct token *t = lex_all(text, strlen(text), &n);
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i + 1 < n; i++) {
		/* keep a blank between two words: "unsigned long" */
		if (i > 0 && (t[i].kind == TOK_IDENT ||
			      t[i].kind == TOK_NUMBER) &&
		    (t[i - 1].kind == TOK_IDENT || t[i - 1].kind == TOK_NUMBER))
			g_string_append_c(s, ' ');
		/* and around binary operators and after commas */
		if (t[i].kind == TOK_PUNCT && t[i].len <= 2 &&
		    strchr("|+-/%^?:", t[i].p[0]) && !TOK_IS(&t[i], "->") &&
		    !TOK_IS(&t[i], "++") && !TOK_IS(&t[i], "--")) {
			g_string_append_c(s, ' ');
			g_string_append_len(s, t[i].p, t[i].len);
			g_string_append_c(s, ' ');
			continue;
		}
		g_string_append_len(s, t[i].p, t[i].len);
		if (tok_punct(&t[i], ','))
			g_string_append_c(s, ' ');
	}
	g_free(t);
	return g_string_free(s, FALSE);
}

bool expr_is_integer(const char *text)
{
	size_t n;
	struct token *t = lex_all(text, strlen(text), &n);
	bool res = n == 2 && t[0].kind == TOK_NUMBER;

	g_free(t);
	return res;
}

bool expr_has_side_effects(const char *text)
{
	char *bare = strip_casts(text);
	size_t n;
	struct token *t = lex_all(bare, strlen(bare), &n);
	bool res = false;

	for (size_t i = 0; i + 1 < n; i++) {
		/* an assignment: = and += to <<= and >>= */
		bool assigns = t[i].kind == TOK_PUNCT &&
			       t[i].p[t[i].len - 1] == '=' &&
			       !TOK_IS(&t[i], "==") && !TOK_IS(&t[i], "!=") &&
			       !TOK_IS(&t[i], "<=") && !TOK_IS(&t[i], ">=");

		if (TOK_IS(&t[i], "++") || TOK_IS(&t[i], "--") || assigns ||
		    tok_punct(&t[i], '('))
			res = true;
	}
	g_free(t);
	g_free(bare);
	return res;
}

void data_rel_clear(struct data_rel *r)
{
	g_free(r->hop);
	g_free(r->field);
	memset(r, 0, sizeof(*r));
}

/* Segment text for from_timer()'s field: name[index]. */
static void seg_append(GString *s, const struct seg *g)
{
	if (s->len)
		g_string_append_c(s, '.');
	g_string_append(s, g->name);
	if (g->index)
		g_string_append_printf(s, "[%s]", g->index);
}

char *chain_last_field(const struct chain *c, size_t *group_start)
{
	GString *s = g_string_new(NULL);
	size_t start = 0;

	for (size_t i = 0; i < c->segs->len; i++)
		if (((struct seg *)c->segs->pdata[i])->arrow)
			start = i;
	for (size_t i = start; i < c->segs->len; i++)
		seg_append(s, c->segs->pdata[i]);
	if (group_start)
		*group_start = start;
	return g_string_free(s, FALSE);
}

/* Does chain c begin with the segments of object o (same base)? */
static bool chain_starts_with(const struct chain *c, const struct chain *o)
{
	if (strcmp(c->base, o->base) || o->segs->len > c->segs->len)
		return false;
	for (size_t i = 0; i < o->segs->len; i++) {
		const struct seg *a = c->segs->pdata[i];
		const struct seg *b = o->segs->pdata[i];

		if (a->arrow != b->arrow || strcmp(a->name, b->name) ||
		    (a->index == NULL) != (b->index == NULL) ||
		    (a->index && strcmp(a->index, b->index)))
			return false;
	}
	return true;
}

/* Is there an index that is not a constant in segs[from...]? */
static bool variable_index(const struct chain *c, size_t from)
{
	for (size_t i = from; i < c->segs->len; i++) {
		const struct seg *s = c->segs->pdata[i];

		if (s->index && !s->index_const)
			return true;
	}
	return false;
}

void data_relation(const struct chain *timer, const char *data,
		   struct data_rel *out)
{
	char *bare = strip_casts(data);
	struct chain d;
	size_t rest, last_group;

	memset(out, 0, sizeof(*out));
	if (!timer->addr || !timer->segs->len) {
		out->rel = REL_NOT_MEMBER;
		goto out;
	}
	if (bare && expr_is_integer(bare)) {
		out->rel = REL_INTEGER;
		goto out;
	}
	if (!bare || !chain_parse(bare, &d)) {
		out->rel = variable_index(timer, 0) ? REL_VARIABLE_INDEX :
						      REL_NOT_CONTAINER;
		goto out;
	}
	out->data_addr = d.addr;
	/* data is &object and the timer is in object, or data points to
	 * the object the timer is in: &P->..., &O.... */
	rest = d.segs->len;
	if (!chain_starts_with(timer, &d) || rest >= timer->segs->len ||
	    ((const struct seg *)timer->segs->pdata[rest])->arrow == d.addr) {
		out->rel = variable_index(timer, 0) ? REL_VARIABLE_INDEX :
						      REL_NOT_CONTAINER;
		chain_clear(&d);
		goto out;
	}
	/* &dev->chan[i].timer with data &dev->chan[i]: the index is the
	 * container's, not part of from_timer()'s field */
	if (variable_index(timer, rest)) {
		out->rel = REL_VARIABLE_INDEX;
		chain_clear(&d);
		goto out;
	}
	out->field = chain_last_field(timer, &last_group);
	if (last_group < rest)
		last_group = rest;
	if (last_group > rest) {
		/* Members between data and the timer's own struct: one
		 * plain pointer member (the seed's q->backing_dev_info). */
		const struct seg *h = timer->segs->pdata[rest];

		if (last_group != rest + 1 || h->index || d.addr) {
			out->rel = REL_TOO_DEEP;
			chain_clear(&d);
			goto out;
		}
		out->hop = g_strdup(h->name);
	} else if (rest) {
		/* a chain ending in the timer's container: &p->hw */
		g_free(out->field);
		out->field = NULL;
		{
			GString *s = g_string_new(NULL);

			for (size_t i = rest; i < timer->segs->len; i++)
				seg_append(s, timer->segs->pdata[i]);
			out->field = g_string_free(s, FALSE);
		}
	}
	out->rel = REL_CONTAINER;
	chain_clear(&d);
out:
	g_free(bare);
}

char *chain_text(const struct chain *c, const char *last)
{
	GString *s = g_string_new(c->base);

	for (guint i = 0; i < c->segs->len; i++) {
		const struct seg *g = c->segs->pdata[i];
		bool is_last = i + 1 == c->segs->len;

		g_string_append(s, g->arrow ? "->" : ".");
		g_string_append(s, is_last && last ? last : g->name);
		if (g->index)
			g_string_append_printf(s, "[%s]", g->index);
	}
	return g_string_free(s, FALSE);
}
