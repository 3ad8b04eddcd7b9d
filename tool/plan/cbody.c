// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "cbody.h"

size_t token_at(const struct token *t, size_t n, struct fpos at)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].line == at.line && t[i].col == at.col)
			return i;
	return n;
}

static bool is_member_name(const struct token *t, size_t i)
{
	return i > 0 && (tok_punct(&t[i - 1], '.') || TOK_IS(&t[i - 1], "->"));
}

/* Does the statement at t[i] declare something?  struct foo *p = ...,
 * int n;, foo_t x;, FOO_PTR p = ...  (not: p->x = 1;, f(x);, x = 1;) */
static bool starts_declaration(const struct token *t, size_t n, size_t i)
{
	static const char *const words[] = {
		"struct", "union", "enum", "const", "volatile", "static",
		"register", "unsigned", "signed", "int", "long", "short",
		"char", "bool", "void", "float", "double", NULL
	};

	if (i >= n || t[i].kind != TOK_IDENT)
		return false;
	if (tok_in(&t[i], words))
		return true;
	while (i + 1 < n && tok_punct(&t[i + 1], '*'))
		i++;
	return i + 2 < n && t[i + 1].kind == TOK_IDENT &&
	       (tok_punct(&t[i + 2], '=') || tok_punct(&t[i + 2], ';') ||
		tok_punct(&t[i + 2], ',') || tok_punct(&t[i + 2], '['));
}

void cbody_clear(struct cbody *b)
{
	if (b->param_uses)
		g_array_free(b->param_uses, TRUE);
	if (b->idents)
		g_hash_table_destroy(b->idents);
	g_free(b->only_member);
	memset(b, 0, sizeof(*b));
}

bool cbody_analyse(struct cfile *f, struct fpos at, const char *param,
		   const char *local, struct fpos local_at, struct cbody *out)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, at);
	size_t open, close, body;
	bool mixed = false;

	memset(out, 0, sizeof(*out));
	if (i + 1 >= n || !tok_punct(&t[i + 1], '('))
		return false;
	open = i + 1;
	close = tok_match_close(t, n, open);
	for (body = close + 1; body < n && !tok_punct(&t[body], '{'); body++)
		if (tok_punct(&t[body], ';'))
			return false;
	if (body >= n)
		return false;
	close = tok_match_close(t, n, body);
	out->decl_first = starts_declaration(t, close, body + 1);
	out->param_uses = g_array_new(FALSE, FALSE, sizeof(struct fpos));
	out->idents = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    NULL);
	for (size_t k = body + 1; k < close; k++) {
		const struct token *tok = &t[k];
		char *name;

		if (tok->kind != TOK_IDENT || is_member_name(t, k))
			continue;
		name = g_strndup(tok->p, tok->len);
		if (param && !strcmp(name, param)) {
			struct fpos p = { tok->line, tok->col };

			g_array_append_val(out->param_uses, p);
		}
		if (local && !strcmp(name, local) &&
		    !(tok->line == local_at.line && tok->col == local_at.col)) {
			out->local_uses++;
			if (k + 2 < n && TOK_IS(&t[k + 1], "->") &&
			    t[k + 2].kind == TOK_IDENT) {
				char *m = g_strndup(t[k + 2].p, t[k + 2].len);

				if (!out->only_member && !mixed)
					out->only_member = m;
				else if (!out->only_member ||
					 strcmp(out->only_member, m))
					mixed = true, g_free(m);
				else
					g_free(m);
			} else {
				mixed = true;
			}
		}
		g_hash_table_add(out->idents, name);
	}
	if (mixed) {
		g_free(out->only_member);
		out->only_member = NULL;
	}
	return true;
}

/* The outermost block around token i, a function's body: its braces. */
static bool body_around(const struct token *t, size_t n, size_t i,
			size_t *open, size_t *close)
{
	int depth = 0;
	size_t brace = n;

	for (size_t k = i; k-- > 0;) {
		if (t[k].flags & TF_PP)
			continue;
		if (tok_punct(&t[k], '}'))
			depth++;
		else if (tok_punct(&t[k], '{')) {
			if (depth == 0)
				brace = k;
			else
				depth--;
		}
	}
	if (brace >= n)
		return false;
	*open = brace;
	*close = tok_match_close(t, n, brace);
	return true;
}

