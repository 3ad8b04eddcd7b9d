// SPDX-License-Identifier: GPL-2.0
/*
 * The C lexer shared by the candidate scan, `timerconv check`, the struct
 * index and the compat-branch detector.  It never fails: any byte sequence
 * yields a token stream, so a file we cannot make sense of is still
 * scanned (and a site in it is still accounted for).
 */
#include <glib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lexer.h"

enum {
	DEF_NAME,	/* expecting the macro name */
	DEF_PARAMS,	/* inside the parameter list */
	DEF_BODY,	/* in the replacement list */
};

static unsigned char ident_tab[256];

static void init_tables(void)
{
	static gsize done;

	if (!g_once_init_enter(&done))
		return;
	for (int c = 0; c < 256; c++)
		ident_tab[c] = g_ascii_isalnum(c) || c == '_' || c == '$';
	g_once_init_leave(&done, 1);
}

static inline bool is_ident_start(unsigned char c)
{
	return ident_tab[c] && !g_ascii_isdigit(c);
}

/* The table's test, for callers that do not go through lexer_init() */
static inline bool ident_byte(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '$';
}

#ifdef __SSE2__
/* Bit i is set when p[i] is a letter, a digit, '_' or '$'. */
static inline unsigned int ident_mask(const char *p)
{
	const __m128i case_bit = _mm_set1_epi8(0x20);
	const __m128i lower_a = _mm_set1_epi8('a'), z = _mm_set1_epi8(25);
	const __m128i digit_0 = _mm_set1_epi8('0'), nine = _mm_set1_epi8(9);
	const __m128i under = _mm_set1_epi8('_'), dollar = _mm_set1_epi8('$');
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	/* bytes from 'a' count 0..25 as letters, either case */
	__m128i letter = _mm_sub_epi8(_mm_or_si128(v, case_bit), lower_a);
	__m128i digit = _mm_sub_epi8(v, digit_0);
	__m128i ok = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(letter, z), letter),
			     _mm_cmpeq_epi8(_mm_min_epu8(digit, nine), digit)),
		_mm_or_si128(_mm_cmpeq_epi8(v, under),
			     _mm_cmpeq_epi8(v, dollar)));

	return (unsigned int)_mm_movemask_epi8(ok);
}
#endif

/*
 * The end of the identifier bytes that go on from p.  Kernel names are
 * long (register names run to 40 bytes and more): with SSE2, 16 bytes at
 * a time are classified.
 */
static inline const char *ident_end(const char *p, const char *end)
{
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		unsigned int stop = ~ident_mask(p) & 0xffff;

		if (stop)
			return p + __builtin_ctz(stop);
	}
#endif
	while (p < end && ident_byte(*p))
		p++;
	return p;
}

const char *lex_ident_end(const char *p, const char *end)
{
	return ident_end(p, end);
}

const char *lex_ident_next(const char *p, const char *end)
{
#ifdef __SSE2__
	for (; end - p >= 16; p += 16) {
		unsigned int mask = ident_mask(p);

		if (mask)
			return p + __builtin_ctz(mask);
	}
#endif
	while (p < end && !ident_byte(*p))
		p++;
	return p;
}

void lexer_init(struct lexer *lx, const char *buf, size_t len)
{
	init_tables();
	memset(lx, 0, sizeof(*lx));
	lx->buf = buf;
	lx->cur = buf;
	lx->end = buf + len;
	lx->line_start = buf;
	lx->line = 1;
	lx->bol = true;
}

static void newline(struct lexer *lx, const char *after)
{
	lx->line++;
	lx->line_start = after;
	lx->bol = true;
}

/*
 * The first byte in [p, end) that is `a` or `b`, or end.  Comments are a
 * good part of a kernel source file, and they are crossed 16 bytes at a
 * time.
 */
static const char *find2(const char *p, const char *end, char a, char b)
{
#ifdef __SSE2__
	const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b);

	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);
		unsigned int mask = (unsigned int)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, va),
				     _mm_cmpeq_epi8(v, vb)));

		if (mask)
			return p + __builtin_ctz(mask);
	}
