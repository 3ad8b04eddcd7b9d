// SPDX-License-Identifier: GPL-2.0
/*
 * The plan: join what the scan and spatch found across files, group the
 * changes into units that must be made together, and decide each unit.
 *
 * A unit is a connected set of callbacks and timers: a callback is linked
 * to every timer it is set up on (setup_timer(), init_timer() with
 * .function, DEFINE_TIMER(), a .function assignment) and a timer to every
 * callback set up on it.  A timer is named by the struct that holds it
 * and the field (struct request_queue#timeout), or, where the type is not
 * known, by file and field, which links more rather than less.
 *
 * A unit is converted only when every callback in it can be:
 *  - its definition is found once, parsed by spatch, and every use of its
 *    name (by the lexer, macro arguments included) is a setup, a
 *    .function assignment, a prototype or a direct call spatch saw;
 *  - it ignores its data, or uses it exactly once, in a cast to its
 *    container, and every timer it runs for was set up with data that
 *    points to that container (or to the struct holding a pointer to the
 *    timer's container, when the callback only uses that pointer), at
 *    one field, with the field checked in the struct's definition;
 *  - no timer of the unit has its .data assigned anywhere else.
 * Anything else refuses the whole unit, with the first reason found.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cbody.h"
#include "conv.h"
#include "expr.h"
#include "ppcond.h"
#include "util.h"

enum bkind { B_SETUP, B_INIT, B_DEFINE, B_FUNCTION };

struct binding {
	enum bkind kind;
	struct cfile *file;
	struct f_setup *setup;
	struct f_assign *assign;
	struct csite *csite;
	struct csite *data_csite;	/* the .data line an init pair merges */
	struct chain chain;
	bool chain_ok;
	struct data_rel rel;
	char *key;
	char *container;	/* tag of the timer's own struct, if known */
	char *data_type;	/* struct the data points to, if known */
};

struct cref {
	struct cfile *file;
	struct f_named *n;
};

struct callback {
	char *key;
	char *name;
	struct cfile *home;	/* where a static callback lives */
	GPtrArray *bindings;
	GPtrArray *protos;	/* struct cref * */
	GPtrArray *calls;	/* struct cref * */
	struct cfile *def_file;
	struct f_callback *def;
	char *poison;		/* a reason found before the unit forms */
	char *poison_where;
	int node;
	/* decided */
	bool uses_data;
	struct f_cast *cast;
	struct cbody body;
	char *param;
	char *hop;
	char *hop_type;
	char *field;
};

struct planner {
	struct conversion *cv;
	GHashTable *callbacks;	/* key -> struct callback * */
	GPtrArray *bindings;
	GHashTable *nodes;	/* timer key -> node */
	GArray *parent;		/* union-find */
	GHashTable *node_cb;	/* node -> GPtrArray of callbacks */
	GPtrArray *data_sites;	/* struct csite *: unpaired .data */
	GHashTable *data_keys;	/* csite -> timer key */
	GHashTable *consumed;	/* "file\nline:col" of paired assignments */
};

/* ---- union-find ---- */

static int node_new(struct planner *pl)
{
	int n = (int)pl->parent->len;

	g_array_append_val(pl->parent, n);
	return n;
}

static int node_find(struct planner *pl, int n)
{
	int *p = (int *)pl->parent->data;

	while (p[n] != n) {
		p[n] = p[p[n]];
		n = p[n];
	}
	return n;
}

static void node_union(struct planner *pl, int a, int b)
{
	a = node_find(pl, a);
	b = node_find(pl, b);
	if (a != b)
		g_array_index(pl->parent, int, b) = a;
}

static int key_node(struct planner *pl, const char *key)
{
	gpointer v;

	if (g_hash_table_lookup_extended(pl->nodes, key, NULL, &v))
		return GPOINTER_TO_INT(v);
	v = GINT_TO_POINTER(node_new(pl));
	g_hash_table_insert(pl->nodes, g_strdup(key), v);
	return GPOINTER_TO_INT(v);
}

/* ---- refusals ---- */

static char *where(const struct cfile *f, unsigned int line)
{
	return g_strdup_printf("%s:%u", f->path, line);
}

static void poison(struct callback *cb, char *at, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static void poison(struct callback *cb, char *at, const char *fmt, ...)
{
	va_list ap;

	if (cb->poison) {
		g_free(at);
		return;
	}
	va_start(ap, fmt);
	cb->poison = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	cb->poison_where = at;
}

void unit_refuse(struct unit *u, const char *at, const char *fmt, ...)
{
	va_list ap;

	if (u->reason)
		return;
	va_start(ap, fmt);
	u->reason = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	u->where = g_strdup(at);
}

static void site_refuse(struct csite *s, const char *reason)
{
	if (s->reason)
		return;
	s->outcome = OUT_REFUSED;
	s->reason = g_strdup(reason);
}

/* ---- sites ---- */

static bool is_setup_api(const struct site *s)
{
	return s->type == SITE_API && s->api->kind != API_RENAME;
}

static struct csite *csite_new(struct conversion *cv, struct cfile *f,
			       const struct site *s)
{
	struct csite *c = g_new0(struct csite, 1);

	c->file = f;
	c->site = s;
	c->callback = g_strdup(s->callback);
	g_ptr_array_add(cv->sites, c);
	return c;
}

static struct csite *find_csite(struct conversion *cv, struct cfile *f,
				unsigned int line, unsigned int col,
				enum site_type type)
{
	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *c = cv->sites->pdata[i];

		if (c->file == f && c->site->type == type &&
		    c->site->line == line &&
		    (col == G_MAXUINT || c->site->col == col))
			return c;
	}
	return NULL;
}

/* Why spatch has nothing on a site the scan saw. */
static const char *unparsed_reason(const struct cfile *f)
{
	if (f->timed_out)
		return "not parsed: spatch timed out on this file";
	if (f->spatch_error)
		return "not parsed: spatch failed on this file";
	return "not parsed: spatch could not parse the code around it";
}

/* ---- callbacks ---- */

static bool static_in(struct cfile *f, const char *name)
{
	for (guint i = 0; f->scan && i < f->scan->ulong_funcs->len; i++) {
		struct ulong_func *u = &g_array_index(f->scan->ulong_funcs,
						      struct ulong_func, i);

		if (u->is_static && !strcmp(u->name, name))
			return true;
	}
	return false;
}

