// SPDX-License-Identifier: GPL-2.0
/*
 * The #if condition parser and compat-branch detector.  Tokens are
 * marked old or new API the way the scan marks them.  Every range must
 * run forward within the file.
 */
#include "fuzz.h"
#include "api.h"
#include "lexer.h"
#include "ppcond.h"

static void check_ranges(const GArray *r, unsigned int last_line)
{
	for (guint i = 0; i < r->len; i++) {
		const struct line_range *lr = &g_array_index(r,
						struct line_range, i);

		FUZZ_ASSERT(lr->first >= 1 && lr->first <= lr->last);
		FUZZ_ASSERT(lr->last <= last_line);
		FUZZ_ASSERT(line_in_ranges(r, lr->first));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct token *t;
	unsigned char *mark;
	GArray *ranges, *dead;
	size_t n;

	fuzz_init();
	t = lex_all((const char *)data, size, &n);
	mark = g_malloc0(n);
	for (size_t i = 0; i < n; i++) {
		const struct api *api;

		if (t[i].kind != TOK_IDENT || (t[i].flags & TF_PP))
			continue;
		api = api_lookup(t[i].p, t[i].len);
		if (api && api->kind != API_RENAME)
			mark[i] |= MARK_OLD_API;
		else if (api_is_new_name(t[i].p, t[i].len))
			mark[i] |= MARK_NEW_API;
	}
	ranges = ppcond_compat_ranges(t, n, mark, &dead);
	check_ranges(ranges, t[n - 1].line);
	check_ranges(dead, t[n - 1].line);
	line_in_ranges(ranges, 0);
	line_in_ranges(dead, G_MAXUINT);
	g_array_free(ranges, TRUE);
	g_array_free(dead, TRUE);
	g_free(mark);
	g_free(t);
	return 0;
}