GHashTable *enclosing_params(struct cfile *f, struct fpos at)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal,
						  g_free, NULL);
	size_t i = token_at(t, n, at);
	size_t brace, end;
	int depth;

	if (i >= n || !body_around(t, n, i, &brace, &end))
		return names;
	for (size_t k = brace; k-- > 0;) {
		size_t open;

		if (t[k].flags & TF_PP)
			continue;
		if (!tok_punct(&t[k], ')'))
			break;
		depth = 0;
		for (open = k; open > 0; open--) {
			if (tok_punct(&t[open], ')'))
				depth++;
			else if (tok_punct(&t[open], '(') && --depth == 0)
				break;
		}
		/* the last name of each comma-separated parameter */
		for (size_t p = open + 1; p < k; p++) {
			if (t[p].kind == TOK_IDENT &&
			    (tok_punct(&t[p + 1], ',') ||
			     tok_punct(&t[p + 1], ')') ||
			     tok_punct(&t[p + 1], '[')))
				g_hash_table_add(names,
						 g_strndup(t[p].p, t[p].len));
			/* (*fn)(...) */
			if (tok_punct(&t[p], '(') && tok_punct(&t[p + 1], '*') &&
			    t[p + 2].kind == TOK_IDENT)
				g_hash_table_add(names,
					g_strndup(t[p + 2].p, t[p + 2].len));
		}
		break;
	}
	return names;
}

/*
 * How the function around `at` declares `name` as a timer: as a
 * `struct timer_list name` of its outermost block, above `at` (TD_OWN: no
 * other timer can be meant by the name there), or otherwise (TD_OTHER: a pointer,
 * which may point anywhere, or an object of an inner block, which the
 * rest of the function does not see), or not at all (TD_NONE).
 */
enum tdecl timer_declared_in_function(struct cfile *f, struct fpos at,
				      const char *name)
{
	size_t n, len = strlen(name);
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, at), head = 0, body = n, end = n;
	enum tdecl found = TD_NONE;
	int depth = 0, level = 0;

	if (i >= n)
		return TD_NONE;
	/* the outermost braces around `at`, and where their header starts */
	for (size_t k = 0; k < i; k++) {
		if (t[k].flags & TF_PP)
			continue;
		if (tok_punct(&t[k], '{') && depth++ == 0)
			body = k;
		else if (tok_punct(&t[k], '}') && depth > 0 && --depth == 0)
			head = k + 1;
		else if (!depth && tok_punct(&t[k], ';'))
			head = k + 1;
	}
	if (!depth || body >= n)
		return TD_NONE;
	end = tok_match_close(t, n, body);
	for (size_t k = head; k + 1 < end && k + 1 < n; k++) {
		size_t p = k + 1;
		bool ptr = false;

		if (t[k].flags & TF_PP)
			continue;
		if (tok_punct(&t[k], '{'))
			level++;
		else if (tok_punct(&t[k], '}'))
			level--;
		if (!TOK_IS(&t[k], "timer_list"))
			continue;
		for (; p < n && tok_punct(&t[p], '*'); p++)
			ptr = true;
		if (p + 1 >= n || !tok_is(&t[p], name, len) ||
		    !(tok_punct(&t[p + 1], ';') || tok_punct(&t[p + 1], '=') ||
		      tok_punct(&t[p + 1], ',') || tok_punct(&t[p + 1], ')') ||
		      tok_punct(&t[p + 1], '[')))
			continue;
		/* (a use above the declaration is of the file's name) */
		if (!ptr && level == 1 && !tok_punct(&t[p + 1], '[') && p < i)
			return TD_OWN;
		found = TD_OTHER;
	}
	return found;
}

char *local_alias(struct cfile *f, struct fpos at, const char *name)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, at), open, close;
	GString *init = NULL;
	guint decls = 0;

	if (i >= n || !body_around(t, n, i, &open, &close))
		return NULL;
	for (size_t k = open + 1; k < close; k++) {
		if (t[k].kind != TOK_IDENT || !tok_is(&t[k], name,
						       strlen(name)) ||
		    is_member_name(t, k))
			continue;
		/* struct timer_list *name = EXPR; */
		if (k >= 3 && tok_punct(&t[k - 1], '*') &&
		    TOK_IS(&t[k - 2], "timer_list") &&
		    TOK_IS(&t[k - 3], "struct") && tok_punct(&t[k + 1], '=')) {
			size_t e = k + 2;

			decls++;
			/* a second declaration: not an alias (decls), and
			 * the first one's text goes */
			if (init)
				g_string_free(init, TRUE);
			init = g_string_new(NULL);
			for (; e < close && !tok_punct(&t[e], ';') &&
			       !tok_punct(&t[e], ','); e++) {
				if (init->len)
					g_string_append_c(init, ' ');
				g_string_append_len(init, t[e].p, t[e].len);
			}
			continue;
		}
		/* assigned again, or its address taken: not an alias */
		if ((tok_punct(&t[k + 1], '=')) || tok_punct(&t[k - 1], '&') ||
		    TOK_IS(&t[k + 1], "++") || TOK_IS(&t[k - 1], "++") ||
		    TOK_IS(&t[k + 1], "--") || TOK_IS(&t[k - 1], "--")) {
			if (init)
				g_string_free(init, TRUE);
			return NULL;
		}
	}
	if (!init)
		return NULL;
	if (decls != 1 || init->str[0] != '&') {
		g_string_free(init, TRUE);
		return NULL;
	}
	return g_string_free(init, FALSE);
}