static struct callback *callback_get(struct planner *pl, struct cfile *f,
				     const char *name)
{
	bool is_static = static_in(f, name);
	char *key = is_static ? g_strdup_printf("%s@%s", name, f->path) :
				g_strdup(name);
	struct callback *cb = g_hash_table_lookup(pl->callbacks, key);

	if (cb) {
		g_free(key);
		return cb;
	}
	cb = g_new0(struct callback, 1);
	cb->key = key;
	cb->name = g_strdup(name);
	cb->home = is_static ? f : NULL;
	cb->bindings = g_ptr_array_new();
	cb->protos = g_ptr_array_new_with_free_func(g_free);
	cb->calls = g_ptr_array_new_with_free_func(g_free);
	cb->node = node_new(pl);
	g_hash_table_insert(pl->callbacks, cb->key, cb);
	return cb;
}

static bool is_ident(const char *s)
{
	if (!s || !(g_ascii_isalpha(*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(g_ascii_isalnum(*s) || *s == '_'))
			return false;
	return true;
}

/* ---- types ---- */

/*
 * Walk a type through segs[from, to) of a chain: "struct foo *" through
 * ->hw.watchdog.  Returns false when a struct or member is unknown.
 */
static bool walk(struct conversion *cv, const char *file, struct ctype *t,
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
static bool var_type(struct conversion *cv, struct cfile *f, const char *func,
		     const char *name, struct ctype *out)
{
	const char *ty;

	memset(out, 0, sizeof(*out));
	if (!f->facts)
		return false;
	ty = facts_type(f->facts, func, name);
	if (!ty)
		return false;
	return ctype_parse(conv_structs(cv), ty, out);
}

/* Key of the timer at chain c: "struct foo#field", else file-local. */
static char *timer_key(struct conversion *cv, struct cfile *f,
		       const char *func, const struct chain *c,
		       char **container)
{
	struct ctype t = { 0 };
	size_t group;
	char *field;
	char *key;

	*container = NULL;
	if (!c->segs->len)
		return g_strdup_printf("global:%s:%s", f->path, c->base);
	field = chain_last_field(c, &group);
	/* chan[i] and chan[j]: the same timers, whatever the loop calls i */
	if (strchr(field, '[')) {
		GRegex *re = g_regex_new("\\[[^]]*[a-z][^]]*\\]", 0, 0, NULL);
		char *norm = g_regex_replace_literal(re, field, -1, 0, "[*]", 0,
						     NULL);

		g_regex_unref(re);
		g_free(field);
		field = norm;
	}
	if (var_type(cv, f, func, c->base, &t) &&
	    walk(cv, f->path, &t, c, 0, group) && t.ptr <= 1 &&
	    ((const struct seg *)c->segs->pdata[group])->arrow == (t.ptr == 1)) {
		*container = g_strdup(t.tag);
		key = g_strdup_printf("%s#%s", t.tag, field);
	} else {
		key = g_strdup_printf("?%s#%s", f->path, field);
	}
	ctype_clear(&t);
	g_free(field);
	return key;
}

/* The struct a data expression points to, if spatch knows its type. */
static char *pointee_type(struct conversion *cv, struct cfile *f,
			  const char *func, const char *data)
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
	    walk(cv, f->path, &t, &d, 0, d.segs->len) &&
	    t.ptr == (d.addr ? 0 : 1))
		res = g_strdup(t.tag);
	ctype_clear(&t);
	chain_clear(&d);
	g_free(bare);
	return res;
}

/* ---- bindings ---- */

static struct binding *binding_new(struct planner *pl, enum bkind kind,
				   struct cfile *f, struct callback *cb)
{
	struct binding *b = g_new0(struct binding, 1);

	b->kind = kind;
	b->file = f;
	g_ptr_array_add(pl->bindings, b);
	g_ptr_array_add(cb->bindings, b);
	return b;
}

static void bind_timer(struct planner *pl, struct callback *cb,
		       struct binding *b, const char *timer, const char *func,
		       const char *data, struct fpos at)
{
	char *alias = NULL;

	b->chain_ok = chain_parse(timer, &b->chain);
	/* struct timer_list *timer = &ch->retry_timer; init_timer(timer); */
	if (b->chain_ok && !b->chain.addr && !b->chain.segs->len)
		alias = local_alias(b->file, at, b->chain.base);
	if (alias) {
		chain_clear(&b->chain);
		b->chain_ok = chain_parse(alias, &b->chain);
		g_free(alias);
	}
	if (!b->chain_ok) {
		b->key = g_strdup_printf("expr:%s:%s", b->file->path, timer);
		b->rel.rel = REL_NOT_MEMBER;
	} else {
		b->key = timer_key(pl->cv, b->file, func, &b->chain,
				   &b->container);
		if (data)
			data_relation(&b->chain, data, &b->rel);
		else
			b->rel.rel = REL_NOT_CONTAINER;
	}
	if (data)
		b->data_type = pointee_type(pl->cv, b->file, func, data);
	/* setup_timer(&p->t, fn, i) with `int i`: an integer, not a pointer */
	if (data && b->rel.rel == REL_NOT_CONTAINER) {
		char *bare = strip_casts(data);
		struct ctype t = { 0 };

		if (bare && is_ident(bare) &&
		    var_type(pl->cv, b->file, func, bare, &t) && !t.ptr &&
		    !g_str_has_prefix(t.tag, "struct ") &&
		    !g_str_has_prefix(t.tag, "union "))
			b->rel.rel = REL_INTEGER;
		ctype_clear(&t);
		g_free(bare);
	}
	node_union(pl, cb->node, key_node(pl, b->key));
}

static const char *init_flags(const struct api *api, const char *own)
{
	return api->flags ? api->flags : own;
}

/* A callback written as its address, &fn, is fn. */
static const char *fn_name(const char *text)
{
	if (text && text[0] == '&')
		for (text++; *text == ' '; text++)
			;
	return text;
}

/* The name's own position in a use written at `at`: `fn`, or `& fn`. */
static bool at_name(const char *text, struct fpos at, struct fpos ref)
{
	if (fpos_eq(at, ref))
		return true;
	return text && text[0] == '&' && at.line == ref.line &&
	       ref.col > at.col && ref.col <= at.col + 3;
}

/* The scan's site for the .data assignment whose value is at `at`. */
static struct csite *assign_csite(struct conversion *cv, struct cfile *f,
				  struct fpos at)
{
	for (guint i = 0; f->facts && i < f->facts->assigns->len; i++) {
		struct f_assign *a = f->facts->assigns->pdata[i];

		if (fpos_eq(a->value_at, at))
			return find_csite(cv, f, a->at.line, G_MAXUINT,
					  SITE_DATA_ASSIGN);
	}
	return NULL;
}

static void add_setup_bindings(struct planner *pl, struct cfile *f)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; f->facts && i < f->facts->setups->len; i++) {
		struct f_setup *s = f->facts->setups->pdata[i];
		struct csite *cs = find_csite(cv, f, s->at.line, s->at.col,
					      SITE_API);
		struct callback *cb;
		struct binding *b;

		if (!cs || cs->reason)
			continue;
		if (s->kind == FS_INIT && !s->paired) {
			site_refuse(cs, "init_timer() without a .function assignment on every path after it");
			continue;
		}
		if (!is_ident(fn_name(s->fn))) {
			site_refuse(cs, "callback is not a function name");
			continue;
		}
		cb = callback_get(pl, f, fn_name(s->fn));
		b = binding_new(pl, s->kind == FS_SETUP ? B_SETUP :
				    s->kind == FS_INIT ? B_INIT : B_DEFINE,
				f, cb);
		b->setup = s;
		b->csite = cs;
		if (s->kind == FS_DEFINE) {
			char *name = s->name ? g_strdup(s->name) :
					       g_strdup(s->func);

			b->key = g_strdup_printf("global:%s:%s", f->path, name);
			b->rel.rel = REL_NOT_MEMBER;
			node_union(pl, cb->node, key_node(pl, b->key));
			g_free(name);
			continue;
		}
		if (s->kind == FS_INIT && s->paired) {
			g_hash_table_add(pl->consumed, g_strdup_printf(
				"%s\n%u:%u", f->path, s->fn_at.line,
				s->fn_at.col));
			if (s->has_data) {
				g_hash_table_add(pl->consumed,
					g_strdup_printf("%s\n%u:%u", f->path,
							s->data_at.line,
							s->data_at.col));
				b->data_csite = assign_csite(cv, f,
							     s->data_at);
			}
		}
		/* init_timer(&t) names the timer as &t, the setups too. */
		bind_timer(pl, cb, b, s->timer, s->func,
			   s->kind == FS_INIT && !s->has_data ? NULL : s->data,
			   s->at);
	}
}

