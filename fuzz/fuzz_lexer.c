// SPDX-License-Identifier: GPL-2.0
/*
 * The lexer: any bytes give a token stream that covers the buffer in
 * order, with line and column numbers that match the newlines before
 * each token, and every bracket has a match at or after it.  The damage
 * scan (conflict markers, a comment open at the end) reads the same
 * tokens: a line it names is a line of the buffer.
 */
#include "damage.h"
#include "fuzz.h"
#include "lexer.h"

struct pos {
	const char *p;		/* counted up to here */
	const char *line_start;
	unsigned int line;
};

/* Count newlines up to the token; tokens come in order. */
static void check_position(struct pos *at, const struct token *tok)
{
	for (; at->p < tok->p; at->p++) {
		if (*at->p == '\n') {
			at->line++;
			at->line_start = at->p + 1;
		}
	}
	FUZZ_ASSERT(tok->line == at->line);
	FUZZ_ASSERT(tok->col == (unsigned int)(tok->p - at->line_start));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *prev_end = buf;
	struct pos at = { buf, buf, 1 };
	struct token *t;
	size_t n;

	fuzz_init();
	t = lex_all(buf, size, &n);
	FUZZ_ASSERT(n >= 1 && t[n - 1].kind == TOK_EOF);
	FUZZ_ASSERT(t[n - 1].p == buf + size);
	for (size_t i = 0; i < n; i++) {
		FUZZ_ASSERT(t[i].p >= prev_end);
		FUZZ_ASSERT(t[i].p + t[i].len <= buf + size);
		FUZZ_ASSERT(t[i].kind == TOK_EOF || t[i].kind == TOK_PP_END ||
			    t[i].len > 0);
		FUZZ_ASSERT(i + 1 == n || t[i].kind != TOK_EOF);
		check_position(&at, &t[i]);
		prev_end = t[i].p + t[i].len;
		if (tok_punct(&t[i], '(') || tok_punct(&t[i], '[') ||
		    tok_punct(&t[i], '{')) {
			size_t c = tok_match_close(t, n, i);

			FUZZ_ASSERT(c >= i && c < n);
		}
	}
	{
		unsigned int line = 0, benign = 0, lines = 1;
		const char *why = damage_find(buf, size, t, n, &line,
					      &benign);

		for (size_t i = 0; i < size; i++)
			lines += buf[i] == '\n';
		FUZZ_ASSERT(!why || (line >= 1 && line <= lines));
		FUZZ_ASSERT(benign <= lines);
	}
	g_free(t);
	return 0;
}
