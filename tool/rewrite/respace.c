// SPDX-License-Identifier: GPL-2.0
/*
 * The rules are checkpatch.pl's (scripts/checkpatch.pl, --strict), each
 * applied only where it cannot misread the code:
 *
 * - indentation in tabs: a statement keeps its column, moved on to the
 *   next tab stop; a continuation line has its leading spaces turned
 *   into tabs, and one aligned under the parenthesis of the line before
 *   keeps that alignment;
 * - no blank after '(' and '[' or before ')', ']', ',' and ';'; one after
 *   ','; none between a function's name and its '(' (if, for, while,
 *   switch, return, sizeof's keyword cousins and types excepted); none
 *   around '->' or after a unary '!' and '~';
 * - one blank each side of '=', the assignment operators, comparisons,
 *   '&&' and '||';
 * - "foo *bar": the star of a declaration or a cast next to the name,
 *   one blank after the type, where the type is certain (a C type
 *   keyword, struct/union/enum, a typedef that starts a declaration or
 *   is cast to), and no blank after a cast;
 * - a function definition's '{' on a line of its own.
 *
 * Preprocessor lines, comments, strings and character literals are left
 * as they are.  Whatever a rule decides, only blanks change: the line
 * with its blanks removed is the same before and after (the fuzzer
 * checks it).
 */
#include <glib.h>
#include <string.h>

#include "diff.h"
#include "respace.h"

/* ---- what each line is: one pass over the whole text ---- */

struct lstate {
	int brace;		/* '{' depth at the start of the line */
	int paren;		/* '(' depth at the start */
	bool comment;		/* it starts inside a block comment */
	bool directive;		/* a preprocessor line, or one continued */
	bool stmt;		/* a statement starts on this line */
	bool body;		/* ... the body of a braceless if/for/while */
	bool code;		/* the line has code (not only a comment) */
};

struct scan {
	int brace, paren;
	bool comment;		/* inside a block comment */
	bool dir_cont;		/* the line before: a directive ending in \ */
	bool stmt_next;		/* the next code line starts a statement */
	bool body_next;		/* ... as a braceless body */
	bool new_stmt;		/* the next token starts a statement */
	char first[16];		/* the current statement's first word */
};

static bool ident_start(char c)
{
	return g_ascii_isalpha(c) || c == '_' || c == '$';
}

static bool ident_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '$';
}

static bool control_word(const char *w)
{
	return !strcmp(w, "if") || !strcmp(w, "for") || !strcmp(w, "while") ||
	       !strcmp(w, "else");
}