static bool consumed(struct planner *pl, struct cfile *f, struct fpos at)
{
	char *k = g_strdup_printf("%s\n%u:%u", f->path, at.line, at.col);
	bool res = g_hash_table_contains(pl->consumed, k);

	g_free(k);
	return res;
}

/* The chain of an assignment's object, as the timer's address. */
static char *addr_of(const char *object)
{
	return g_strdup_printf("& %s", object);
}

static bool object_is_timer(struct cfile *f, const char *object)
{
	struct chain c;
	const char *last;
	bool res;

	if (!f->scan || !chain_parse(object, &c))
		return false;
	last = c.segs->len ?
		((struct seg *)c.segs->pdata[c.segs->len - 1])->name : c.base;
	res = g_hash_table_contains(f->scan->timer_names, last);
	chain_clear(&c);
	return res;
}

/* Does some file of the run define `name` taking unsigned long? */
static bool ulong_defined(struct conversion *cv, const char *name)
{
	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		for (guint k = 0; f->scan && k < f->scan->ulong_funcs->len;
		     k++) {
			struct ulong_func *u = &g_array_index(
				f->scan->ulong_funcs, struct ulong_func, k);

			if (u->is_def && !strcmp(u->name, name))
				return true;
		}
	}
	return false;
}

static void add_assign_bindings(struct planner *pl, struct cfile *f)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; f->facts && i < f->facts->assigns->len; i++) {
		struct f_assign *a = f->facts->assigns->pdata[i];
		char *timer;

		if (consumed(pl, f, a->value_at))
			continue;
		if (!strcmp(a->field, "data")) {
			struct csite *cs = find_csite(cv, f, a->at.line,
						      G_MAXUINT,
						      SITE_DATA_ASSIGN);
			struct chain c;
			char *container = NULL;

			if (!cs)
				continue;
			timer = addr_of(a->object);
			if (chain_parse(timer, &c)) {
				g_hash_table_insert(pl->data_keys, cs,
					timer_key(cv, f, a->func, &c,
						  &container));
				chain_clear(&c);
			}
			g_free(container);
			g_free(timer);
			g_ptr_array_add(pl->data_sites, cs);
			continue;
		}
		const char *value = fn_name(a->value);

		if (!is_ident(value) || !strcmp(value, "NULL"))
			continue;
		/* A callback on today's prototype needs nothing: only a known
		 * old callback, or one defined taking unsigned long, is bound
		 * to the timer through its .function. */
		{
			char *k = g_strdup_printf("%s@%s", value, f->path);
			bool known = g_hash_table_contains(pl->callbacks, k) ||
				     g_hash_table_contains(pl->callbacks, value);

			g_free(k);
			if (!known && !(object_is_timer(f, a->object) &&
					ulong_defined(cv, value)))
				continue;
		}
		{
			struct callback *cb = callback_get(pl, f, value);
			struct binding *b = binding_new(pl, B_FUNCTION, f, cb);

			b->assign = a;
			timer = addr_of(a->object);
			bind_timer(pl, cb, b, timer, a->func, NULL, a->at);
			g_free(timer);
		}
	}
}

struct keyed {
	const struct cfile *file;
	const char *key;
};

/* A file-local key (type unknown) joins the known keys of that field in
 * the same file, from setups and from .data assignments alike. */
static void link_unknown_keys(struct planner *pl)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(struct keyed));
	GHashTableIter it;
	gpointer cs, key;

	for (guint j = 0; j < pl->bindings->len; j++) {
		struct binding *b = pl->bindings->pdata[j];
		struct keyed k = { b->file, b->key };

		if (b->key)
			g_array_append_val(all, k);
	}
	g_hash_table_iter_init(&it, pl->data_keys);
	while (g_hash_table_iter_next(&it, &cs, &key)) {
		struct keyed k = { ((struct csite *)cs)->file, key };

		key_node(pl, key);
		g_array_append_val(all, k);
	}
	for (guint i = 0; i < all->len; i++) {
		struct keyed *u = &g_array_index(all, struct keyed, i);
		const char *hash = strchr(u->key, '#');

		if (u->key[0] != '?' || !hash)
			continue;
		for (guint j = 0; j < all->len; j++) {
			struct keyed *k = &g_array_index(all, struct keyed, j);
			const char *kh = strchr(k->key, '#');

			if (k->file == u->file && kh && !strcmp(kh, hash))
				node_union(pl, key_node(pl, u->key),
					   key_node(pl, k->key));
		}
	}
	g_array_free(all, TRUE);
}

/* ---- where a callback is defined, declared, called ---- */

static bool proto_known(struct callback *cb, struct cfile *f,
			struct fpos at)
{
	for (guint i = 0; i < cb->protos->len; i++) {
		struct cref *r = cb->protos->pdata[i];

		if (r->file == f && fpos_eq(r->n->at, at))
			return true;
	}
	return false;
}

