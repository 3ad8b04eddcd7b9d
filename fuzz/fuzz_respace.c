// SPDX-License-Identifier: GPL-2.0
/*
 * The re-spacer of the lines a conversion adds (tool/rewrite/respace.c):
 * the input is two texts split at the first NUL byte, the file before
 * and after spatch, whose added lines are re-spaced; with no NUL byte,
 * the input is the text after and every line of it counts as added.
 * Whatever the re-spacer decides, it may change blanks and line breaks
 * only: the result with every blank, carriage return and newline taken
 * out is the text so stripped, byte for byte.
 */
#include "fuzz.h"
#include "respace.h"

static GString *stripped(const char *p, size_t len)
{
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", p[i]) || !p[i])
			g_string_append_c(s, p[i]);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(data, '\0', size);
	const char *new_text = nul ? nul + 1 : text;
	size_t new_len = size - (size_t)(new_text - text);
	size_t out_len = 0;
	char *out;

	fuzz_init();
	if (nul) {
		out = respace_changed(text, (size_t)(nul - text), new_text,
				      new_len, &out_len);
	} else {
		size_t lines = 1;
		bool *added;

		for (size_t i = 0; i < size; i++)
			lines += text[i] == '\n';
		added = g_new(bool, lines);
		for (size_t i = 0; i < lines; i++)
			added[i] = true;
		out = respace_lines(text, size, added, lines, &out_len);
		g_free(added);
	}
	if (out) {
		GString *a = stripped(new_text, new_len);
		GString *b = stripped(out, out_len);

		FUZZ_ASSERT(a->len == b->len && !memcmp(a->str, b->str,
							 a->len));
		g_string_free(a, TRUE);
		g_string_free(b, TRUE);
		g_free(out);
	}
	return 0;
}