#endif
	while (p < end && *p != a && *p != b)
		p++;
	return p;
}

static void skip_block_comment(struct lexer *lx)
{
	const char *p = lx->cur + 2, *end = lx->end;
	/* A comment does not end a directive. */
	bool bol = lx->bol;

	while ((p = find2(p, end, '*', '\n')) < end) {
		if (*p == '\n') {
			newline(lx, p + 1);
			lx->bol = bol;
		} else if (p + 1 < end && p[1] == '/') {
			lx->cur = p + 2;
			return;
		}
		p++;
	}
	lx->cur = end;
}

static void skip_line_comment(struct lexer *lx)
{
	const char *p = lx->cur + 2, *end = lx->end;

	while ((p = find2(p, end, '\\', '\n')) < end && *p == '\\') {
		if (p + 1 < end && p[1] == '\n') {
			newline(lx, p + 2);
			lx->bol = false;
			p += 2;
			continue;
		}
		p++;
	}
	lx->cur = p;
}

/*
 * Skip blanks and comments.  Returns true when a newline ended the current
 * preprocessor directive (the caller then emits TOK_PP_END).
 */
static bool skip_space(struct lexer *lx)
{
	const char *p = lx->cur, *end = lx->end;

	while (p < end) {
		char c = *p;

		if (c == ' ' || c == '\t') {
			p++;
		} else if (c == '\n') {
			if (lx->pp != PP_NONE)
				break;
			p++;
			newline(lx, p);
		} else if (c == '\r' || c == '\f' || c == '\v') {
			p++;
		} else if (c == '\\' && p + 1 < end &&
			   (p[1] == '\n' ||
			    (p[1] == '\r' && p + 2 < end && p[2] == '\n'))) {
			p += p[1] == '\n' ? 2 : 3;
			newline(lx, p);
			lx->bol = false;
		} else if (c == '/' && p + 1 < end &&
			   (p[1] == '*' || p[1] == '/')) {
			lx->cur = p;
			if (p[1] == '*')
				skip_block_comment(lx);
			else
				skip_line_comment(lx);
			p = lx->cur;
		} else {
			break;
		}
	}
	lx->cur = p;
	return lx->pp != PP_NONE && (p >= end || *p == '\n');
}

static const char *skip_quoted(struct lexer *lx, const char *p, char q)
{
	p++;
	while (p < lx->end) {
		if (*p == '\\' && p + 1 < lx->end) {
			if (p[1] == '\n')
				newline(lx, p + 2), lx->bol = false;
			p += 2;
			continue;
		}
		if (*p == q)
			return p + 1;
		if (*p == '\n')	/* unterminated: stop at end of line */
			return p;
		p++;
	}
	return p;
}

/* The length of the punctuator at p: 3 for <<= >>= ..., 2 for the
 * two-character ones (-> ++ -- << >> <= >= == != && || ## and the
 * compound assignments), 1 for any other byte. */
static size_t punct_len(const char *p, const char *end)
{
	size_t avail = end - p;
	char c = p[0], d = avail >= 2 ? p[1] : 0;

	if (avail >= 3 && ((c == '<' && d == '<') || (c == '>' && d == '>')) &&
	    p[2] == '=')
		return 3;
	if (avail >= 3 && c == '.' && d == '.' && p[2] == '.')
		return 3;
	switch (c) {
	case '-':
		return d == '>' || d == '-' || d == '=' ? 2 : 1;
	case '+':
	case '&':
	case '|':
		return d == c || d == '=' ? 2 : 1;
	case '<':
	case '>':
		return d == c || d == '=' ? 2 : 1;
	case '=':
	case '!':
	case '*':
	case '/':
	case '%':
	case '^':
		return d == '=' ? 2 : 1;
	case '#':
		return d == '#' ? 2 : 1;
	default:
		return 1;
	}
}

