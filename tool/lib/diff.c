// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "diff.h"

#define CONTEXT 3

void lines_split(struct lines *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	l->v = g_array_new(FALSE, FALSE, sizeof(struct line));
	l->no_newline = len > 0 && text[len - 1] != '\n';
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		struct line ln = { p, nl ? (size_t)(nl - p) : (size_t)(end - p) };

		g_array_append_val(l->v, ln);
		p = nl ? nl + 1 : end;
	}
}

void lines_clear(struct lines *l)
{
	if (l->v)
		g_array_free(l->v, TRUE);
	l->v = NULL;
}

static bool line_eq(const struct lines *a, size_t i, const struct lines *b,
		    size_t j)
{
	const struct line *x = &g_array_index(a->v, struct line, i);
	const struct line *y = &g_array_index(b->v, struct line, j);

	/* A last line without newline differs from one with. */
	if ((i + 1 == a->v->len && a->no_newline) !=
	    (j + 1 == b->v->len && b->no_newline))
		return false;
	return x->len == y->len && !memcmp(x->p, y->p, x->len);
}

/*
 * Myers' O(ND) algorithm, keeping each round's V to walk back the path.
 * The texts timerconv diffs differ in a few lines, so D stays small.
 */
GArray *diff_lines(const struct lines *a, const struct lines *b)
{
	long n = (long)a->v->len, m = (long)b->v->len;
	long max = n + m, off = max + 1;
	GPtrArray *trace = g_ptr_array_new_with_free_func(g_free);
	GArray *ops = g_array_new(FALSE, FALSE, sizeof(struct dop));
	long *v = g_new0(long, 2 * max + 3);
	long d, x, y;

	for (d = 0; d <= max; d++) {
		bool done = false;

		for (long k = -d; k <= d; k += 2) {
			if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
				x = v[off + k + 1];
			else
				x = v[off + k - 1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(a, x, b, y))
				x++, y++;
			v[off + k] = x;
			if (x >= n && y >= m) {
				done = true;
				break;
			}
		}
		g_ptr_array_add(trace, g_memdup2(v, sizeof(long) *
						 (2 * max + 3)));
		if (done)
			break;
	}
	/* Walk back from (n, m): each round is one edit after a snake. */
	x = n;
	y = m;
	for (d = (long)trace->len - 1; d > 0; d--) {
		const long *vp = trace->pdata[d - 1];
		long k = x - y, prev_k, prev_x, prev_y, mid_x;
		struct dop op;

		if (k == -d || (k != d && vp[off + k - 1] < vp[off + k + 1]))
			prev_k = k + 1;
		else
			prev_k = k - 1;
		prev_x = vp[off + prev_k];
		prev_y = prev_x - prev_k;
		mid_x = prev_k == k + 1 ? prev_x : prev_x + 1;
		while (x > mid_x) {
			op = (struct dop){ DOP_EQUAL, (size_t)--x, (size_t)--y };
			g_array_append_val(ops, op);
		}
		if (prev_k == k + 1)
			op = (struct dop){ DOP_INSERT, (size_t)prev_x,
					   (size_t)prev_y };
		else
			op = (struct dop){ DOP_DELETE, (size_t)prev_x,
					   (size_t)prev_y };
		g_array_append_val(ops, op);
		x = prev_x;
		y = prev_y;
	}
	while (x > 0 && y > 0) {
		struct dop op = { DOP_EQUAL, (size_t)--x, (size_t)--y };

		g_array_append_val(ops, op);
	}
	/* built from the end: put it in order */
	for (guint i = 0, j = ops->len; i + 1 < j; i++, j--) {
		struct dop tmp = g_array_index(ops, struct dop, i);

		g_array_index(ops, struct dop, i) =
			g_array_index(ops, struct dop, j - 1);
		g_array_index(ops, struct dop, j - 1) = tmp;
	}
	g_free(v);
	g_ptr_array_free(trace, TRUE);
	return ops;
}

static bool is_funcname(const struct line *l)
{
	size_t i = 0;

	if (!l->len || !(g_ascii_isalpha(l->p[0]) || l->p[0] == '_' ||
			 l->p[0] == '$'))
		return false;
	/* not a label: "out:" */
	while (i < l->len && (g_ascii_isalnum(l->p[i]) || l->p[i] == '_'))
		i++;
	if (i < l->len && l->p[i] == ':' &&
	    (i + 1 == l->len || l->p[i + 1] == ' ' || l->p[i + 1] == '\t'))
		return false;
	return true;
}

static void emit_line(GString *out, char mark, const struct lines *l,
		      size_t i)
{
	const struct line *ln = &g_array_index(l->v, struct line, i);

	g_string_append_c(out, mark);
	g_string_append_len(out, ln->p, ln->len);
	g_string_append_c(out, '\n');
	if (i + 1 == l->v->len && l->no_newline)
		g_string_append(out, "\\ No newline at end of file\n");
}