/* A word, cut to 15 bytes: enough to tell if, for, while, else, do. */
static void copy_word(char dst[16], const char *p, size_t n)
{
	n = MIN(n, 15);
	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* Advance the scan over one line, filling in its state. */
static void scan_line(struct scan *sc, const char *p, size_t len,
		      struct lstate *st)
{
	size_t i = 0;
	char last = 0;		/* last code character at depth 0 */
	char word[16] = "";	/* the line's last word, if it ends in one */
	bool code = false, ends_word = false;

	while (len && (p[len - 1] == '\r'))
		len--;
	while (i < len && (p[i] == ' ' || p[i] == '\t'))
		i++;
	st->brace = sc->brace;
	st->paren = sc->paren;
	st->comment = sc->comment;
	st->directive = sc->dir_cont || (!sc->comment && i < len &&
					  p[i] == '#');
	st->stmt = !st->directive && !sc->comment && sc->paren == 0 &&
		   sc->stmt_next;
	st->body = st->stmt && sc->body_next;
	st->code = false;
	sc->dir_cont = st->directive && len && p[len - 1] == '\\';
	for (; i < len; i++) {
		char c = p[i];

		if (sc->comment) {
			if (c == '*' && i + 1 < len && p[i + 1] == '/') {
				sc->comment = false;
				i++;
			}
			continue;
		}
		if (c == ' ' || c == '\t')
			continue;
		if (c == '/' && i + 1 < len && p[i + 1] == '/')
			break;
		if (c == '/' && i + 1 < len && p[i + 1] == '*') {
			sc->comment = true;
			i++;
			continue;
		}
		if (st->directive)
			continue;
		code = true;
		ends_word = false;
		if (c == '"' || c == '\'') {
			for (i++; i < len && p[i] != c; i++)
				if (p[i] == '\\')
					i++;
			last = c;
			continue;
		}
		if (ident_start(c)) {
			size_t k = i;

			while (k < len && ident_char(p[k]))
				k++;
			copy_word(word, p + i, k - i);
			if (sc->new_stmt)
				copy_word(sc->first, p + i, k - i);
			sc->new_stmt = false;
			i = k - 1;
			ends_word = true;
			last = 'a';
			continue;
		}
		if (sc->new_stmt)
			sc->first[0] = '\0';
		sc->new_stmt = false;
		if (c == '{')
			sc->brace++;
		else if (c == '}')
			sc->brace = MAX(sc->brace - 1, 0);
		else if (c == '(')
			sc->paren++;
		else if (c == ')')
			sc->paren = MAX(sc->paren - 1, 0);
		if (sc->paren == 0 && c && strchr(";{}:", c))
			sc->new_stmt = true;
		last = c;
	}
	if (!code)
		return;
	st->code = true;
	/* after "if (x)", "else" or "do", the body is a statement */
	sc->body_next = sc->paren == 0 &&
		((last == ')' && control_word(sc->first)) ||
		 (ends_word && (!strcmp(word, "else") || !strcmp(word, "do"))));
	sc->stmt_next = sc->body_next ||
		(sc->paren == 0 && last && strchr(";{}:", last));
	if (sc->body_next)
		sc->new_stmt = true;
}

/* ---- the tokens of one line ---- */

enum tkind { T_IDENT, T_NUM, T_STR, T_CMT, T_PUNCT };

enum ws { WS_KEEP, WS_NONE, WS_ONE };

struct tok {
	enum tkind kind;
	const char *p;
	size_t len;
	const char *ws;		/* the blanks before it */
	size_t ws_len;
	enum ws want;
};

static const char *const puncts[] = {
	"<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
	"!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=",
	"##", NULL,
};

/* Tokens of p[0..len), which starts inside a comment if `comment`. */
static GArray *tokenize(const char *p, size_t len, bool comment)
{
	GArray *toks = g_array_new(FALSE, TRUE, sizeof(struct tok));
	size_t i = 0;

	while (i < len) {
		struct tok t = { 0 };
		size_t s = i;

		while (i < len && (p[i] == ' ' || p[i] == '\t'))
			i++;
		t.ws = p + s;
		t.ws_len = i - s;
		if (i >= len)
			break;
		t.p = p + i;
		if (comment ||
		    (p[i] == '/' && i + 1 < len && p[i + 1] == '*')) {
			size_t from = comment ? i : i + 2;
			const char *end = g_strstr_len(p + from, len - from,
						       "*/");

			i = end ? (size_t)(end - p) + 2 : len;
			t.kind = T_CMT;
			comment = false;
		} else if (p[i] == '/' && i + 1 < len && p[i + 1] == '/') {
			i = len;
			t.kind = T_CMT;
		} else if (p[i] == '"' || p[i] == '\'') {
			char q = p[i];

			for (i++; i < len && p[i] != q; i++)
				if (p[i] == '\\')
					i++;
			i = MIN(i + 1, len);
			t.kind = T_STR;
		} else if (ident_start(p[i])) {
			while (i < len && ident_char(p[i]))
				i++;
			t.kind = T_IDENT;
		} else if (g_ascii_isdigit(p[i]) || (p[i] == '.' &&
			   i + 1 < len && g_ascii_isdigit(p[i + 1]))) {
			for (i++; i < len && (ident_char(p[i]) || p[i] == '.' ||
					      ((p[i] == '+' || p[i] == '-') &&
					       p[i - 1] &&
					       strchr("eEpP", p[i - 1]))); i++)
				;
			t.kind = T_NUM;
		} else {
			size_t n = 1;

			for (int k = 0; puncts[k]; k++) {
				size_t m = strlen(puncts[k]);

				if (m <= len - i &&
				    !memcmp(p + i, puncts[k], m)) {
					n = m;
					break;
				}
			}
			i += n;
			t.kind = T_PUNCT;
		}
		t.len = (size_t)(p + i - t.p);
		g_array_append_val(toks, t);
	}
	return toks;
}

static struct tok *T(GArray *toks, long i)
{
	if (i < 0 || (guint)i >= toks->len)
		return NULL;
	return &g_array_index(toks, struct tok, i);
}

static bool is(const struct tok *t, const char *s)
{
	return t && t->kind != T_STR && t->kind != T_CMT &&
	       t->len == strlen(s) && !memcmp(t->p, s, t->len);
}

static bool word_in(const struct tok *t, const char *const *list)
{
	if (!t || t->kind != T_IDENT)
		return false;
	for (int i = 0; list[i]; i++)
		if (t->len == strlen(list[i]) && !memcmp(t->p, list[i], t->len))
			return true;
	return false;
}

/* C's own type words: what comes before them is never a function name */
static const char *const type_words[] = {
	"void", "char", "short", "int", "long", "float", "double", "signed",
	"unsigned", "_Bool", "bool", "const", "volatile", "struct", "union",
	"enum", "static", "extern", "inline", "register", "auto",
	"restrict", "__iomem", "__user", "__rcu", "__percpu", "__force",
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", NULL,
};

/* Words a '(' may follow with a blank (checkpatch's own list, and the
 * types above). */
static const char *const spaced_words[] = {
	"if", "for", "while", "switch", "return", "case", "volatile",
	"__volatile__", "__attribute__", "__attribute", "format",
	"__extension__", "asm", "__asm__", "scoped_guard", "do", "else",
	"defined", NULL,
};

static const char *const qualifiers[] = {
	"static", "const", "extern", "register", "volatile", "inline", NULL,
};

static const char *const tag_words[] = { "struct", "union", "enum", NULL };

/* Binary operators checkpatch wants a blank on each side of. */
static const char *const spaced_ops[] = {
	"=", "==", "!=", "<=", ">=", "<", ">", "+=", "-=", "*=", "/=", "%=",
	"&=", "|=", "^=", "<<=", ">>=", "&&", "||", NULL,
};

static bool punct_in(const struct tok *t, const char *const *list)
{
	for (int i = 0; t && list[i]; i++)
		if (is(t, list[i]))
			return true;
	return false;
}

static bool operand_start(const struct tok *t)
{
	return t && (t->kind == T_IDENT || t->kind == T_NUM ||
		     t->kind == T_STR || is(t, "(") || is(t, "&") ||
		     is(t, "*") || is(t, "!") || is(t, "~") || is(t, "-"));
}

/*
 * Is the identifier at i the end of a type for sure: a C type word, a
 * struct/union/enum tag, or, at the start of a statement line (after
 * qualifiers), a typedef that a declarator follows?
 */
static bool type_end(GArray *toks, long i, bool stmt)
{
	struct tok *t = T(toks, i);
	long k = i - 1;

	if (!t || t->kind != T_IDENT)
		return false;
	if (word_in(t, type_words) && !word_in(t, tag_words))
		return true;
	if (word_in(T(toks, i - 1), tag_words))
		return true;
	if (!stmt)
		return false;
	while (k >= 0 && word_in(T(toks, k), qualifiers))
		k--;
	return k < 0;
}

/* ( or , then type words up to k: "(struct foo" of "(struct foo *)" */
static bool in_parens(GArray *toks, long k)
{
	while (k >= 0 && T(toks, k)->kind == T_IDENT)
		k--;
	return k >= 0 && (is(T(toks, k), "(") || is(T(toks, k), ","));
}

/* "foo * bar", "foo* bar", "(foo*)": the stars of a declarator. */
static void pointer_rule(GArray *toks, bool stmt)
{
	for (long i = 1; i < (long)toks->len; i++) {
		struct tok *after, *next;
		long j = i;
		bool decl = false;

		if (!is(T(toks, i), "*") || T(toks, i - 1)->kind != T_IDENT)
			continue;
		while (is(T(toks, j + 1), "*"))
			j++;
		after = T(toks, j + 1);
		next = T(toks, j + 2);
		if (is(after, ")"))
			decl = in_parens(toks, i - 1);
		else if (after && after->kind == T_IDENT &&
			 !word_in(after, type_words))
			decl = type_end(toks, i - 1, stmt) &&
			       (!next || is(next, "=") || is(next, ";") ||
				is(next, ",") || is(next, "[") ||
				is(next, ")"));
		if (!decl)
			continue;
		if (!T(toks, i)->ws_len)
			T(toks, i)->want = WS_ONE;
		for (long m = i + 1; m <= j + 1; m++)
			T(toks, m)->want = WS_NONE;
		i = j;
	}
}

/* (type) x: no blank after the cast */
static void cast_rule(GArray *toks)
{
	for (long i = 0; i < (long)toks->len; i++) {
		struct tok *prev = T(toks, i - 1);
		bool typed = false, words = false;
		long k;

		if (!is(T(toks, i), "("))
			continue;
		if (prev && ((prev->kind == T_IDENT &&
			      !word_in(prev, spaced_words)) ||
			     is(prev, ")") || is(prev, "]")))
			continue;
		for (k = i + 1; T(toks, k) && T(toks, k)->kind == T_IDENT;
		     k++) {
			words = true;
			typed |= word_in(T(toks, k), type_words);
		}
		while (is(T(toks, k), "*")) {
			typed = true;
			k++;
		}
		if (!words || !typed || !is(T(toks, k), ")"))
			continue;
		if (T(toks, k + 1) && T(toks, k + 1)->ws_len &&
		    operand_start(T(toks, k + 1)))
			T(toks, k + 1)->want = WS_NONE;
	}
}

static void spacing_rules(GArray *toks, bool stmt)
{
	for (long i = 1; i < (long)toks->len; i++) {
		struct tok *a = T(toks, i - 1), *b = T(toks, i);

		if (a->kind == T_CMT || b->kind == T_CMT)
			continue;
		if ((is(a, "(") || is(a, "[")) && !is(b, ";"))
			b->want = WS_NONE;
		if ((is(b, ")") || is(b, "]")) && !is(a, ";"))
			b->want = WS_NONE;
		if (is(b, ",") || (is(b, ";") && !is(a, ";") && !is(a, "(")))
			b->want = WS_NONE;
		if (is(a, ",") && !b->ws_len)
			b->want = WS_ONE;
		if (is(a, "->") || is(b, "->") || is(a, "!") || is(a, "~"))
			b->want = WS_NONE;
		if (is(b, "(") && a->kind == T_IDENT && b->ws_len &&
		    !word_in(a, spaced_words) && !word_in(a, type_words) &&
		    !word_in(T(toks, i - 2), tag_words) &&
		    !is(T(toks, i + 1), "*"))
			b->want = WS_NONE;
		if (is(b, "(") && !b->ws_len &&
		    (is(a, "if") || is(a, "for") || is(a, "while") ||
		     is(a, "switch")))
			b->want = WS_ONE;
		if (is(b, "{") && is(a, ")") && !b->ws_len)
			b->want = WS_ONE;
		if (is(a, "}") && b->kind == T_IDENT && !b->ws_len)
			b->want = WS_ONE;
		if (punct_in(b, spaced_ops) && !b->ws_len && !is(a, "(") &&
		    !is(a, "["))
			b->want = WS_ONE;
		if (punct_in(a, spaced_ops) && !b->ws_len)
			b->want = WS_ONE;
	}
	pointer_rule(toks, stmt);
	cast_rule(toks);
}

/* ---- indentation ---- */

static size_t width_of(const char *p, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++)
		w = p[i] == '\t' ? (w + 8) & ~(size_t)7 : w + 1;
	return w;
}