/* The facts of one kind (prototypes, calls) about the callback `name`. */
static void add_crefs(GPtrArray *to, struct cfile *f, GPtrArray *facts,
		      const char *name)
{
	for (guint k = 0; k < facts->len; k++) {
		struct f_named *n = facts->pdata[k];
		struct cref *r;

		if (strcmp(n->name, name))
			continue;
		r = g_new0(struct cref, 1);
		r->file = f;
		r->n = n;
		g_ptr_array_add(to, r);
	}
}

static void collect_decls(struct planner *pl, struct callback *cb)
{
	struct conversion *cv = pl->cv;
	guint defs = 0;

	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (cb->home && cb->home != f)
			continue;
		for (guint k = 0; f->scan && k < f->scan->ulong_funcs->len;
		     k++) {
			struct ulong_func *u = &g_array_index(
				f->scan->ulong_funcs, struct ulong_func, k);

			if (strcmp(u->name, cb->name))
				continue;
			if (u->is_static && !cb->home)
				continue;
			if (u->is_def)
				defs++;
		}
		for (guint k = 0; f->facts && k < f->facts->callbacks->len;
		     k++) {
			struct f_callback *c = f->facts->callbacks->pdata[k];

			if (!strcmp(c->name, cb->name) &&
			    (cb->home || !static_in(f, cb->name))) {
				cb->def = c;
				cb->def_file = f;
			}
		}
		if (f->facts) {
			add_crefs(cb->protos, f, f->facts->protos, cb->name);
			add_crefs(cb->calls, f, f->facts->calls, cb->name);
		}
	}
	if (defs > 1)
		poison(cb, NULL, "callback %s() is defined more than once",
		       cb->name);
	else if (!defs && !cb->def)
		poison(cb, NULL,
		       "callback %s() is not defined as void %s(unsigned long) in the tree",
		       cb->name, cb->name);
	else if (!cb->def)
		poison(cb, NULL,
		       "not parsed: spatch could not parse the definition of %s()",
		       cb->name);
}

/* Is the lexer's use of the name at `at` one spatch accounted for? */
static bool use_known(struct planner *pl, struct callback *cb,
		      struct cfile *f, struct fpos at)
{
	if (cb->def_file == f && cb->def && fpos_eq(cb->def->at, at))
		return true;
	if (proto_known(cb, f, at))
		return true;
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];

		if (b->file != f)
			continue;
		if (b->setup && at_name(b->setup->fn, b->setup->fn_at, at))
			return true;
		if (b->assign && at_name(b->assign->value, b->assign->value_at,
					 at))
			return true;
	}
	for (guint i = 0; i < cb->calls->len; i++) {
		struct cref *r = cb->calls->pdata[i];

		if (r->file == f && fpos_eq(r->n->at, at))
			return true;
	}
	return false;
}

static bool spatch_saw(struct cfile *f, struct fpos at)
{
	for (guint i = 0; f->facts && i < f->facts->refs->len; i++)
		if (fpos_eq(((struct f_named *)f->facts->refs->pdata[i])->at,
			    at))
			return true;
	return false;
}

static bool lexer_proto(struct cfile *f, const char *name, struct fpos at)
{
	for (guint k = 0; f->scan && k < f->scan->ulong_funcs->len; k++) {
		struct ulong_func *u = &g_array_index(f->scan->ulong_funcs,
						      struct ulong_func, k);

		if (!strcmp(u->name, name) && u->line == at.line &&
		    u->col == at.col)
			return true;
	}
	return false;
}

static void check_uses(struct planner *pl, struct callback *cb)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; i < cv->files->len && !cb->poison; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (cb->home && cb->home != f)
			continue;
		for (guint k = 0; k < f->refs->len; k++) {
			struct cb_ref *r = f->refs->pdata[k];
			struct fpos at = { r->line, r->col };
			const struct scan_result *sr = f->scan;

			if (strcmp(r->name, cb->name))
				continue;
			if (!cb->home && static_in(f, cb->name))
				continue;	/* another file's own static */
			if (sr && line_in_ranges(sr->dead_ranges, r->line))
				continue;
			if (sr && line_in_ranges(sr->compat_ranges, r->line)) {
				poison(cb, where(f, r->line), "compat branch");
				break;
			}
			if (r->in_define) {
				poison(cb, where(f, r->line),
				       "callback %s() is used in a macro definition",
				       cb->name);
				break;
			}
			if (use_known(pl, cb, f, at))
				continue;
			if (lexer_proto(f, cb->name, at)) {
				poison(cb, where(f, r->line),
				       "not parsed: spatch could not parse the prototype of %s()",
				       cb->name);
				break;
			}
			if (spatch_saw(f, at)) {
				poison(cb, where(f, r->line),
				       "callback address escapes (stored, compared or passed on)");
				break;
			}
			poison(cb, where(f, r->line),
			       "not parsed: spatch could not parse a use of %s()",
			       cb->name);
			break;
		}
	}
}

/* ---- deciding a callback ---- */

static const char *relation_reason(enum relation rel)
{
	switch (rel) {
	case REL_CONTAINER:
		return NULL;
	case REL_INTEGER:
		return "integer data that the callback uses";
	case REL_NOT_CONTAINER:
		return "data is not the timer's container";
	case REL_NOT_MEMBER:
		return "callback cannot recover its container (the timer is not a member of a structure)";
	case REL_VARIABLE_INDEX:
		return "callback cannot recover its container (variable array index)";
	case REL_TOO_DEEP:
		return "callback cannot recover its container (member path too deep)";
	}
	return "?";
}

static const char *pick_name(GHashTable *idents, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!g_hash_table_contains(idents, names[i]))
			return names[i];
	return NULL;
}

/* Does struct `tag` have the timer field `field` ("hw.watchdog")? */
static const char *check_field(struct conversion *cv, const char *file,
			       const char *tag, const char *field)
{
	char *text = g_strdup_printf("x.%s", field);
	struct chain c;
	struct ctype t = { 0 };
	const char *why = NULL;

	if (!structs_known(conv_structs(cv), tag)) {
		why = "not defined in the tree";
	} else if (!chain_parse(text, &c)) {
		why = "field not understood";
	} else {
		t.tag = g_strdup(tag);
		if (!walk(cv, file, &t, &c, 0, c.segs->len) ||
		    strcmp(t.tag, "struct timer_list") || t.ptr || t.array)
			why = "has no struct timer_list member of that name";
		chain_clear(&c);
	}
	ctype_clear(&t);
	g_free(text);
	return why;
}

/* Do two timer keys name the same timer?  A file-local key (type not
 * known) matches a known one of the same field in that file. */
static bool same_timer(const struct binding *a, const struct binding *b)
{
	const char *ha, *hb;

	if (!strcmp(a->key, b->key))
		return true;
	if (a->key[0] != '?' && b->key[0] != '?')
		return false;
	ha = strchr(a->key, '#');
	hb = strchr(b->key, '#');
	return ha && hb && a->file == b->file && !strcmp(ha, hb);
}