/* The tokens t[from, to) as spatch prints an expression: one blank
 * between tokens. */
static char *join_spaced(const struct token *t, size_t from, size_t to)
{
	GString *s = g_string_new(NULL);

	for (size_t i = from; i < to; i++) {
		if (s->len)
			g_string_append_c(s, ' ');
		g_string_append_len(s, t[i].p, t[i].len);
	}
	return g_string_free(s, FALSE);
}

char *local_value(struct cfile *f, struct fpos at, const char *name)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, at), open, close;
	char *value = NULL;

	if (i >= n || !body_around(t, n, i, &open, &close))
		return NULL;
	for (size_t k = open + 1; k < close; k++) {
		size_t e;

		if (t[k].kind != TOK_IDENT ||
		    !tok_is(&t[k], name, strlen(name)) || is_member_name(t, k))
			continue;
		/* &name, not &name->member */
		if ((tok_punct(&t[k - 1], '&') && !TOK_IS(&t[k + 1], "->") &&
		     !tok_punct(&t[k + 1], '.') &&
		     !tok_punct(&t[k + 1], '[')) ||
		    TOK_IS(&t[k + 1], "++") ||
		    TOK_IS(&t[k - 1], "++") || TOK_IS(&t[k + 1], "--") ||
		    TOK_IS(&t[k - 1], "--") ||
		    (t[k + 1].kind == TOK_PUNCT && t[k + 1].len == 2 &&
		     t[k + 1].p[1] == '=' && t[k + 1].p[0] != '=' &&
		     t[k + 1].p[0] != '!' && t[k + 1].p[0] != '<' &&
		     t[k + 1].p[0] != '>'))
			goto fail;
		if (!tok_punct(&t[k + 1], '='))
			continue;
		if (value)
			goto fail;	/* assigned twice */
		for (e = k + 2; e < close && !tok_punct(&t[e], ';') &&
		     !tok_punct(&t[e], ','); e++)
			;
		value = join_spaced(t, k + 2, e);
	}
	return value;
fail:
	g_free(value);
	return NULL;
}

bool local_of_type(struct cfile *f, struct fpos at, const char *tag,
		   const char *uses, char **name, char **init)
{
	size_t n, tlen = strlen(tag);
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, at), open, close, body;
	guint found = 0;

	*name = *init = NULL;
	if (i >= n || !tok_punct(&t[i + 1], '('))
		return false;
	close = tok_match_close(t, n, i + 1);
	for (body = close + 1; body < n && !tok_punct(&t[body], '{'); body++)
		;
	if (body >= n)
		return false;
	open = body;
	close = tok_match_close(t, n, open);
	for (size_t k = open + 1; k + 4 < close; k++) {
		size_t e;
		bool mentions = false;

		/* struct TAG *NAME = INIT; */
		if (!TOK_IS(&t[k], "struct") || !tok_is(&t[k + 1], tag, tlen) ||
		    !tok_punct(&t[k + 2], '*') || t[k + 3].kind != TOK_IDENT ||
		    !tok_punct(&t[k + 4], '='))
			continue;
		for (e = k + 5; e < close && !tok_punct(&t[e], ';'); e++)
			mentions |= tok_is(&t[e], uses, strlen(uses)) &&
				    !is_member_name(t, e);
		if (!mentions)
			continue;
		found++;
		g_free(*name);
		g_free(*init);
		*name = g_strndup(t[k + 3].p, t[k + 3].len);
		*init = join_spaced(t, k + 5, e);
	}
	if (found == 1)
		return true;
	g_clear_pointer(name, g_free);
	g_clear_pointer(init, g_free);
	return found == 0;
}

bool same_function(struct cfile *f, struct fpos a, struct fpos b)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	size_t i = token_at(t, n, a), k = token_at(t, n, b);
	size_t oa, ca, ob, cb;

	return i < n && k < n && body_around(t, n, i, &oa, &ca) &&
	       body_around(t, n, k, &ob, &cb) && oa == ob;
}