static size_t lead_width(const char *p, size_t len)
{
	size_t n = 0;

	while (n < len && (p[n] == ' ' || p[n] == '\t'))
		n++;
	return width_of(p, n);
}

static void indent_to(GString *out, size_t col)
{
	for (size_t i = 0; i < col / 8; i++)
		g_string_append_c(out, '\t');
	for (size_t i = 0; i < col % 8; i++)
		g_string_append_c(out, ' ');
}

/* Column just after the outermost '(' a line leaves open, or -1. */
static long open_paren(const char *p, size_t len)
{
	GArray *toks = tokenize(p, len, false);
	long open = -1;
	int depth = 0;

	for (guint i = 0; i < toks->len; i++) {
		struct tok *t = T(toks, i);

		if (is(t, "(") && depth++ == 0)
			open = (long)width_of(p, t->p - p + 1);
		else if (is(t, ")") && depth > 0 && --depth == 0)
			open = -1;
	}
	g_array_free(toks, TRUE);
	return depth > 0 ? open : -1;
}

struct prev {
	const char *old_p;	/* the line before, as it was */
	size_t old_len;
	const char *new_p;	/* ... and as this pass wrote it */
	size_t new_len;
	bool added;
	long body_col;		/* the last code line's column if it was a
				 * braceless if's body, else -1 */
};