static enum pp_kind directive_kind(const struct token *tok)
{
	static const struct {
		const char *name;
		enum pp_kind kind;
	} names[] = {
		{ "define", PP_DEFINE }, { "undef", PP_UNDEF },
		{ "include", PP_INCLUDE }, { "if", PP_IF },
		{ "ifdef", PP_IFDEF }, { "ifndef", PP_IFNDEF },
		{ "elif", PP_ELIF }, { "else", PP_ELSE },
		{ "endif", PP_ENDIF },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (tok_is(tok, names[i].name, strlen(names[i].name)))
			return names[i].kind;
	return PP_OTHER;
}

/* Update directive bookkeeping once a token inside a directive is known. */
static void pp_account(struct lexer *lx, struct token *tok)
{
	int index = lx->pp_index++;

	tok->flags |= TF_PP;
	if (index == 1) {
		if (tok->kind == TOK_IDENT) {
			lx->pp = directive_kind(tok);
			lx->define_state = DEF_NAME;
		}
		tok->pp = lx->pp;
		return;
	}
	tok->pp = lx->pp;
	if (lx->pp != PP_DEFINE || index == 0)
		return;
	switch (lx->define_state) {
	case DEF_NAME:
		if (lx->cur < lx->end && *lx->cur == '(') {
			lx->define_state = DEF_PARAMS;
			lx->define_depth = 0;
		} else {
			lx->define_state = DEF_BODY;
		}
		break;
	case DEF_PARAMS:
		if (tok_punct(tok, '('))
			lx->define_depth++;
		else if (tok_punct(tok, ')') && --lx->define_depth == 0)
			lx->define_state = DEF_BODY;
		break;
	case DEF_BODY:
		tok->flags |= TF_DEFINE_BODY;
		break;
	}
}

void lexer_next(struct lexer *lx, struct token *tok)
{
	/* built here and stored once: the compiler cannot keep fields of
	 * *tok in registers, as a store to them might change the text */
	struct token t;
	const char *p, *end;
	unsigned char c;

	if (skip_space(lx)) {
		t.kind = TOK_PP_END;
		t.p = lx->cur;
		t.len = 0;
		t.line = lx->line;
		t.col = lx->cur - lx->line_start;
		t.pp = lx->pp;
		t.flags = TF_PP;
		lx->pp = PP_NONE;
		*tok = t;
		return;
	}

	p = lx->cur;
	end = lx->end;
	t.p = p;
	t.line = lx->line;
	t.col = p - lx->line_start;
	t.flags = lx->bol ? TF_BOL : 0;
	t.pp = PP_NONE;
	if (p >= end) {
		t.kind = TOK_EOF;
		t.len = 0;
		*tok = t;
		return;
	}

	c = *p;
	if (c == '#' && lx->bol && lx->pp == PP_NONE) {
		lx->pp = PP_OTHER;
		lx->pp_index = 0;
		p++;
		t.kind = TOK_PUNCT;
	} else if (is_ident_start(c)) {
		p = ident_end(p + 1, end);
		t.kind = TOK_IDENT;
	} else if (g_ascii_isdigit(c) ||
		   (c == '.' && p + 1 < end && g_ascii_isdigit(p[1]))) {
		p++;
		while (p < end) {
			unsigned char d = *p;

			if (ident_tab[d] || d == '.') {
				p++;
			} else if ((d == '+' || d == '-') &&
				   strchr("eEpP", p[-1])) {
				p++;
			} else {
				break;
			}
		}
		t.kind = TOK_NUMBER;
	} else if (c == '"') {
		p = skip_quoted(lx, p, '"');
		t.kind = TOK_STRING;
	} else if (c == '\'') {
		p = skip_quoted(lx, p, '\'');
		t.kind = TOK_CHAR;
	} else {
		p += punct_len(p, end);
		t.kind = TOK_PUNCT;
	}
	t.len = p - t.p;
	lx->cur = p;
	lx->bol = false;
	if (lx->pp != PP_NONE)
		pp_account(lx, &t);
	*tok = t;
}

void lex_into(GArray *arr, const char *buf, size_t len)
{
	struct lexer lx;
	struct token *tok;
	guint n = 0;

	lexer_init(&lx, buf, len);
	do {
		/* in place: no copy of each token, no call to grow per token */
		if (n == arr->len)
			g_array_set_size(arr, MAX(2 * n, 1024));
		tok = &g_array_index(arr, struct token, n);
		lexer_next(&lx, tok);
		n++;
	} while (tok->kind != TOK_EOF);
	g_array_set_size(arr, n);
}

struct token *lex_all(const char *buf, size_t len, size_t *ntok)
{
	GArray *arr = g_array_sized_new(FALSE, FALSE, sizeof(struct token),
					len / 4 + 16);

