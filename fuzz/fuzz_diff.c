// SPDX-License-Identifier: GPL-2.0
/*
 * The diff writer: the input is two texts, split at the first NUL byte
 * (or in the middle when there is none).  The unified diff of the two
 * must apply to the old text and give the new one, byte for byte, with
 * hunk headers that count their lines, and diff_count() must agree with
 * the diff's + and - lines.
 */
#include "fuzz.h"
#include "diff.h"

struct text {
	const char *p;
	size_t len;
	size_t at;		/* bytes of it consumed */
};

/* The next line of t (with its newline, if any); false at the end. */
static bool next_line(struct text *t, const char **line, size_t *len)
{
	const char *nl;

	if (t->at >= t->len)
		return false;
	*line = t->p + t->at;
	nl = memchr(*line, '\n', t->len - t->at);
	*len = nl ? (size_t)(nl - *line) + 1 : t->len - t->at;
	t->at += *len;
	return true;
}

static size_t parse_range(const char **s, size_t *count)
{
	char *end;
	size_t start = strtoul(*s, &end, 10);

	*count = 1;
	if (*end == ',')
		*count = strtoul(end + 1, &end, 10);
	*s = end;
	return start;
}

/* Apply the diff in patch to old; the result goes to out. */
static void apply(const char *old, size_t old_len, const GString *patch,
		  GString *out, guint *plus, guint *minus)
{
	struct text o = { old, old_len, 0 };
	struct text p = { patch->str, patch->len, 0 };
	size_t old_line = 0;	/* old lines copied or consumed */
	size_t new_line = 0;	/* lines written to out */
	size_t want_a = 0, want_b = 0;	/* the hunk's counts, left */
	const char *l, *ol;
	size_t len, olen;
	char last = 0;		/* kind of the last body line */

	*plus = *minus = 0;
	FUZZ_ASSERT(next_line(&p, &l, &len) && !strncmp(l, "--- a/f.c\n",
							 len));
	FUZZ_ASSERT(next_line(&p, &l, &len) && !strncmp(l, "+++ b/f.c\n",
							 len));
	while (next_line(&p, &l, &len)) {
		FUZZ_ASSERT(l[len - 1] == '\n');
		if (len >= 2 && l[0] == '@' && l[1] == '@') {
			const char *s = l + 2;
			size_t a, na, b, nb, first;

			FUZZ_ASSERT(want_a == 0 && want_b == 0);
			FUZZ_ASSERT(!strncmp(s, " -", 2));
			s += 2;
			a = parse_range(&s, &na);
			FUZZ_ASSERT(!strncmp(s, " +", 2));
			s += 2;
			b = parse_range(&s, &nb);
			FUZZ_ASSERT(!strncmp(s, " @@", 3));
			FUZZ_ASSERT(nb == 0 || b >= 1);
			FUZZ_ASSERT(na + nb > 0);
			/* an empty range names the line before it */
			first = na ? a - 1 : a;
			FUZZ_ASSERT(na == 0 || a >= 1);
			FUZZ_ASSERT(first >= old_line);
			while (old_line < first) {
				FUZZ_ASSERT(next_line(&o, &ol, &olen));
				g_string_append_len(out, ol, olen);
				old_line++;
				new_line++;
			}
			FUZZ_ASSERT(new_line == (nb ? b - 1 : b));
			want_a = na;
			want_b = nb;
			last = '@';
			continue;
		}
		FUZZ_ASSERT(last != 0);
		switch (l[0]) {
		case ' ':
		case '-':
			FUZZ_ASSERT(next_line(&o, &ol, &olen));
			old_line++;
			/* the old line, bar a missing final newline */
			FUZZ_ASSERT(olen == len - 1 || (olen == len - 2 &&
							o.at == o.len));
			FUZZ_ASSERT(!memcmp(ol, l + 1, olen));
			FUZZ_ASSERT(want_a-- > 0);
			if (l[0] == ' ') {
				g_string_append_len(out, l + 1, len - 1);
				FUZZ_ASSERT(want_b-- > 0);
				new_line++;
			} else {
				(*minus)++;
			}
			break;
		case '+':
			g_string_append_len(out, l + 1, len - 1);
			FUZZ_ASSERT(want_b-- > 0);
			new_line++;
			(*plus)++;
			break;
		case '\\':
			FUZZ_ASSERT(last == ' ' || last == '-' || last == '+');
			/* the line before had no newline */
			if (last != '-') {
				FUZZ_ASSERT(out->len &&
					    out->str[out->len - 1] == '\n');
				g_string_truncate(out, out->len - 1);
			}
			break;
		default:
			FUZZ_ASSERT(!"a diff line starts with ' ', -, + or \\");
		}
		last = l[0];
	}
	FUZZ_ASSERT(want_a == 0 && want_b == 0);
	while (next_line(&o, &ol, &olen))
		g_string_append_len(out, ol, olen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *old = (const char *)data, *new_text;
	const char *nul = memchr(data, '\0', size);
	size_t old_len, new_len;
	GString *patch, *out;
	guint added, removed, plus, minus;

	fuzz_init();
	old_len = nul ? (size_t)(nul - old) : size / 2;
	new_text = old + old_len + (nul ? 1 : 0);
	new_len = size - (size_t)(new_text - old);
	patch = g_string_new(NULL);
	diff_unified(patch, "f.c", old, old_len, new_text, new_len);
	out = g_string_new(NULL);
	apply(old, old_len, patch, out, &plus, &minus);
	FUZZ_ASSERT(out->len == new_len);
	FUZZ_ASSERT(!memcmp(out->str, new_text, new_len));
	diff_count(old, old_len, new_text, new_len, &added, &removed);
	FUZZ_ASSERT(added == plus && removed == minus);
	g_string_free(out, TRUE);
	g_string_free(patch, TRUE);
	return 0;
}
