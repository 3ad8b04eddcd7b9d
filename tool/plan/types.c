// SPDX-License-Identifier: GPL-2.0
/*
 * Types for the planner: what spatch inferred for a variable, walked
 * through member chains with the struct index, and the timer keys and
 * container types that come out of it.
 */
#include <string.h>

#include "planner.h"

/*
 * Walk a type through segs[from, to) of a chain: "struct foo *" through
 * ->hw.watchdog.  Returns false when a struct or member is unknown.
 */
bool type_walk(struct conversion *cv, const char *file, struct ctype *t,
	       const struct chain *c, size_t from, size_t to)
{
	struct struct_index *si = conv_structs(cv);

	for (size_t i = from; i < to; i++) {
		const struct seg *s = c->segs->pdata[i];
		const struct member *m;

		if ((s->arrow && t->ptr != 1) || (!s->arrow && t->ptr != 0))
			return false;
		m = structs_member(si, t->tag, s->name, file);
		if (!m)
			return false;
		g_free(t->tag);
		g_free(t->text);
		t->tag = g_strdup(m->type.tag);
		t->text = g_strdup(m->type.text);
		t->ptr = m->type.ptr;
		t->array = m->type.array;
		if (s->index) {
			if (!t->array)
				return false;
			t->array = false;
		}
	}
	return true;
}

/* The type of the variable `name` where the construct at f_func is. */
bool var_type(struct conversion *cv, struct cfile *f, const char *func,
	      const char *name, struct ctype *out)
{
	const char *ty;

	memset(out, 0, sizeof(*out));
	if (!f->facts)
		return false;
	ty = facts_type(f->facts, func, name);
	if (!ty)
		return false;
	return ctype_parse_in(conv_structs(cv), ty, f->path, out);
}

/* chan[i] and chan[j] are the same timers, whatever the loop calls i. */
static char *normalize_index(char *field)
{
	GRegex *re;
	char *norm;

	if (!strchr(field, '['))
		return field;
	re = g_regex_new("\\[[^]]*[a-z][^]]*\\]", 0, 0, NULL);
	norm = g_regex_replace_literal(re, field, -1, 0, "[*]", 0, NULL);
	g_regex_unref(re);
	g_free(field);
	return norm;
}

char *timer_key(struct conversion *cv, struct cfile *f, const char *func,
		const struct chain *c, char **container)
{
	struct ctype t = { 0 };
	size_t group;
	char *field;
	char *key;

	*container = NULL;
	if (!c->segs->len)
		return g_strdup_printf("global:%s:%s", f->path, c->base);
	field = normalize_index(chain_last_field(c, &group));
	if (var_type(cv, f, func, c->base, &t) &&
	    type_walk(cv, f->path, &t, c, 0, group) && t.ptr <= 1 &&
	    ((const struct seg *)c->segs->pdata[group])->arrow == (t.ptr == 1)) {
		const char *def = structs_def_file(conv_structs(cv), t.tag,
						   f->path);

		*container = g_strdup(t.tag);
		/* a struct a .c file defines for itself is its own: two
		 * drivers' struct foo_priv are not one timer */
		if (def && g_str_has_suffix(def, ".c"))
			key = g_strdup_printf("%s@%s#%s", t.tag, def, field);
		else
			key = g_strdup_printf("%s#%s", t.tag, field);
	} else {
		key = g_strdup_printf("?%s#%s", f->path, field);
	}
	ctype_clear(&t);
	g_free(field);
	return key;
}

char *pointee_type(struct conversion *cv, struct cfile *f, const char *func,
		   const char *data)
{
	char *bare = strip_casts(data);
	struct chain d;
	struct ctype t = { 0 };
	char *res = NULL;

	if (!bare || !chain_parse(bare, &d)) {
		g_free(bare);
		return NULL;
	}
	if (var_type(cv, f, func, d.base, &t) &&
	    type_walk(cv, f->path, &t, &d, 0, d.segs->len) &&
	    t.ptr == (d.addr ? 0 : 1)) {
		struct ctype r = { 0 };

		/* a typedef of a struct (zap_port_t) names the struct, as
		 * the callback's cast to it does */
		if (ctype_parse_in(conv_structs(cv), t.tag, f->path, &r) &&
		    !r.ptr && r.tag)
			res = g_strdup(r.tag);
		else
			res = g_strdup(t.tag);
		ctype_clear(&r);
	}
	ctype_clear(&t);
	chain_clear(&d);
	g_free(bare);
	return res;
}

/*
 * Walk struct `tag` down "hw.watchdog" and check it ends on a struct
 * timer_list.  *unknown tells a struct on the way that the tree does not
 * define from a member that a known struct lacks.
 */
const char *check_field(struct conversion *cv, const char *file,
			const char *tag, const char *field, bool *unknown)
{
	struct struct_index *si = conv_structs(cv);
	char *text = g_strdup_printf("x.%s", field);
	struct chain c;
	struct ctype t = { 0 };
	const char *why = NULL;

	*unknown = false;
	if (!chain_parse(text, &c)) {
		g_free(text);
		return "field not understood";
	}
	t.tag = g_strdup(tag);
	for (size_t i = 0; i < c.segs->len && !why; i++) {
		const struct seg *sg = c.segs->pdata[i];
		bool ambiguous;

		if (!structs_known(si, t.tag)) {
			*unknown = true;
			why = "not defined in the tree";
		} else if (!type_walk(cv, file, &t, &c, i, i + 1)) {
			/* defined by several files that disagree, none of
			 * which this file includes: as good as unknown */
			structs_member_amb(si, t.tag, sg->name, file,
					   &ambiguous);
			*unknown = ambiguous;
			why = ambiguous ?
			      "defined differently in several places" :
			      "has no struct timer_list member of that name";
		}
	}
	if (!why && (strcmp(t.tag, "struct timer_list") || t.ptr || t.array))
		why = "has no struct timer_list member of that name";
	chain_clear(&c);
	ctype_clear(&t);
	g_free(text);
	return why;
}

bool named_key(const char *key)
{
	return g_str_has_prefix(key, "global:") ||
	       g_str_has_prefix(key, "local:");
}

bool same_timer(const struct tref *a, const struct tref *b)
{
	const char *ha, *hb;

	if (!a->key || !b->key)
		return false;
	if (!strcmp(a->key, b->key))
		return true;
	if (a->key[0] != '?' && b->key[0] != '?')
		return false;
	ha = strchr(a->key, '#');
	hb = strchr(b->key, '#');
	return ha && hb && a->file == b->file && !strcmp(ha, hb);
}

static bool c_keyword(const char *s)
{
	static const char *const words[] = {
		"do", "if", "for", "int", "auto", "case", "char", "else",
		"enum", "goto", "long", "void", NULL
	};

	for (int i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return true;
	return false;
}

/* struct cisco_state -> "cs": the initials of the tag's words. */
char *local_name(const char *tag, GHashTable *taken)
{
	const char *name = g_str_has_prefix(tag, "struct ") ?
			   tag + strlen("struct ") : tag;
	GString *s = g_string_new(NULL);
	char *res;

	for (const char *p = name; *p; p++)
		if ((p == name || p[-1] == '_') && g_ascii_isalpha(*p))
			g_string_append_c(s, g_ascii_tolower(*p));
	if (s->len < 2)
		g_string_append(s, "ctx");
	res = g_strdup(s->str);
	for (int i = 2; g_hash_table_contains(taken, res) ||
			c_keyword(res); i++) {
		g_free(res);
		res = g_strdup_printf("%s%d", s->str, i);
	}
	g_string_free(s, TRUE);
	return res;
}