	lex_into(arr, buf, len);
	*ntok = arr->len;
#ifdef TIMERCONV_ASAN
	/* No spare capacity: a read past the EOF token is then caught by
	 * AddressSanitizer instead of reading stale tokens.  Not in the
	 * plain build, where the shrinking realloc costs a third of the
	 * scan's time. */
	return g_realloc(g_array_free(arr, FALSE),
			 *ntok * sizeof(struct token));
#else
	return (struct token *)g_array_free(arr, FALSE);
#endif
}

size_t tok_match_close(const struct token *tokens, size_t ntok, size_t i)
{
	char open = tokens[i].p[0];
	char close = open == '(' ? ')' : open == '[' ? ']' : '}';
	int depth = 0;

	for (size_t j = i; j < ntok; j++) {
		if (tokens[j].kind != TOK_PUNCT || tokens[j].len != 1)
			continue;
		if (tokens[j].p[0] == open)
			depth++;
		else if (tokens[j].p[0] == close && --depth == 0)
			return j;
	}
	return ntok - 1;
}

size_t tok_match_open(const struct token *tokens, size_t lo, size_t i)
{
	char close = tokens[i].p[0];
	char open = close == ')' ? '(' : close == ']' ? '[' : '{';
	int depth = 0;

	for (size_t j = i + 1; j-- > lo;) {
		if (tokens[j].kind != TOK_PUNCT || tokens[j].len != 1)
			continue;
		if (tokens[j].p[0] == close)
			depth++;
		else if (tokens[j].p[0] == open && --depth == 0)
			return j;
	}
	return SIZE_MAX;
}

char *lex_include_name(const struct token *t, size_t n, size_t i)
{
	const struct token *name;
	const char *close = NULL;

	if (i == 0 || i + 1 >= n || t[i].pp != PP_INCLUDE ||
	    t[i].kind != TOK_IDENT || !tok_punct(&t[i - 1], '#'))
		return NULL;
	name = &t[i + 1];
	if (name->kind == TOK_STRING && name->len > 2 &&
	    name->p[name->len - 1] == '"') {
		close = name->p + name->len - 1;
	} else if (tok_punct(name, '<')) {
		/* <linux/timer.h> is lexed as punctuation and names */
		for (size_t k = i + 2; k < n && (t[k].flags & TF_PP) &&
		     t[k].kind != TOK_PP_END && !close; k++)
			if (t[k].kind == TOK_PUNCT)
				close = memchr(t[k].p, '>', t[k].len);
	}
	if (!close || close == name->p + 1 ||
	    memchr(name->p, '\0', (size_t)(close - name->p)))
		return NULL;
	return g_strndup(name->p, (size_t)(close - name->p) + 1);
}

GPtrArray *lex_includes(const struct token *t, size_t n)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

	for (size_t i = 1; i < n; i++) {
		char *name;

		if (t[i].pp != PP_INCLUDE || t[i].kind != TOK_IDENT)
			continue;
		name = lex_include_name(t, n, i);
		if (name)
			g_ptr_array_add(out, name);
	}
	return out;
}