/* The setup that gives the timer of a .function assignment its data. */
static struct binding *data_setup(struct planner *pl, struct binding *fb)
{
	for (guint k = 0; k < pl->bindings->len; k++) {
		struct binding *o = pl->bindings->pdata[k];

		if ((o->kind == B_SETUP || o->kind == B_INIT) &&
		    o->rel.rel == REL_CONTAINER && same_timer(o, fb))
			return o;
	}
	return NULL;
}

static bool decide_data_user(struct planner *pl, struct callback *cb,
			     struct unit *u)
{
	struct conversion *cv = pl->cv;
	struct struct_index *si = conv_structs(cv);
	static const char *const params[] = { "t", "timer", "tl", NULL };
	struct ctype ct = { 0 };
	const char *field = NULL, *hop = NULL, *container = NULL;
	char *at = NULL;
	const char *why;
	bool ok = false;

	ctype_parse(si, cb->cast->type, &ct);
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		unsigned int line = b->setup ? b->setup->at.line :
					       b->assign->at.line;

		g_free(at);
		at = where(b->file, line);
		if (b->kind == B_DEFINE) {
			unit_refuse(u, at,
				    "the timer is a global (DEFINE_TIMER) and %s() uses its data",
				    cb->name);
			goto out;
		}
		if (b->kind == B_INIT && !b->setup->has_data) {
			unit_refuse(u, at,
				    "%s() uses its data but init_timer() here sets no .data",
				    cb->name);
			goto out;
		}
		/* .function = fn: the data is what the timer's setup gave */
		if (b->kind == B_FUNCTION) {
			b = data_setup(pl, b);
			if (!b) {
				unit_refuse(u, at,
					    "%s() is set as .function here, but no setup of that timer passes its container",
					    cb->name);
				goto out;
			}
		}
		why = relation_reason(b->rel.rel);
		if (why) {
			unit_refuse(u, at, "%s", why);
			goto out;
		}
		if (field && (strcmp(field, b->rel.field) ||
			      g_strcmp0(hop, b->rel.hop))) {
			unit_refuse(u, at, "callback shared by timers in different fields");
			goto out;
		}
		if (container && b->container &&
		    strcmp(container, b->container)) {
			unit_refuse(u, at, "callback shared by timers in different container types");
			goto out;
		}
		if (b->data_type && strcmp(b->data_type, ct.tag)) {
			unit_refuse(u, at,
				    "container type mismatch: the setup passes %s, %s() expects %s",
				    b->data_type, cb->name, ct.tag);
			goto out;
		}
		field = b->rel.field;
		hop = b->rel.hop;
		if (b->container)
			container = b->container;
	}
	g_free(at);
	at = where(cb->def_file, cb->def->at.line);
	if (!field) {
		unit_refuse(u, at, "no setup of %s() passes its container",
			    cb->name);
		goto out;
	}
	if (hop) {
		const struct member *m = structs_member(si, ct.tag, hop,
							cb->def_file->path);

		if (!m || m->type.ptr != 1) {
			unit_refuse(u, at, "cannot resolve %s->%s: %s is not defined in the tree",
				    cb->cast->local, hop, ct.tag);
			goto out;
		}
		if (g_strcmp0(cb->body.only_member, hop)) {
			unit_refuse(u, at,
				    "%s() uses %s for more than %s->%s; it cannot be recovered from the timer",
				    cb->name, cb->cast->local, cb->cast->local,
				    hop);
			goto out;
		}
		if (g_hash_table_contains(cb->body.idents, hop)) {
			unit_refuse(u, at, "name conflict: %s() already uses the name %s",
				    cb->name, hop);
			goto out;
		}
		why = check_field(cv, cb->def_file->path, m->type.tag, field);
		if (why) {
			unit_refuse(u, at, "cannot check field %s: %s %s",
				    field, m->type.tag, why);
			goto out;
		}
		cb->hop = g_strdup(hop);
		cb->hop_type = g_strdup(m->type.text);
	} else {
		why = check_field(cv, cb->def_file->path, ct.tag, field);
		if (why) {
			unit_refuse(u, at, "cannot check field %s: %s %s",
				    field, ct.tag, why);
			goto out;
		}
	}
	cb->field = g_strdup(field);
	{
		const char *p = pick_name(cb->body.idents, params);

		if (!p) {
			unit_refuse(u, at, "name conflict: %s() uses t, timer and tl",
				    cb->name);
			goto out;
		}
		cb->param = g_strdup(p);
	}
	ok = true;
out:
	ctype_clear(&ct);
	g_free(at);
	return ok;
}

/* Problems of the setups themselves, whatever the callback does. */
static bool check_bindings(struct callback *cb, struct unit *u)
{
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		struct fpos bat = b->setup ? b->setup->at : b->assign->at;
		GHashTable *params = enclosing_params(b->file, bat);
		const char *data = b->setup ? b->setup->data : NULL;
		char *bare = strip_casts(data);
		const char *why = NULL;
		char *w;

		/* data handed in as an unsigned long: passed through as is */
		if (g_hash_table_contains(params, cb->name) ||
		    (bare && g_hash_table_contains(params, bare) &&
		     b->rel.rel != REL_CONTAINER && data &&
		     !strcmp(data, bare)))
			why = "setup inside a helper that receives fn/data as parameters";
		else if (b->kind == B_DEFINE && b->setup->expires &&
			 !expr_is_integer(b->setup->expires))
			why = "static timer with an expires that is not a constant 0";
		else if (b->kind == B_DEFINE && b->setup->expires &&
			 strtol(b->setup->expires, NULL, 0) != 0)
			why = "static timer with a nonzero expires (add_timer() would use it)";
		g_hash_table_destroy(params);
		g_free(bare);
		if (!why)
			continue;
		w = where(b->file, bat.line);
		unit_refuse(u, w, "%s", why);
		g_free(w);
		return false;
	}
	return true;
}

static bool decide_callback(struct planner *pl, struct callback *cb,
			    struct unit *u)
{
	static const char *const unused_names[] = { "unused", "t", "timer",
						    NULL };
	guint casts = 0;
	struct f_cast *cast = NULL;
	const char *p;
	char *at;
	bool ok = false;

