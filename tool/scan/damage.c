// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged files (damage.h): found by bytes, for conflict markers, and
 * after the last token, for a comment that never closes.
 */
#include <string.h>

#include "damage.h"

static unsigned int line_of(const char *text, const char *p)
{
	unsigned int line = 1;

	for (const char *q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

/* A line that starts with seven of c and then a blank or its end, as
 * git writes "<<<<<<< HEAD", "=======" and ">>>>>>> topic". */
static const char *marker(const char *text, const char *from,
			  const char *end, char c)
{
	const char *p = from;

	while (p && p + 7 <= end) {
		size_t k = 0;

		if (p == text || p[-1] == '\n') {
			while (k < 7 && p[k] == c)
				k++;
			if (k == 7 && (p + 7 == end || p[7] == ' ' ||
				       p[7] == '\n' || p[7] == '\r'))
				return p;
		}
		p = memchr(p, '\n', end - p);
		if (p)
			p++;
	}
	return NULL;
}

static const char *conflict(const char *text, size_t len)
{
	const char *end = text + len;
	const char *open = marker(text, text, end, '<');

	/* both ends of a conflict, so that a stray line of '<' in a
	 * comment's ASCII art is not taken for one */
	if (open && marker(text, open, end, '>'))
		return open;
	return NULL;
}

/* The start of a block comment after the last token that has no end. */
static const char *open_comment(const char *text, size_t len,
				const struct token *toks, size_t ntok)
{
	const char *p = text, *end = text + len;

	for (size_t i = ntok; i-- > 0;) {
		if (toks[i].kind != TOK_EOF) {
			p = toks[i].p + toks[i].len;
			break;
		}
	}
	/* only blanks and comments are left */
	while (p < end) {
		if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			const char *c = memmem(p + 2, end - p - 2, "*/", 2);

			if (!c)
				return p;
			p = c + 2;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p += (*p == '\\' && p + 1 < end) ? 2 : 1;
		} else {
			p++;
		}
	}
	return NULL;
}

const char *damage_find(const char *text, size_t len,
			const struct token *toks, size_t ntok,
			unsigned int *line)
{
	const char *at;

	if ((at = conflict(text, len))) {
		*line = line_of(text, at);
		return DAMAGE_CONFLICT;
	}
	if ((at = open_comment(text, len, toks, ntok))) {
		*line = line_of(text, at);
		return DAMAGE_OPEN_COMMENT;
	}
	return NULL;
}
