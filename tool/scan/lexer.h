/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small C lexer: enough of C to tell code from comments, strings and
 * preprocessor directives, with exact line/column positions.
 */
#ifndef TIMERCONV_LEXER_H
#define TIMERCONV_LEXER_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Built with AddressSanitizer: token arrays then have no spare room, so
 * that a read past the EOF token is caught. */
#if defined(__SANITIZE_ADDRESS__)
#define TIMERCONV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TIMERCONV_ASAN 1
#endif
#endif

enum tok_kind {
	TOK_EOF,
	TOK_IDENT,
	TOK_NUMBER,
	TOK_STRING,
	TOK_CHAR,
	TOK_PUNCT,
	/* End of a preprocessor directive line (never inside one). */
	TOK_PP_END,
};

/* Which preprocessor directive a token belongs to. */
enum pp_kind {
	PP_NONE,
	PP_DEFINE,
	PP_UNDEF,
	PP_INCLUDE,
	PP_IF,
	PP_IFDEF,
	PP_IFNDEF,
	PP_ELIF,
	PP_ELSE,
	PP_ENDIF,
	PP_OTHER,
};

/* The token is part of a preprocessor directive. */
#define TF_PP		0x01
/* The token is in the replacement list of a #define. */
#define TF_DEFINE_BODY	0x02
/* The token is the first one on its line. */
#define TF_BOL		0x04

struct token {
	const char *p;
	unsigned int len;
	unsigned int line;	/* 1-based */
	unsigned int col;	/* 0-based byte column, as spatch counts */
	unsigned char kind;	/* enum tok_kind */
	unsigned char pp;	/* enum pp_kind */
	unsigned char flags;
};

struct lexer {
	const char *buf;
	const char *cur;
	const char *end;
	const char *line_start;
	unsigned int line;
	bool bol;		/* nothing but blanks so far on this line */
	enum pp_kind pp;	/* directive being lexed, PP_NONE outside */
	int pp_index;		/* tokens seen in the current directive */
	int define_state;	/* see lexer.c */
	int define_depth;
};

void lexer_init(struct lexer *lx, const char *buf, size_t len);
void lexer_next(struct lexer *lx, struct token *tok);

static inline bool tok_is(const struct token *tok, const char *s, size_t n)
{
	return tok->len == n && __builtin_memcmp(tok->p, s, n) == 0;
}

#define TOK_IS(tok, lit) tok_is((tok), (lit), sizeof(lit) - 1)

/* An identifier spelled as one of the NULL-terminated words. */
static inline bool tok_in(const struct token *tok, const char *const *words)
{
	if (tok->kind != TOK_IDENT)
		return false;
	for (int i = 0; words[i]; i++)
		if (tok->p[0] == words[i][0] &&
		    tok_is(tok, words[i], __builtin_strlen(words[i])))
			return true;
	return false;
}

static inline bool tok_punct(const struct token *tok, char c)
{
	return tok->kind == TOK_PUNCT && tok->len == 1 && tok->p[0] == c;
}

/*
 * Runs of identifier bytes (letters, digits, '_', '$'), as the lexer
 * reads names: the first such byte from p on, and the end of the run
 * from p on.  Both return `end` when there is none.
 */
const char *lex_ident_next(const char *p, const char *end);
const char *lex_ident_end(const char *p, const char *end);

/* Tokenise a whole buffer; the array ends with a TOK_EOF token. */
struct token *lex_all(const char *buf, size_t len, size_t *ntok);
/* The same into `arr` (struct token), which keeps its memory between
 * files: a scan of many files lexes without allocating. */
void lex_into(GArray *arr, const char *buf, size_t len);

/* Index of the token that closes the bracket opened at tokens[i]. */
size_t tok_match_close(const struct token *tokens, size_t ntok, size_t i);
/* Index of the token that opens the bracket closed at tokens[i], looking
 * back no further than tokens[lo]; SIZE_MAX if none does. */
size_t tok_match_open(const struct token *tokens, size_t lo, size_t i);

/*
 * The file an #include directive names, as written with its delimiters
 * ("x.h" or <x.h>), when t[i] is the directive's `include`; NULL when it
 * is not one or names no file (#include MACRO, "", a NUL in the name).
 * Code in comments or strings is never a directive, as the raw lines
 * would have it.
 */
char *lex_include_name(const struct token *t, size_t n, size_t i);
/* Every #include of a lexed buffer (n tokens), as lex_include_name()
 * spells it, in order. */
GPtrArray *lex_includes(const struct token *t, size_t n);

#endif