	if (!check_bindings(cb, u))
		return false;
	if (cb->poison) {
		unit_refuse(u, cb->poison_where, "%s", cb->poison);
		return false;
	}
	at = where(cb->def_file, cb->def->at.line);
	for (guint i = 0; i < cb->def_file->facts->casts->len; i++) {
		struct f_cast *c = cb->def_file->facts->casts->pdata[i];

		if (strcmp(c->callback, cb->name))
			continue;
		if (cast && strcmp(cast->type, c->type)) {
			unit_refuse(u, at, "callback casts data to two different types");
			goto out;
		}
		cast = c;
		casts++;
	}
	if (!cbody_analyse(cb->def_file, cb->def->at, cb->def->param,
			   cast ? cast->local : NULL,
			   cast ? cast->local_at : (struct fpos){ 0, 0 },
			   &cb->body)) {
		unit_refuse(u, at, "not parsed: cannot find the body of %s()",
			    cb->name);
		goto out;
	}
	if (cb->body.param_uses->len == 0) {
		p = pick_name(cb->body.idents, unused_names);
		if (!p) {
			unit_refuse(u, at, "name conflict: %s() uses unused, t and timer",
				    cb->name);
			goto out;
		}
		cb->param = g_strdup(p);
		ok = true;
		goto out;
	}
	/* It uses its data: an integer handed in cannot become a timer. */
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];

		if (b->rel.rel == REL_INTEGER ||
		    (b->kind == B_DEFINE && b->setup->data &&
		     expr_is_integer(b->setup->data))) {
			char *w = where(b->file, b->setup->at.line);

			unit_refuse(u, w, "integer data that the callback uses");
			g_free(w);
			goto out;
		}
	}
	if (cb->body.param_uses->len != 1 || casts != 1 ||
	    !fpos_eq(g_array_index(cb->body.param_uses, struct fpos, 0),
		     cast->data_at)) {
		unit_refuse(u, at, casts > 1 ?
			    "callback uses data more than once" :
			    "callback uses data other than to find its container");
		goto out;
	}
	cb->uses_data = true;
	cb->cast = cast;
	ok = decide_data_user(pl, cb, u);
out:
	g_free(at);
	return ok;
}

/* The argument a direct call passes once the callback takes the timer. */
static char *call_arg(struct planner *pl, struct callback *cb,
		      struct cref *r, struct unit *u)
{
	char *w = where(r->file, r->n->at.line);
	char *bare = strip_casts(r->n->arg);
	char *res = NULL;
	struct chain c;

	if (!cb->uses_data) {
		if (expr_has_side_effects(r->n->arg))
			unit_refuse(u, w, "a direct call of %s() has an argument with side effects",
				    cb->name);
		else
			res = g_strdup("NULL");
		goto out;
	}
	if (!bare || !chain_parse(bare, &c)) {
		unit_refuse(u, w, "callback is called with a non-container argument");
		goto out;
	}
	{
		char *type = pointee_type(pl->cv, r->file, r->n->func, bare);
		struct ctype ct = { 0 };

		ctype_parse(conv_structs(pl->cv), cb->cast->type, &ct);
		if (!type || strcmp(type, ct.tag)) {
			unit_refuse(u, w, "callback is called with a non-container argument");
		} else {
			char *obj = expr_compact(bare);

			if (c.addr)
				res = g_strdup_printf("&%s.%s%s%s", obj + 1,
					cb->hop ? cb->hop : "",
					cb->hop ? "->" : "", cb->field);
			else
				res = g_strdup_printf("&%s->%s%s%s", obj,
					cb->hop ? cb->hop : "",
					cb->hop ? "->" : "", cb->field);
			g_free(obj);
		}
		g_free(type);
		ctype_clear(&ct);
	}
	chain_clear(&c);
out:
	g_free(bare);
	g_free(w);
	return res;
}

/* ---- plan items ---- */

char *plan_key(const char *first, ...)
{
	GString *s = g_string_new(NULL);
	va_list ap;
	const char *part = first;

	va_start(ap, first);
	for (bool sep = false; part; part = va_arg(ap, const char *)) {
		char *norm = text_normalize(part, strlen(part));

		if (sep)
			g_string_append_c(s, '|');
		g_string_append(s, norm);
		g_free(norm);
		sep = true;
	}
	va_end(ap);
	return g_string_free(s, FALSE);
}

/* key is taken over */
static void item(struct unit *u, struct cfile *f, const char *section,
		 char *key, struct fpos at, JsonObject *entry,
		 const char *what, const char *callback)
{
	struct plan_item *it = g_new0(struct plan_item, 1);

	it->unit = u;
	it->file = f;
	it->section = section;
	it->key = key;
	it->at = at;
	it->entry = entry;
	it->what = g_strdup(what);
	it->callback = callback;
	g_ptr_array_add(u->items, it);
	g_hash_table_add(u->files, f);
}

static JsonObject *obj_str(const char *k1, const char *v1, const char *k2,
			   const char *v2)
{
	JsonObject *o = json_object_new();

	if (k1)
		json_object_set_string_member(o, k1, v1);
	if (k2)
		json_object_set_string_member(o, k2, v2);
	return o;
}

static const char *initializer_flags(const char *api)
{
	if (!strcmp(api, "TIMER_PINNED_INITIALIZER"))
		return "TIMER_PINNED";
	if (!strcmp(api, "TIMER_DEFERRED_INITIALIZER"))
		return "TIMER_DEFERRABLE";
	if (!strcmp(api, "TIMER_PINNED_DEFERRED_INITIALIZER"))
		return "TIMER_DEFERRABLE | TIMER_PINNED";
	return "0";
}

static void binding_items(struct planner *pl, struct unit *u,
			  struct binding *b)
{
	const struct api *api;
	const char *flags;

	if (!b->setup)
		return;
	api = api_lookup(b->setup->api, strlen(b->setup->api));
	switch (b->kind) {
	case B_SETUP:
		flags = init_flags(api, b->setup->flags);
		item(u, b->file, "setups",
		     plan_key(b->setup->func, api->name, b->setup->timer,
			      b->setup->fn, NULL),
		     b->setup->at,
		     obj_str("api", api->on_stack ? "timer_setup_on_stack" :
						    "timer_setup",
			     "flags", flags),
		     api->name, NULL);
		break;
	case B_INIT:
		item(u, b->file, "inits",
		     plan_key(b->setup->func, api->name, b->setup->timer, NULL),
		     b->setup->at,
		     obj_str("api", api->on_stack ? "timer_setup_on_stack" :
						    "timer_setup",
			     "flags", api->flags),
		     api->name, NULL);
		break;
	case B_DEFINE:
		item(u, b->file, "defines",
		     api->kind == API_DEFINE ?
		     plan_key("DEFINE_TIMER", b->setup->name, NULL) :
		     plan_key(b->setup->func, api->name, b->setup->fn, NULL),
		     b->setup->at,
		     obj_str("flags", initializer_flags(b->setup->api), NULL,
			     NULL),
		     b->setup->api, NULL);
		break;
	case B_FUNCTION:
		break;
	}
}

