// SPDX-License-Identifier: GPL-2.0
/*
 * The struct index: index the input as two files (so every tag has a
 * definition in a preferred file and one elsewhere), then ask it what
 * the planner asks: parse "struct NAME *", "NAME", "const NAME **" for
 * the input's identifiers and look each other identifier up as a member.
 */
#include "fuzz.h"
#include "lexer.h"
#include "structs.h"

#define MAX_NAMES 24

static GPtrArray *identifiers(const char *buf, size_t size)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	struct lexer lx;
	struct token tok;

	lexer_init(&lx, buf, size);
	for (lexer_next(&lx, &tok); tok.kind != TOK_EOF &&
	     names->len < MAX_NAMES; lexer_next(&lx, &tok)) {
		char *name;

		if (tok.kind != TOK_IDENT)
			continue;
		name = g_strndup(tok.p, tok.len);
		if (g_hash_table_contains(seen, name)) {
			g_free(name);
			continue;
		}
		g_hash_table_add(seen, name);
		g_ptr_array_add(names, name);
	}
	g_hash_table_destroy(seen);
	return names;
}

static void lookups(struct struct_index *si, GPtrArray *names,
		    const char *fmt)
{
	for (guint i = 0; i < names->len; i++) {
		char *text = g_strdup_printf(fmt, (char *)names->pdata[i]);
		struct ctype t, u;

		if (ctype_parse(si, text, &t)) {
			FUZZ_ASSERT(t.tag && t.tag[0] && t.text);
			structs_known(si, t.tag);
			for (guint k = 0; k < names->len; k++) {
				const struct member *m = structs_member(si,
					t.tag, names->pdata[k], "a.h");

				if (m) {
					FUZZ_ASSERT(m->name && m->type.tag &&
						    m->type.text);
					FUZZ_ASSERT(!strcmp(m->name,
							    names->pdata[k]));
				}
				structs_member(si, t.tag, names->pdata[k],
					       NULL);
			}
			if (ctype_parse(si, text, &u))
				FUZZ_ASSERT(ctype_same_object(&t, &u));
			ctype_clear(&u);
		}
		ctype_clear(&t);
		g_free(text);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct struct_index *si;
	GPtrArray *names;
	char *text;
	struct ctype t;

	fuzz_init();
	si = structs_new();
	structs_add_file(si, "a.h", buf, size);
	structs_add_file(si, "b.h", buf, size);
	names = identifiers(buf, size);
	lookups(si, names, "struct %s *");
	lookups(si, names, "union %s");
	lookups(si, names, "const %s **");
	/* the input itself as a type, as spatch's facts would give it */
	text = fuzz_strdup(data, size > 256 ? 256 : size);
	ctype_parse(si, text, &t);
	ctype_clear(&t);
	g_free(text);
	g_ptr_array_free(names, TRUE);
	structs_free(si);
	return 0;
}
