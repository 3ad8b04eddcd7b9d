// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "diff.h"
#include "respace.h"
#include "wrap.h"

size_t line_width(const char *p, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++)
		w = p[i] == '\t' ? (w + 8) & ~(size_t)7 : w + 1;
	return w;
}

static size_t gs_width(const GString *s)
{
	const char *nl = strrchr(s->str, '\n');
	const char *start = nl ? nl + 1 : s->str;

	return line_width(start, strlen(start));
}

static char *make_indent(size_t col)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < col / 8; i++)
		g_string_append_c(s, '\t');
	for (size_t i = 0; i < col % 8; i++)
		g_string_append_c(s, ' ');
	return g_string_free(s, FALSE);
}

/*
 * Is the line part of a comment: from its first non-blank, a line of a
 * block comment (a star and a blank, or the closing star and slash), or
 * one that opens a comment?
 */
static bool comment_line(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	if (len - i >= 2 && p[i] == '/' &&
	    (p[i + 1] == '*' || p[i + 1] == '/'))
		return true;
	return i < len && p[i] == '*' &&
	       (i + 1 == len || p[i + 1] == ' ' || p[i + 1] == '\t' ||
		p[i + 1] == '/');
}

/* The end of the char literal whose quote is at p[i], or i when there is
 * none nearby: an apostrophe in a comment ("shouldn't") starts none. */
static size_t char_literal_end(const char *p, size_t len, size_t i)
{
	for (size_t k = i + 1; k < len && k <= i + 6; k++) {
		if (p[k] == '\\')
			k++;
		else if (p[k] == '\'')
			return k;
	}
	return i;
}

/*
 * The last byte of the string, char literal or comment that starts at
 * p[i] (the line's last when it runs on), or i when none does.
 */
static size_t literal_end(const char *p, size_t len, size_t i)
{
	const char *end;

	if (p[i] == '"') {
		for (i++; i < len && p[i] != '"';)
			i += p[i] == '\\' ? 2 : 1;
		return MIN(i, len - 1);
	}
	if (p[i] == '\'')
		return char_literal_end(p, len, i);
	if (p[i] != '/' || i + 1 >= len)
		return i;
	if (p[i + 1] == '/')
		return len - 1;
	if (p[i + 1] != '*')
		return i;
	end = g_strstr_len(p + i + 2, len - i - 2, "*/");
	return end ? (size_t)(end - p) + 1 : len - 1;
}

/* Net parenthesis depth of a line, ignoring strings, char literals and
 * comments. */
static int paren_balance(const char *p, size_t len)
{
	int depth = 0;

	if (comment_line(p, len))
		return 0;
	for (size_t i = 0; i < len; i++) {
		size_t skip = literal_end(p, len, i);

		if (skip != i)
			i = skip;
		else if (p[i] == '(')
			depth++;
		else if (p[i] == ')')
			depth--;
	}
	return depth;
}

/* Column just after the outermost '(' left open at the end of the line. */
static long open_paren_col(const char *p, size_t len)
{
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(size_t));
	long col = -1;

	for (size_t i = 0; i < len; i++) {
		size_t skip = literal_end(p, len, i);

		if (skip != i)
			i = skip;
		else if (p[i] == '(')
			g_array_append_val(stack, i);
		else if (p[i] == ')' && stack->len)
			g_array_set_size(stack, stack->len - 1);
	}
	if (stack->len)
		col = (long)line_width(p, g_array_index(stack, size_t, 0) + 1);
	g_array_free(stack, TRUE);
	return col;
}