/*
 * The blanks a line starts with.  A statement keeps the column the author
 * gave it, moved on to the next tab stop (4 spaces in a file indented by
 * fours become a tab, as its 8 do): its neighbours, the lines around it
 * that do not change, stay where they are, and checkpatch compares the
 * body of an if with the if's own column.
 */
static void indentation(GString *out, const char *p, size_t lead,
			const struct lstate *st, GArray *toks,
			const struct prev *prev)
{
	size_t w = width_of(p, lead);

	if (st->comment || T(toks, 0)->kind == T_CMT ||
	    !memchr(p, ' ', lead)) {
		g_string_append_len(out, p, lead);
		return;
	}
	if (st->stmt) {
		size_t col = (w + 7) & ~(size_t)7;

		/* "    if (x)\n        return;\n    ours();": a tab would put
		 * ours() under the return, as if the if guarded it (gcc's
		 * -Wmisleading-indentation): the author's blanks stay */
		if (!st->body && prev && prev->body_col >= 0 &&
		    (size_t)prev->body_col == col && w < col)
			g_string_append_len(out, p, lead);
		else
			indent_to(out, col);
		return;
	}
	/* a continuation aligned under the '(' of the line before stays
	 * aligned under it, where that line moved too */
	if (prev && prev->added && prev->old_p) {
		long was = open_paren(prev->old_p, prev->old_len);
		long now = open_paren(prev->new_p, prev->new_len);

		if (was >= 0 && now >= 0 && (size_t)was == w) {
			indent_to(out, (size_t)now);
			return;
		}
	}
	indent_to(out, w < 8 ? 8 : w);
}