static void callback_items(struct planner *pl, struct unit *u,
			   struct callback *cb)
{
	JsonObject *o = json_object_new();
	const char *container_of = pl->cv->target->container_of;

	json_object_set_string_member(o, "param", cb->param);
	if (!cb->uses_data) {
		json_object_set_string_member(o, "kind", "unused");
	} else if (cb->hop) {
		json_object_set_string_member(o, "kind", "hop");
		json_object_set_string_member(o, "local", cb->cast->local);
		json_object_set_string_member(o, "hop", cb->hop);
		json_object_set_string_member(o, "hop_type", cb->hop_type);
		json_object_set_string_member(o, "field", cb->field);
		json_object_set_string_member(o, "container_of", container_of);
	} else {
		json_object_set_string_member(o, "kind", "direct");
		json_object_set_string_member(o, "local", cb->cast->local);
		json_object_set_string_member(o, "field", cb->field);
		json_object_set_string_member(o, "container_of", container_of);
	}
	item(u, cb->def_file, "callbacks", plan_key(cb->name, NULL),
	     cb->def->at, o, "callback", cb->name);
	for (guint i = 0; i < cb->protos->len; i++) {
		struct cref *r = cb->protos->pdata[i];

		item(u, r->file, "protos", plan_key(cb->name, NULL), r->n->at,
		     obj_str("param", cb->param, NULL, NULL), "prototype",
		     cb->name);
	}
	for (guint i = 0; i < cb->calls->len && !u->reason; i++) {
		struct cref *r = cb->calls->pdata[i];
		char *arg = call_arg(pl, cb, r, u);

		if (arg)
			item(u, r->file, "calls",
			     plan_key(r->n->func, cb->name, r->n->arg, NULL),
			     r->n->at, obj_str("arg", arg, NULL, NULL), "call",
			     cb->name);
		g_free(arg);
	}
}

/* ---- units ---- */

static struct unit *unit_new(struct conversion *cv)
{
	struct unit *u = g_new0(struct unit, 1);

	u->id = cv->units->len + 1;
	u->callbacks = g_ptr_array_new();
	u->cb_names = g_ptr_array_new();
	u->items = g_ptr_array_new();
	u->sites = g_ptr_array_new();
	u->files = g_hash_table_new(NULL, NULL);
	g_ptr_array_add(cv->units, u);
	return u;
}

static void unit_add_site(struct unit *u, struct csite *s)
{
	if (!s || s->unit)
		return;
	s->unit = u;
	g_ptr_array_add(u->sites, s);
	g_hash_table_add(u->files, s->file);
}

static void decide_unit(struct planner *pl, struct unit *u)
{
	for (guint i = 0; i < u->callbacks->len && !u->reason; i++)
		decide_callback(pl, u->callbacks->pdata[i], u);
	/* A .data assignment the conversion would leave behind. */
	for (guint i = 0; i < pl->data_sites->len && !u->reason; i++) {
		struct csite *cs = pl->data_sites->pdata[i];
		const char *key = g_hash_table_lookup(pl->data_keys, cs);
		int node;
		struct callback *cb0 = u->callbacks->pdata[0];

		if (!key || !g_hash_table_contains(pl->nodes, key))
			continue;
		node = key_node(pl, key);
		if (node_find(pl, node) != node_find(pl, cb0->node))
			continue;
		unit_add_site(u, cs);
		{
			char *w = where(cs->file, cs->site->line);

			unit_refuse(u, w, "the timer's .data is assigned elsewhere (at %s)",
				    w);
			g_free(w);
		}
	}
	if (u->reason)
		return;
	for (guint i = 0; i < u->callbacks->len; i++) {
		struct callback *cb = u->callbacks->pdata[i];

		for (guint k = 0; k < cb->bindings->len; k++)
			binding_items(pl, u, cb->bindings->pdata[k]);
		callback_items(pl, u, cb);
	}
}

static int cmp_callbacks(gconstpointer a, gconstpointer b)
{
	const struct callback *x = *(struct callback *const *)a;
	const struct callback *y = *(struct callback *const *)b;

	return strcmp(x->key, y->key);
}

static void build_units(struct planner *pl)
{
	struct conversion *cv = pl->cv;
	GHashTable *by_root = g_hash_table_new(NULL, NULL);
	GHashTableIter it;
	gpointer key, val;
	GPtrArray *cbs = g_ptr_array_new();

	/* Deterministic order: by the callback's key. */
	g_hash_table_iter_init(&it, pl->callbacks);
	while (g_hash_table_iter_next(&it, &key, &val))
		g_ptr_array_add(cbs, val);
	g_ptr_array_sort(cbs, cmp_callbacks);
	for (guint i = 0; i < cbs->len; i++) {
		struct callback *cb = cbs->pdata[i];
		int root = node_find(pl, cb->node);
		struct unit *u = g_hash_table_lookup(by_root,
						     GINT_TO_POINTER(root));

		if (!u) {
			u = unit_new(cv);
			g_hash_table_insert(by_root, GINT_TO_POINTER(root), u);
		}
		g_ptr_array_add(u->callbacks, cb);
		g_ptr_array_add(u->cb_names, cb->name);
		for (guint k = 0; k < cb->bindings->len; k++) {
			struct binding *b = cb->bindings->pdata[k];

			unit_add_site(u, b->csite);
			unit_add_site(u, b->data_csite);
		}
		if (cb->def_file)
			g_hash_table_add(u->files, cb->def_file);
		/* the scan's site for the definition, parsed or not */
		for (guint k = 0; k < cv->sites->len; k++) {
			struct csite *cs = cv->sites->pdata[k];

			if (cs->site->type == SITE_ULONG_CALLBACK &&
			    !strcmp(cs->site->callback, cb->name) &&
			    (cb->home ? cs->file == cb->home :
					!static_in(cs->file, cb->name)))
				unit_add_site(u, cs);
		}
	}
	g_ptr_array_free(cbs, TRUE);
	g_hash_table_destroy(by_root);
	for (guint i = 0; i < cv->units->len; i++)
		decide_unit(pl, cv->units->pdata[i]);
}

/* ---- sites decided on their own ---- */

static void presort_sites(struct conversion *cv)
{
	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		for (guint k = 0; f->scan && k < f->scan->sites->len; k++) {
			const struct site *s = &g_array_index(f->scan->sites,
							struct site, k);
			struct csite *cs = csite_new(cv, f, s);

			if (s->compat)
				site_refuse(cs, s->compat_why);
			else if (s->define_name)
				site_refuse(cs, "inside a macro definition");
			else if (is_setup_api(s) &&
				 (!f->facts ||
				  !facts_setup_at(f->facts,
					(struct fpos){ s->line, s->col })))
				site_refuse(cs, unparsed_reason(f));
		}
	}
}