static void range(GString *out, char sign, size_t start, size_t count)
{
	/* start is 0-based; an empty range names the line before it */
	if (count == 1)
		g_string_append_printf(out, "%c%zu", sign, start + 1);
	else
		g_string_append_printf(out, "%c%zu,%zu", sign,
				       count ? start + 1 : start, count);
}

void diff_unified(GString *out, const char *path, const char *old,
		  size_t old_len, const char *new_text, size_t new_len)
{
	diff_unified_new(out, path, false, old, old_len, new_text, new_len);
}

/*
 * "a/" or "b/" and the path, written as git writes it: C-quoted when it
 * has a quote, a backslash, a control or non-ASCII byte ("a/lat\351.c"),
 * and followed by a tab when it has a space, so that GNU patch reads the
 * whole name too.
 */
static void diff_name(GString *out, const char *prefix, const char *path)
{
	bool quote = false, space = false;

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		quote |= *p == '"' || *p == '\\' || *p < 0x20 || *p >= 0x7f;
		space |= *p == ' ';
	}
	if (!quote) {
		g_string_append_printf(out, "%s%s%s\n", prefix, path,
				       space ? "\t" : "");
		return;
	}
	g_string_append_printf(out, "\"%s", prefix);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (*p == '"' || *p == '\\')
			g_string_append_printf(out, "\\%c", *p);
		else if (*p == '\t')
			g_string_append(out, "\\t");
		else if (*p == '\n')
			g_string_append(out, "\\n");
		else if (*p < 0x20 || *p >= 0x7f)
			g_string_append_printf(out, "\\%03o", *p);
		else
			g_string_append_c(out, (char)*p);
	}
	g_string_append(out, space ? "\"\t\n" : "\"\n");
}

void diff_unified_new(GString *out, const char *path, bool created,
		      const char *old, size_t old_len, const char *new_text,
		      size_t new_len)
{
	struct lines a, b;
	GArray *ops;
	guint i = 0;

	lines_split(&a, old, old_len);
	lines_split(&b, new_text, new_len);
	ops = diff_lines(&a, &b);
	g_string_append(out, "--- ");
	if (created)
		g_string_append(out, "/dev/null\n");
	else
		diff_name(out, "a/", path);
	g_string_append(out, "+++ ");
	diff_name(out, "b/", path);
	while (i < ops->len) {
		guint first, last, k;
		size_t a0, b0, na = 0, nb = 0;

		while (i < ops->len &&
		       g_array_index(ops, struct dop, i).kind == DOP_EQUAL)
			i++;
		if (i >= ops->len)
			break;
		first = i >= CONTEXT ? i - CONTEXT : 0;
		/* extend while changes are within 2*CONTEXT of each other */
		last = i;
		for (k = i; k < ops->len; k++) {
			if (g_array_index(ops, struct dop, k).kind != DOP_EQUAL)
				last = k;
			else if (k - last > 2 * CONTEXT)
				break;
		}
		last = MIN(last + CONTEXT, ops->len - 1);
		a0 = g_array_index(ops, struct dop, first).a;
		b0 = g_array_index(ops, struct dop, first).b;
		for (k = first; k <= last; k++) {
			struct dop *o = &g_array_index(ops, struct dop, k);

			if (o->kind != DOP_INSERT)
				na++;
			if (o->kind != DOP_DELETE)
				nb++;
		}
		g_string_append(out, "@@ ");
		range(out, '-', a0, na);
		g_string_append_c(out, ' ');
		range(out, '+', b0, nb);
		g_string_append(out, " @@");
		for (size_t j = a0; j-- > 0;) {
			const struct line *ln = &g_array_index(a.v,
							struct line, j);

			if (is_funcname(ln)) {
				size_t len = MIN(ln->len, 80);

				g_string_append_c(out, ' ');
				g_string_append_len(out, ln->p, len);
				break;
			}
		}
		g_string_append_c(out, '\n');
		for (k = first; k <= last; k++) {
			struct dop *o = &g_array_index(ops, struct dop, k);

			if (o->kind == DOP_EQUAL)
				emit_line(out, ' ', &a, o->a);
			else if (o->kind == DOP_DELETE)
				emit_line(out, '-', &a, o->a);
			else
				emit_line(out, '+', &b, o->b);
		}
		i = last + 1;
	}
	g_array_free(ops, TRUE);
	lines_clear(&a);
	lines_clear(&b);
}

void diff_count(const char *old, size_t old_len, const char *new_text,
		size_t new_len, guint *added, guint *removed)
{
	struct lines a, b;
	GArray *ops;

	lines_split(&a, old, old_len);
	lines_split(&b, new_text, new_len);
	ops = diff_lines(&a, &b);
	*added = *removed = 0;
	for (guint i = 0; i < ops->len; i++) {
		enum dop_kind k = g_array_index(ops, struct dop, i).kind;

		if (k == DOP_INSERT)
			(*added)++;
		else if (k == DOP_DELETE)
			(*removed)++;
	}
	g_array_free(ops, TRUE);
	lines_clear(&a);
	lines_clear(&b);
}