/* ---- one line ---- */

/* A function definition at file scope: "static void foo(int x) {" */
static bool definition_brace(const char *p, GArray *toks,
			     const struct lstate *st)
{
	struct tok *last = T(toks, (long)toks->len - 1);
	struct tok *before = T(toks, (long)toks->len - 2);

	return st->brace == 0 && st->paren == 0 && !st->directive &&
	       (p[0] != ' ' && p[0] != '\t') && is(last, "{") &&
	       is(before, ")") && T(toks, 0)->kind == T_IDENT &&
	       !word_in(T(toks, 0), spaced_words) && !is(T(toks, 0), "typedef");
}

static void add_cr(GString *out, size_t cr)
{
	for (size_t i = 0; i < cr; i++)
		g_string_append_c(out, '\r');
}

/* The line re-spaced, or NULL to keep it as it is. */
static GString *respace_line(const char *p, size_t len,
			     const struct lstate *st, const struct prev *prev)
{
	GString *out;
	size_t lead = 0, cr = 0;
	GArray *toks;

	while (len && p[len - 1] == '\r') {
		len--;
		cr++;
	}
	while (lead < len && (p[lead] == ' ' || p[lead] == '\t'))
		lead++;
	if (lead == len || (st->directive && !st->comment && p[lead] == '#'))
		return NULL;
	toks = tokenize(p + lead, len - lead, st->comment);
	out = g_string_new(NULL);
	indentation(out, p, lead, st, toks, prev);
	spacing_rules(toks, st->stmt);
	for (guint i = 0; i < toks->len; i++) {
		struct tok *t = T(toks, i);

		if (i && t->want == WS_ONE && !t->ws_len)
			g_string_append_c(out, ' ');
		else if (i && t->want != WS_NONE)
			g_string_append_len(out, t->ws, t->ws_len);
		/* "foo(struct timer_list *t) {": the brace on its own line */
		if (i + 1 == toks->len && definition_brace(p, toks, st)) {
			while (out->len && (out->str[out->len - 1] == ' ' ||
					    out->str[out->len - 1] == '\t'))
				g_string_truncate(out, out->len - 1);
			add_cr(out, cr);
			g_string_append_c(out, '\n');
		}
		g_string_append_len(out, t->p, t->len);
	}
	add_cr(out, cr);
	g_array_free(toks, TRUE);
	return out;
}