/* A site that was not parsed poisons the callback it names. */
static void poison_unparsed(struct planner *pl)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *cs = cv->sites->pdata[i];
		struct callback *cb;

		if (!cs->reason || !cs->callback ||
		    !g_str_has_prefix(cs->reason, "not parsed"))
			continue;
		cb = callback_get(pl, cs->file, cs->callback);
		poison(cb, where(cs->file, cs->site->line),
		       "a setup of %s() was not parsed by spatch",
		       cb->name);
	}
}

/* Every site left without a unit or a reason gets one; a site of a
 * unit gets the unit's outcome (again after the rewrite pass). */
void plan_settle(struct conversion *cv)
{
	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *cs = cv->sites->pdata[i];

		if (cs->unit) {
			if (cs->unit->reason)
				site_refuse(cs, cs->unit->reason);
			else if (!cs->reason)
				cs->outcome = OUT_CONVERTED;
			continue;
		}
		if (cs->reason)
			continue;
		switch (cs->site->type) {
		case SITE_DATA_ASSIGN:
			site_refuse(cs, "a .data assignment with no setup this tool can convert");
			break;
		case SITE_ULONG_CALLBACK:
			site_refuse(cs, "callback with no setup this tool can convert");
			break;
		case SITE_API:
			site_refuse(cs, cs->site->api->kind == API_RENAME ?
				    "rename not planned" :
				    "not understood: no setup fact for this site");
			break;
		}
	}
}

/* The fact spatch reported for the call at `at`, or NULL. */
static struct f_named *rename_fact(struct cfile *f, struct fpos at)
{
	for (guint i = 0; f->facts && i < f->facts->renames->len; i++) {
		struct f_named *n = f->facts->renames->pdata[i];

		if (fpos_eq(n->at, at))
			return n;
	}
	return NULL;
}

/*
 * A rename (from_timer() -> timer_container_of(), ...) stands alone: the
 * arguments do not change, so each call is a unit of its own.  The rules
 * name a call by function, name and arguments: a call spelled the same
 * in compat code of the same function cannot be told apart, so both are
 * left alone.
 */
static void plan_renames(struct planner *pl)
{
	struct conversion *cv = pl->cv;
	GHashTable *compat = g_hash_table_new_full(g_str_hash, g_str_equal,
						   g_free, NULL);

	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *cs = cv->sites->pdata[i];
		const struct site *s = cs->site;
		struct f_named *n;

		if (s->type != SITE_API || s->api->kind != API_RENAME ||
		    !s->compat)
			continue;
		n = rename_fact(cs->file, (struct fpos){ s->line, s->col });
		if (n) {
			char *key = plan_key(n->func, n->name, n->arg, NULL);

			g_hash_table_add(compat, g_strdup_printf("%s\n%s",
				cs->file->path, key));
			g_free(key);
		}
	}
	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *cs = cv->sites->pdata[i];
		const struct site *s = cs->site;
		struct f_named *n;
		struct unit *u;
		char *key, *clash;
		const char *to;

		if (s->type != SITE_API || s->api->kind != API_RENAME ||
		    cs->reason)
			continue;
		n = rename_fact(cs->file, (struct fpos){ s->line, s->col });
		if (!n) {
			site_refuse(cs, unparsed_reason(cs->file));
			continue;
		}
		key = plan_key(n->func, n->name, n->arg, NULL);
		clash = g_strdup_printf("%s\n%s", cs->file->path, key);
		if (g_hash_table_contains(compat, clash)) {
			site_refuse(cs, "spelled as in compat code of the same function");
			g_free(clash);
			g_free(key);
			continue;
		}
		g_free(clash);
		to = g_hash_table_lookup(cv->target->renames, n->name);
		u = unit_new(cv);
		unit_add_site(u, cs);
		item(u, cs->file, "renames", key, n->at,
		     obj_str("new", to, NULL, NULL), n->name, NULL);
	}
	g_hash_table_destroy(compat);
}

void plan_build(struct conversion *cv)
{
	struct planner pl = { .cv = cv };
	GHashTableIter it;
	gpointer key, val;

	pl.callbacks = g_hash_table_new(g_str_hash, g_str_equal);
	pl.bindings = g_ptr_array_new();
	pl.nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 NULL);
	pl.parent = g_array_new(FALSE, FALSE, sizeof(int));
	pl.data_sites = g_ptr_array_new();
	pl.data_keys = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	pl.consumed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    NULL);

	presort_sites(cv);
	for (guint i = 0; i < cv->files->len; i++)
		add_setup_bindings(&pl, cv->files->pdata[i]);
	for (guint i = 0; i < cv->files->len; i++)
		add_assign_bindings(&pl, cv->files->pdata[i]);
	poison_unparsed(&pl);
	link_unknown_keys(&pl);
	g_hash_table_iter_init(&it, pl.callbacks);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		collect_decls(&pl, val);
		if (!((struct callback *)val)->poison)
			check_uses(&pl, val);
		g_ptr_array_add(cv->callbacks, val);
	}
	build_units(&pl);
	plan_renames(&pl);
	plan_settle(cv);

	g_hash_table_destroy(pl.callbacks);
	g_hash_table_destroy(pl.nodes);
	g_array_free(pl.parent, TRUE);
	g_ptr_array_free(pl.data_sites, TRUE);
	g_hash_table_destroy(pl.data_keys);
	g_hash_table_destroy(pl.consumed);
	/* bindings and callbacks live as long as the conversion */
}

/* ---- the plan for one file: the items of its converted units ---- */

GPtrArray *plan_items(struct conversion *cv, struct cfile *f)
{
	GPtrArray *items = g_ptr_array_new();

	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];

		if (u->reason || !g_hash_table_contains(u->files, f))
			continue;
		for (guint k = 0; k < u->items->len; k++) {
			struct plan_item *it = u->items->pdata[k];

			if (it->file == f)
				g_ptr_array_add(items, it);
		}
	}
	return items;
}

JsonObject *plan_for_file(struct conversion *cv, struct cfile *f)
{
	GPtrArray *items = plan_items(cv, f);
	JsonObject *plan = NULL;

	for (guint i = 0; i < items->len; i++) {
		struct plan_item *it = items->pdata[i];
		JsonObject *sec;

		if (!plan)
			plan = json_object_new();
		if (!json_object_has_member(plan, it->section))
			json_object_set_object_member(plan, it->section,
						      json_object_new());
		sec = json_object_get_object_member(plan, it->section);
		json_object_set_object_member(sec, it->key,
					      json_object_ref(it->entry));
	}
	g_ptr_array_free(items, TRUE);
	return plan;
}