static size_t indent_len(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

/* Index of the first c at nesting depth 0 in s, or -1. */
static long top_level(const char *s, char c, bool assign_only)
{
	int depth = 0;

	for (long i = 0; s[i]; i++) {
		char ch = s[i];

		if (ch == '"' || ch == '\'') {
			char q = s[i++];

			while (s[i] && s[i] != q)
				i += s[i] == '\\' ? 2 : 1;
			if (!s[i])
				return -1;
			continue;
		}
		if (ch == c && depth == 0) {
			if (assign_only && (strchr("=!<>+-*/%&|^", s[i + 1]) ||
					    (i > 0 && strchr("=!<>+-*/%&|^",
							     s[i - 1]))))
				continue;
			return i;
		}
		if (strchr("([{", ch))
			depth++;
		else if (strchr(")]}", ch))
			depth--;
	}
	return -1;
}

static void emit(GString *out, const char *indent, const char *text)
{
	g_string_append(out, indent);
	g_string_append(out, text);
	g_string_append_c(out, '\n');
}

/* Break a call at its top-level commas, aligned after its '('. */
static void reflow_call(GString *out, const char *indent, const char *text)
{
	size_t iw = line_width(indent, strlen(indent));
	long open = top_level(text, '(', false);
	GPtrArray *args;
	GString *line;
	char *inner, *cont;
	long close;
	int depth = 0;

	if (iw + line_width(text, strlen(text)) <= WRAP_COLUMNS || open < 0) {
		emit(out, indent, text);
		return;
	}
	for (close = open; text[close]; close++) {
		if (text[close] == '(')
			depth++;
		else if (text[close] == ')' && --depth == 0)
			break;
	}
	if (!text[close]) {
		emit(out, indent, text);
		return;
	}
	inner = g_strndup(text + open + 1, close - open - 1);
	args = g_ptr_array_new_with_free_func(g_free);
	for (char *p = inner;;) {
		long comma = top_level(p, ',', false);
		char *arg = comma < 0 ? g_strdup(p) : g_strndup(p, comma);

		g_ptr_array_add(args, g_strstrip(arg));
		if (comma < 0)
			break;
		p += comma + 1;
	}
	line = g_string_new(indent);
	g_string_append_len(line, text, open + 1);
	cont = make_indent(line_width(line->str, line->len));
	g_string_append(line, args->pdata[0]);
	for (guint i = 1; i < args->len; i++) {
		const char *arg = args->pdata[i];
		bool last = i + 1 == args->len;
		size_t w = gs_width(line) + 2 + strlen(arg) +
			   (last ? strlen(text + close) : 1);

		if (w <= WRAP_COLUMNS) {
			g_string_append_printf(line, ", %s", arg);
		} else {
			g_string_append(line, ",\n");
			g_string_append(line, cont);
			g_string_append(line, arg);
		}
	}
	g_string_append(line, text + close);
	g_string_append_c(line, '\n');
	g_string_append(out, line->str);
	g_string_free(line, TRUE);
	g_ptr_array_free(args, TRUE);
	g_free(inner);
	g_free(cont);
}

static bool all_fit(const char *text)
{
	char **lines = g_strsplit(text, "\n", -1);
	bool ok = true;

	for (int i = 0; lines[i]; i++)
		ok &= line_width(lines[i], strlen(lines[i])) <= WRAP_COLUMNS;
	g_strfreev(lines);
	return ok;
}

/*
 * One statement: after '=' first, then at the commas of the call; but a
 * call its author broke at its commas, aligned under the parenthesis,
 * stays broken that way when that still fits.
 */
static void reflow(GString *out, const char *indent, const char *text,
		   bool at_commas)
{
	size_t iw = line_width(indent, strlen(indent));
	long eq;

	if (iw + line_width(text, strlen(text)) <= WRAP_COLUMNS) {
		emit(out, indent, text);
		return;
	}
	if (at_commas) {
		GString *tmp = g_string_new(NULL);

		reflow_call(tmp, indent, text);
		if (all_fit(tmp->str)) {
			g_string_append(out, tmp->str);
			g_string_free(tmp, TRUE);
			return;
		}
		g_string_free(tmp, TRUE);
	}
	eq = top_level(text, '=', true);
	if (eq > 0) {
		char *lhs = g_strndup(text, eq + 1);
		char *rhs = g_strstrip(g_strdup(text + eq + 1));
		char *deeper = g_strconcat(indent, "\t", NULL);

		emit(out, indent, g_strchomp(lhs));
		reflow_call(out, deeper, rhs);
		g_free(lhs);
		g_free(rhs);
		g_free(deeper);
		return;
	}
	reflow_call(out, indent, text);
}

static bool is_blank(const struct line *ln)
{
	for (size_t i = 0; i < ln->len; i++)
		if (ln->p[i] != ' ' && ln->p[i] != '\t')
			return false;
	return true;
}

/* Copy a line the change added, without trailing blanks. */
static bool copy_added(GString *out, const struct line *ln)
{
	size_t len = ln->len;

	while (len && (ln->p[len - 1] == ' ' || ln->p[len - 1] == '\t'))
		len--;
	g_string_append_len(out, ln->p, len);
	g_string_append_c(out, '\n');
	return len != ln->len;
}

struct wrapper {
	struct lines a, b;
	GArray *ops;
	bool *added;		/* per new line */
	long *old_of;		/* per new line: an old line it replaced */
	long *same_of;		/* ... at the same place in the block */
};

static const struct line *L(const struct lines *l, size_t i)
{
	return &g_array_index(l->v, struct line, i);
}

static bool has_comment(const struct lines *l, size_t s, size_t e)
{
	for (size_t i = s; i <= e; i++) {
		const struct line *ln = L(l, i);

		if (g_strstr_len(ln->p, ln->len, "/*") ||
		    g_strstr_len(ln->p, ln->len, "//"))
			return true;
	}
	return false;
}

/* Were the continuation lines aligned under the old first line's '('? */
static bool was_aligned(struct wrapper *w, size_t s, size_t e)
{
	const struct line *first;
	long old = w->old_of[s];
	long col;

	if (old < 0)
		return false;
	first = L(&w->a, (size_t)old);
	col = open_paren_col(first->p, first->len);
	for (size_t i = s + 1; i <= e; i++) {
		const struct line *ln = L(&w->b, i);

		if ((long)line_width(ln->p, indent_len(ln->p, ln->len)) != col)
			return false;
	}
	return col >= 0;
}

static char *joined(struct wrapper *w, size_t s, size_t e, char **indent);

static bool needs_reflow(struct wrapper *w, size_t s, size_t e)
{
	const struct line *first = L(&w->b, s);
	long col = open_paren_col(first->p, first->len);
	bool all_new = true;

	for (size_t i = s; i <= e; i++) {
		if (line_width(L(&w->b, i)->p, L(&w->b, i)->len) >
		    WRAP_COLUMNS)
			return true;
		all_new &= w->added[i];
	}
	if (e == s)
		return false;
	/* spatch breaks a new statement one argument per line */
	if (all_new)
		return true;
	/* A statement the change made short enough for one line. */
	{
		char *indent;
		char *text = joined(w, s, e, &indent);
		bool fits = line_width(indent, strlen(indent)) +
			    line_width(text, strlen(text)) <= WRAP_COLUMNS;

		g_free(text);
		g_free(indent);
		if (fits)
			return true;
	}
	for (size_t i = s + 1; i <= e; i++) {
		const struct line *ln = L(&w->b, i);

		if ((long)line_width(ln->p, indent_len(ln->p, ln->len)) != col)
			return was_aligned(w, s, e);
	}
	return false;
}

static char *joined(struct wrapper *w, size_t s, size_t e, char **indent)
{
	const struct line *first = L(&w->b, s);
	size_t ind = indent_len(first->p, first->len);
	GString *t = g_string_new(NULL);

	*indent = g_strndup(first->p, ind);
	g_string_append_len(t, first->p + ind, first->len - ind);
	for (size_t i = s + 1; i <= e; i++) {
		const struct line *ln = L(&w->b, i);
		size_t k = indent_len(ln->p, ln->len);

		if (t->len && t->str[t->len - 1] != '(' && ln->p[k] != ')')
			g_string_append_c(t, ' ');
		g_string_append_len(t, ln->p + k, ln->len - k);
	}
	while (t->len && (t->str[t->len - 1] == ' ' ||
			  t->str[t->len - 1] == '\t'))
		g_string_truncate(t, t->len - 1);
	return g_string_free(t, FALSE);
}

static size_t widest(const char *text)
{
	char **lines = g_strsplit(text, "\n", -1);
	size_t max = 0;

	for (int i = 0; lines[i]; i++)
		max = MAX(max, line_width(lines[i], strlen(lines[i])));
	g_strfreev(lines);
	return max;
}

/*
 * Lay out statement s..e again.  When that cannot keep it within 80
 * columns either (an if condition with no comma to break at), the layout
 * spatch left, which is closer, stays.
 */
static bool reflowed(struct wrapper *w, GString *out, size_t s, size_t e)
{
	GString *tmp = g_string_new(NULL);
	size_t before = 0;
	char *indent;
	char *text = joined(w, s, e, &indent);

	reflow(tmp, indent, text, e > s && was_aligned(w, s, e));
	for (size_t i = s; i <= e; i++)
		before = MAX(before, line_width(L(&w->b, i)->p,
						L(&w->b, i)->len));
	g_free(text);
	g_free(indent);
	if (!all_fit(tmp->str) && widest(tmp->str) >= before) {
		g_string_free(tmp, TRUE);
		return false;
	}
	g_string_append(out, tmp->str);
	g_string_free(tmp, TRUE);
	return true;
}

static void mark_added(struct wrapper *w)
{
	long last_old = -1, block = -1;
	long nth = 0;

	w->added = g_new0(bool, w->b.v->len + 1);
	w->old_of = g_new(long, w->b.v->len + 1);
	w->same_of = g_new(long, w->b.v->len + 1);
	for (size_t i = 0; i <= w->b.v->len; i++)
		w->old_of[i] = w->same_of[i] = -1;
	for (guint i = 0; i < w->ops->len; i++) {
		const struct dop *o = &g_array_index(w->ops, struct dop, i);

		if (o->kind == DOP_EQUAL) {
			last_old = block = -1;
			nth = 0;
		} else if (o->kind == DOP_DELETE) {
			if (last_old < 0)
				last_old = block = (long)o->a;
		} else {
			w->added[o->b] = true;
			w->old_of[o->b] = last_old;
			/* the old line in the same place of the block */
			if (block >= 0 && (size_t)(block + nth) < w->a.v->len)
				w->same_of[o->b] = block + nth;
			nth++;
			last_old = -1;
		}
	}
}

/*
 * spatch realigns the continuation lines of a call whose name changed
 * length; where that pushes one past 80 columns, the author's own
 * indentation of the unchanged text is kept.
 */
static const struct line *reindented(struct wrapper *w, size_t j)
{
	const struct line *n = L(&w->b, j), *o;
	size_t ni, oi;

	if (w->same_of[j] < 0 || line_width(n->p, n->len) <= WRAP_COLUMNS)
		return NULL;
	o = L(&w->a, (size_t)w->same_of[j]);
	ni = indent_len(n->p, n->len);
	oi = indent_len(o->p, o->len);
	if (n->len - ni != o->len - oi || memcmp(n->p + ni, o->p + oi,
						 n->len - ni))
		return NULL;
	return line_width(o->p, o->len) <= WRAP_COLUMNS ? o : NULL;
}

static size_t statement_end(struct wrapper *w, size_t s);

/* First line of the statement that line j continues: the nearest line
 * before it whose parenthesis is still open at j (at most 10 back). */
static size_t statement_start(struct wrapper *w, size_t j)
{
	int bal = 0;

	for (size_t k = j; k-- > 0 && j - k <= 10;) {
		const struct line *ln = L(&w->b, k);

		bal += paren_balance(ln->p, ln->len);
		if (bal > 0)
			return k;
	}
	return j;
}

static size_t statement_end(struct wrapper *w, size_t s)
{
	int bal = 0;
	size_t e;

	for (e = s; e < w->b.v->len; e++) {
		const struct line *ln = L(&w->b, e);

		bal += paren_balance(ln->p, ln->len);
		if (bal <= 0 || e - s > 20)
			break;
	}
	return e < w->b.v->len ? e : w->b.v->len - 1;
}

/*
 * In a file whose every line ends in CRLF, every line of the result does
 * too: spatch moves the CR of a line it inserts after to the last line
 * it inserts, leaving the others with LF alone.  NULL when nothing needs
 * it.
 */
static char *crlf_like(const char *old_text, size_t old_len,
		       const char *new_text, size_t new_len, size_t *out_len)
{
	size_t lf = 0, crlf = 0;
	bool fix = false;
	GString *out;

	for (size_t i = 0; i < old_len; i++)
		if (old_text[i] == '\n') {
			lf++;
			crlf += i > 0 && old_text[i - 1] == '\r';
		}
	if (!lf || crlf != lf)
		return NULL;
	for (size_t i = 0; i < new_len && !fix; i++)
		fix = new_text[i] == '\n' && (!i || new_text[i - 1] != '\r');
	for (size_t i = 0; i + 1 < new_len && !fix; i++)
		fix = new_text[i] == '\r' && new_text[i + 1] == '\r';
	if (!fix)
		return NULL;
	out = g_string_sized_new(new_len + new_len / 16);
	for (size_t i = 0; i < new_len; i++) {
		if (new_text[i] == '\r' &&
		    (i + 1 == new_len || new_text[i + 1] == '\r' ||
		     new_text[i + 1] == '\n'))
			continue;	/* every LF gets its own CR below */
		if (new_text[i] == '\n')
			g_string_append_c(out, '\r');
		g_string_append_c(out, new_text[i]);
	}
	*out_len = out->len;
	return g_string_free(out, FALSE);
}

char *wrap_changed(const char *old_text, size_t old_len,
		   const char *new_text, size_t new_len, size_t *out_len)
{
	struct wrapper w = { 0 };
	GString *out = g_string_new(NULL);
	size_t spaced_len = 0, eol_len = 0;
	char *eol = crlf_like(old_text, old_len, new_text, new_len, &eol_len);
	char *spaced;
	bool changed = eol != NULL;
	size_t j = 0;

	if (eol) {
		new_text = eol;
		new_len = eol_len;
	}
	/* checkpatch's spacing first: the widths below are the final ones */
	spaced = respace_changed(old_text, old_len, new_text, new_len,
				 &spaced_len);
	changed |= spaced != NULL;
	if (spaced) {
		new_text = spaced;
		new_len = spaced_len;
	}
	lines_split(&w.a, old_text, old_len);
	lines_split(&w.b, new_text, new_len);
	w.ops = diff_lines(&w.a, &w.b);
	mark_added(&w);
	while (j < w.b.v->len) {
		size_t s, e;

		/* spatch leaves the indentation of removed statements on a
		 * line of its own: drop it, and trailing blanks of the lines
		 * it added (checkpatch errors both). */
		if (w.added[j] && is_blank(L(&w.b, j))) {
			const struct line *ln = L(&w.b, j);

			if (ln->len) {
				changed = true;
				j++;
				continue;
			}
		}
		if (!w.added[j]) {
			const struct line *ln = L(&w.b, j);

			g_string_append_len(out, ln->p, ln->len);
			g_string_append_c(out, '\n');
			j++;
			continue;
		}
		s = statement_start(&w, j);
		/* the statement must reach line j, or j starts its own */
		if (s < j && statement_end(&w, s) < j)
			s = j;
		if (s < j) {
			/* Lines s..j-1 were already copied: take them back. */
			for (size_t k = s; k < j; k++)
				g_string_truncate(out, out->len -
						  L(&w.b, k)->len - 1);
		}
		e = statement_end(&w, s);
		if (needs_reflow(&w, s, e) && !has_comment(&w.b, s, e) &&
		    reflowed(&w, out, s, e)) {
			changed = true;
		} else {
			for (size_t k = s; k <= e; k++) {
				const struct line *kept = w.added[k] ?
					reindented(&w, k) : NULL;

				if (w.added[k] && is_blank(L(&w.b, k)) &&
				    L(&w.b, k)->len) {
					changed = true;
					continue;
				}
				if (kept) {
					copy_added(out, kept);
					changed = true;
					continue;
				}
				if (w.added[k]) {
					changed |= copy_added(out, L(&w.b, k));
					continue;
				}
				g_string_append_len(out, L(&w.b, k)->p,
						    L(&w.b, k)->len);
				g_string_append_c(out, '\n');
			}
		}
		j = e + 1;
	}
	if (w.b.no_newline && out->len)
		g_string_truncate(out, out->len - 1);
	g_array_free(w.ops, TRUE);
	g_free(w.added);
	g_free(w.old_of);
	g_free(w.same_of);
	lines_clear(&w.a);
	lines_clear(&w.b);
	g_free(spaced);
	g_free(eol);
	if (!changed) {
		g_string_free(out, TRUE);
		return NULL;
	}
	*out_len = out->len;
	return g_string_free(out, FALSE);
}
