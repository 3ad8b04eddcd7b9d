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

static bool is_marker(const char *p, const char *end, char c)
{
	size_t k = 0;

	while (k < 7 && p + k < end && p[k] == c)
		k++;
	return k == 7 && (p + 7 == end || p[7] == ' ' || p[7] == '\n' ||
			  p[7] == '\r');
}

/*
 * Whether the lines in [p, end) hold code: anything but blank lines,
 * directives, comment lines and markers (between the sides, or of a
 * conflict nested in this one).  Real
 * trees carry conflicts committed around an #include (the removal of
 * <asm/system.h> in 2012): spatch reads past those, and the code around
 * them converts as it would without them.
 */
static bool holds_code(const char *p, const char *end)
{
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *q = p;

		if (!eol)
			eol = end;
		while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < eol && *q != '#' && !is_marker(q, eol, '=') &&
		    !is_marker(q, eol, '|') && !is_marker(q, eol, '<') &&
		    !is_marker(q, eol, '>') &&
		    !(eol - q >= 2 && q[0] == '/' &&
		      (q[1] == '/' || q[1] == '*')) &&
		    !(*q == '*' && (q + 1 == eol || q[1] == ' ' ||
				    q[1] == '/')))
			return true;
		p = eol + 1;
	}
	return false;
}

/* The first conflict around code, or NULL; *benign: the first around
 * directives and comments only. */
static const char *conflict(const char *text, size_t len,
			    const char **benign)
{
	const char *end = text + len, *p = text, *open;

	*benign = NULL;
	while ((open = marker(text, p, end, '<'))) {
		const char *body = memchr(open, '\n', end - open);
		/* both ends of a conflict, so that a stray line of '<' in
		 * a comment's ASCII art is not taken for one */
		const char *close = body ? marker(text, body + 1, end, '>') :
				    NULL;

		if (!close)
			break;
		if (holds_code(body + 1, close))
			return open;
		if (!*benign)
			*benign = open;
		p = close + 7;
	}
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
			unsigned int *line, unsigned int *conflict_line)
{
	const char *at, *benign;

	at = conflict(text, len, &benign);
	*conflict_line = benign ? line_of(text, benign) : 0;
	if (at) {
		*line = line_of(text, at);
		return DAMAGE_CONFLICT;
	}
	if ((at = open_comment(text, len, toks, ntok))) {
		*line = line_of(text, at);
		return DAMAGE_OPEN_COMMENT;
	}
	return NULL;
}
