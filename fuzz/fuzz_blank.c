// SPDX-License-Identifier: GPL-2.0
/*
 * Blanking the function bodies that cannot matter, and merging spatch's
 * result back.  The blanked copy has every newline where the text has
 * one and differs only by spaces; every name that matters to the rules
 * and every directive is still there, byte for byte.  Merging the blanked
 * copy itself gives the text back, and an edit of a line blanking left
 * alone comes through in the text (or the merge gives up).
 */
#include "fuzz.h"
#include "blank.h"
#include "lexer.h"

static bool matters(const struct token *t)
{
	if (t->flags & TF_PP)
		return true;
	if (t->kind != TOK_IDENT)
		return false;
	if (TOK_IS(t, "data") || TOK_IS(t, "function") || TOK_IS(t, "cb"))
		return true;
	for (unsigned int i = 0; i + 5 <= t->len; i++)
		if (!memcmp(t->p + i, "timer", 5) ||
		    !memcmp(t->p + i, "TIMER", 5))
			return true;
	return false;
}

/* Lines are equal in text and copy: the first such line, or -1. */
static gssize untouched_line(const char *a, const char *b, size_t len)
{
	size_t start = 0;
	gssize line = 0;

	for (size_t i = 0; i < len; i++) {
		if (a[i] != '\n')
			continue;
		if (!memcmp(a + start, b + start, i - start))
			return line;
		start = i + 1;
		line++;
	}
	return -1;
}

/* text with a comment put at the end of line `line` */
static char *edit_line(const char *text, size_t len, gssize line,
		       size_t *out_len)
{
	GString *s = g_string_new_len(text, (gssize)len);
	size_t at = 0;

	for (gssize l = 0; l <= line; l++)
		at = (size_t)((const char *)memchr(s->str + at, '\n',
						   s->len - at) - s->str) + 1;
	g_string_insert(s, (gssize)at - 1, " /* x */");
	*out_len = s->len;
	return g_string_free(s, FALSE);
}

static void check_merge(const char *text, size_t size, const char *blanked)
{
	size_t len, r_len, want_len;
	char *merged = blank_merge(text, size, blanked, size, blanked, size,
				   &len);
	gssize line;
	char *r, *want;

	FUZZ_ASSERT(merged && len == size && !memcmp(merged, text, size));
	g_free(merged);
	line = untouched_line(text, blanked, size);
	if (line < 0)
		return;
	r = edit_line(blanked, size, line, &r_len);
	want = edit_line(text, size, line, &want_len);
	/* a diff that pairs the lines otherwise may make it give up, never
	 * give something else */
	merged = blank_merge(text, size, blanked, size, r, r_len, &len);
	FUZZ_ASSERT(!merged ||
		    (len == want_len && !memcmp(merged, want, len)));
	g_free(merged);
	g_free(r);
	g_free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	GPtrArray *names = g_ptr_array_new();
	struct token *t;
	size_t n, blanked;
	char *copy;

	fuzz_init();
	g_ptr_array_add(names, "cb");
	t = lex_all(text, size, &n);
	copy = blank_bodies(text, size, t, n, names, &blanked);
	if (copy) {
		size_t changed = 0;

		for (size_t i = 0; i < size; i++) {
			if (copy[i] == text[i])
				continue;
			FUZZ_ASSERT(copy[i] == ' ' && text[i] != '\n');
			changed++;
		}
		FUZZ_ASSERT(changed <= blanked);
		for (size_t i = 0; i < n; i++)
			if (matters(&t[i]))
				FUZZ_ASSERT(!memcmp(copy + (t[i].p - text),
						    t[i].p, t[i].len));
		check_merge(text, size, copy);
	} else {
		FUZZ_ASSERT(blanked == 0);
	}
	g_free(copy);
	g_free(t);
	g_ptr_array_free(names, TRUE);
	return 0;
}