char *respace_lines(const char *text, size_t len, const bool *added,
		    size_t nlines, size_t *out_len)
{
	struct lines l;
	struct scan sc = { .stmt_next = true, .new_stmt = true };
	struct prev prev = { .body_col = -1 };
	GString *out = g_string_new(NULL);
	GString *last = NULL;
	bool changed = false;

	lines_split(&l, text, len);
	for (guint i = 0; i < l.v->len; i++) {
		const struct line *ln = &g_array_index(l.v, struct line, i);
		bool add = i < nlines && added[i];
		struct lstate st;
		GString *now = NULL;

		scan_line(&sc, ln->p, ln->len, &st);
		if (add)
			now = respace_line(ln->p, ln->len, &st, &prev);
		if (now && (now->len != ln->len ||
			    memcmp(now->str, ln->p, ln->len)))
			changed = true;
		if (now)
			g_string_append_len(out, now->str, now->len);
		else
			g_string_append_len(out, ln->p, ln->len);
		g_string_append_c(out, '\n');
		if (last)
			g_string_free(last, TRUE);
		last = now;
		prev.old_p = ln->p;
		prev.old_len = ln->len;
		prev.new_p = now ? now->str : ln->p;
		prev.new_len = now ? now->len : ln->len;
		prev.added = add;
		if (st.code && !st.directive)
			prev.body_col = st.body ? (long)lead_width(prev.new_p,
							prev.new_len) : -1;
	}
	if (last)
		g_string_free(last, TRUE);
	if (l.no_newline && out->len)
		g_string_truncate(out, out->len - 1);
	lines_clear(&l);
	if (!changed) {
		g_string_free(out, TRUE);
		return NULL;
	}
	*out_len = out->len;
	return g_string_free(out, FALSE);
}

char *respace_changed(const char *old_text, size_t old_len,
		      const char *new_text, size_t new_len, size_t *out_len)
{
	struct lines a, b;
	GArray *ops;
	bool *added;
	char *res;

	lines_split(&a, old_text, old_len);
	lines_split(&b, new_text, new_len);
	ops = diff_lines(&a, &b);
	added = g_new0(bool, b.v->len + 1);
	for (guint i = 0; i < ops->len; i++) {
		const struct dop *o = &g_array_index(ops, struct dop, i);

		if (o->kind == DOP_INSERT)
			added[o->b] = true;
	}
	res = respace_lines(new_text, new_len, added, b.v->len, out_len);
	g_free(added);
	g_array_free(ops, TRUE);
	lines_clear(&a);
	lines_clear(&b);
	return res;
}
