// SPDX-License-Identifier: GPL-2.0
/*
 * Name resolution (names.h) on any text.  Every identifier asked about
 * gets exactly one role, in token order; one after `.` or `->` is a
 * member, one in a directive other than a #define's body is the
 * directive's; every declaration names an identifier that was asked
 * about.
 */
#include "fuzz.h"
#include "lexer.h"
#include "names.h"

/* Every identifier but one in three, so that both kinds are met. */
static bool wanted(const struct token *t, void *ctx)
{
	(void)ctx;
	return t->kind == TOK_IDENT && (t->len + t->p[0]) % 3 != 0;
}

/* The code token before t[i] (directive lines skipped), or NULL. */
static const struct token *prev_code(const struct token *t, size_t i)
{
	while (i-- > 0)
		if (!(t[i].flags & TF_PP))
			return &t[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	GArray *uses = g_array_new(FALSE, FALSE, sizeof(struct name_use));
	GArray *decls = g_array_new(FALSE, FALSE, sizeof(struct name_decl));
	struct token *t;
	size_t n, k = 0;

	fuzz_init();
	t = lex_all(text, size, &n);
	names_resolve(t, n, wanted, NULL, uses, decls);
	for (size_t i = 0; i < n; i++) {
		const struct name_use *u;
		const struct token *p;

		if (!wanted(&t[i], NULL))
			continue;
		FUZZ_ASSERT(k < uses->len);
		u = &g_array_index(uses, struct name_use, k++);
		FUZZ_ASSERT(u->tok == i && u->role <= NAME_DIRECTIVE);
		if ((t[i].flags & TF_PP) && !(t[i].flags & TF_DEFINE_BODY)) {
			FUZZ_ASSERT(u->role == NAME_DIRECTIVE);
			continue;
		}
		FUZZ_ASSERT(u->role != NAME_DIRECTIVE);
		p = t[i].flags & TF_PP ? (i ? &t[i - 1] : NULL) :
					 prev_code(t, i);
		if (p && (!(t[i].flags & TF_PP) || (p->flags & TF_DEFINE_BODY))
		    && (tok_punct(p, '.') || TOK_IS(p, "->")))
			FUZZ_ASSERT(u->role == NAME_MEMBER);
	}
	FUZZ_ASSERT(k == uses->len);
	for (guint i = 0; i < decls->len; i++) {
		const struct name_decl *d = &g_array_index(decls,
						struct name_decl, i);

		FUZZ_ASSERT(d->tok < n && wanted(&t[d->tok], NULL));
		FUZZ_ASSERT(d->kind == DECL_EXTERN || d->kind == DECL_OWN);
	}
	g_array_free(uses, TRUE);
	g_array_free(decls, TRUE);
	g_free(t);
	return 0;
}
