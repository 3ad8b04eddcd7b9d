// SPDX-License-Identifier: GPL-2.0
/*
 * Binding: join what the scan and spatch found across files.  Every
 * setup, init_timer() and .function assignment installs a callback on a
 * timer (a binding); every setup's data and .data assignment says what a
 * timer's data is (a data source).  A callback is linked to every timer
 * it runs on, and a timer to every callback and data source it has, in
 * one union-find: a connected set is what later becomes a unit.
 */
#include <stdarg.h>
#include <string.h>

#include "kmodule.h"
#include "planner.h"
#include "ppcond.h"
#include "util.h"

/* ---- union-find ---- */

static int node_new(struct planner *pl)
{
	int n = (int)pl->parent->len;

	g_array_append_val(pl->parent, n);
	return n;
}

int node_find(struct planner *pl, int n)
{
	int *p = (int *)pl->parent->data;

	while (p[n] != n) {
		p[n] = p[p[n]];
		n = p[n];
	}
	return n;
}

void node_union(struct planner *pl, int a, int b)
{
	a = node_find(pl, a);
	b = node_find(pl, b);
	if (a != b)
		g_array_index(pl->parent, int, b) = a;
}

int key_node(struct planner *pl, const char *key)
{
	gpointer v;

	if (g_hash_table_lookup_extended(pl->nodes, key, NULL, &v))
		return GPOINTER_TO_INT(v);
	v = GINT_TO_POINTER(node_new(pl));
	g_hash_table_insert(pl->nodes, g_strdup(key), v);
	return GPOINTER_TO_INT(v);
}

/* ---- small helpers ---- */

char *where(const struct cfile *f, unsigned int line)
{
	return g_strdup_printf("%s:%u", f->path, line);
}

void poison(struct callback *cb, char *at, const char *fmt, ...)
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

bool is_ident(const char *s)
{
	if (!s || !(g_ascii_isalpha(*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(g_ascii_isalnum(*s) || *s == '_'))
			return false;
	return true;
}

struct csite *find_csite(struct conversion *cv, struct cfile *f,
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

char *callback_name(const char *text, bool *cast)
{
	size_t n, i = 0;
	struct token *t;
	char *res = NULL;

	*cast = false;
	if (!text)
		return NULL;
	t = lex_all(text, strlen(text), &n);
	n--;	/* the EOF token */
	while (i + 1 < n && tok_punct(&t[i], '(')) {
		size_t close = tok_match_close(t, n, i);

		if (close >= n)
			goto out;
		if (close == n - 1) {		/* (fn) */
			i++;
			n--;
		} else {			/* (void *)fn */
			i = close + 1;
			*cast = true;
		}
	}
	if (i + 1 < n && tok_punct(&t[i], '&'))
		i++;
	if (i + 1 == n && t[i].kind == TOK_IDENT)
		res = g_strndup(t[i].p, t[i].len);
out:
	g_free(t);
	return res;
}

static bool in_funcs(GArray *funcs, const char *name, bool want_static)
{
	for (guint i = 0; i < funcs->len; i++) {
		struct ulong_func *u = &g_array_index(funcs, struct ulong_func,
						      i);

		if ((!want_static || u->is_static) && !strcmp(u->name, name))
			return true;
	}
	return false;
}

bool static_in(struct cfile *f, const char *name)
{
	return f->scan && (in_funcs(f->scan->ulong_funcs, name, true) ||
			   in_funcs(f->scan->other_funcs, name, true));
}

/*
 * A static callback is its file's; a name several modules define is
 * one callback in each (kmodule.h); any other name is the tree's.
 */
static char *callback_key(struct planner *pl, struct cfile *f,
			  const char *name, const char **module)
{
	*module = NULL;
	if (static_in(f, name))
		return g_strdup_printf("%s@%s", name, f->path);
	*module = kmodule_scope(pl, f, name);
	if (*module)
		return g_strdup_printf("%s%%%s", name, *module);
	return g_strdup(name);
}

struct callback *callback_get(struct planner *pl, struct cfile *f,
			      const char *name)
{
	bool is_static = static_in(f, name);
	const char *module;
	char *key = callback_key(pl, f, name, &module);
	struct callback *cb = g_hash_table_lookup(pl->callbacks, key);

	if (cb) {
		g_free(key);
		return cb;
	}
	cb = g_new0(struct callback, 1);
	cb->key = key;
	cb->name = g_strdup(name);
	cb->home = is_static ? f : NULL;
	cb->module = module;
	cb->bindings = g_ptr_array_new();
	cb->protos = g_ptr_array_new_with_free_func(g_free);
	cb->calls = g_ptr_array_new_with_free_func(g_free);
	cb->node = node_new(pl);
	g_hash_table_insert(pl->callbacks, cb->key, cb);
	g_ptr_array_add(pl->all_callbacks, cb);
	return cb;
}

/* ---- timers ---- */

/* Is name, where `at` uses it, a timer of that function's own? */
static bool local_timer(struct cfile *f, struct fpos at, const char *name)
{
	switch (timer_declared_in_function(f, at, name)) {
	case TD_OWN:
		return true;
	case TD_OTHER:
		return !named_at_file_scope(f, name);
	default:
		return false;
	}
}

/*
 * The timer an expression names: its key, with a local alias resolved
 * (struct timer_list *timer = &ch->retry_timer; init_timer(timer);).
 */
static void tref_init(struct planner *pl, struct tref *r, struct cfile *f,
		      const char *timer, const char *func, struct fpos at)
{
	char *alias = NULL;

	r->file = f;
	r->chain_ok = chain_parse(timer, &r->chain);
	if (r->chain_ok && !r->chain.addr && !r->chain.segs->len)
		alias = local_alias(f, at, r->chain.base);
	if (alias) {
		chain_clear(&r->chain);
		r->chain_ok = chain_parse(alias, &r->chain);
		g_free(alias);
	}
	if (!r->chain_ok)
		r->key = g_strdup_printf("expr:%s:%s", f->path, timer);
	/* a function's own timer (a local, or a parameter pointing at one)
	 * is not another function's of the same name; where the file also
	 * has the name outside its functions, only a timer the function
	 * declares whole at its top is surely not the file's */
	else if (!r->chain.segs->len && func && *func &&
		 local_timer(f, at, r->chain.base))
		r->key = g_strdup_printf("local:%s:%s:%s", f->path, func,
					 r->chain.base);
	else
		r->key = timer_key(pl->cv, f, func, &r->chain, &r->container);
}

static void tref_clear(struct tref *r)
{
	if (r->chain_ok)
		chain_clear(&r->chain);
	g_free(r->key);
	g_free(r->container);
}

static struct binding *binding_new(struct planner *pl, enum bkind kind,
				   struct cfile *f, struct callback *cb)
{
	struct binding *b = g_new0(struct binding, 1);

	b->kind = kind;
	b->file = f;
	b->cb = cb;
	g_ptr_array_add(pl->bindings, b);
	if (cb)
		g_ptr_array_add(cb->bindings, b);
	return b;
}

static void binding_free(struct binding *b)
{
	tref_clear(&b->timer);
	g_free(b);
}

static void bind_timer(struct planner *pl, struct binding *b,
		       const char *timer, const char *func, struct fpos at)
{
	tref_init(pl, &b->timer, b->file, timer, func, at);
	if (b->cb)
		node_union(pl, b->cb->node, key_node(pl, b->timer.key));
	else
		key_node(pl, b->timer.key);
}

/* setup_timer(&p->t, fn, i) with `int i`: an integer, not a pointer. */
static bool integer_var(struct planner *pl, struct cfile *f, const char *func,
			const char *data)
{
	char *bare = strip_casts(data);
	struct ctype t = { 0 };
	bool res = false;

	if (bare && is_ident(bare) &&
	    var_type(pl->cv, f, func, bare, &t) && !t.ptr &&
	    !g_str_has_prefix(t.tag, "struct ") &&
	    !g_str_has_prefix(t.tag, "union "))
		res = true;
	ctype_clear(&t);
	g_free(bare);
	return res;
}

static struct dsrc *dsrc_new(struct planner *pl, struct cfile *f,
			     const char *timer, const char *value,
			     const char *func, struct fpos at)
{
	struct dsrc *d = g_new0(struct dsrc, 1);

	d->file = f;
	d->value = value;
	d->func = func;
	d->line = at.line;
	tref_init(pl, &d->timer, f, timer, func, at);
	key_node(pl, d->timer.key);
	if (!d->timer.chain_ok)
		d->rel.rel = REL_NOT_MEMBER;
	else
		data_relation(&d->timer.chain, value, &d->rel);
	d->data_type = pointee_type(pl->cv, f, func, value);
	if (d->rel.rel == REL_NOT_CONTAINER &&
	    integer_var(pl, f, func, value))
		d->rel.rel = REL_INTEGER;
	g_ptr_array_add(pl->dsrcs, d);
	return d;
}

static void dsrc_free(struct dsrc *d)
{
	tref_clear(&d->timer);
	data_rel_clear(&d->rel);
	g_free(d->data_type);
	g_free(d);
}

/* ---- setups, init_timer(), DEFINE_TIMER() ---- */

void site_refuse(struct csite *s, const char *reason)
{
	if (s->reason)
		return;
	s->outcome = OUT_REFUSED;
	s->reason = g_strdup(reason);
}

static char *pos_key(const struct cfile *f, struct fpos at)
{
	return g_strdup_printf("%s\n%u:%u", f->path, at.line, at.col);
}

/* The .function assignment whose value is at `at`. */
static struct f_assign *assign_at(struct cfile *f, struct fpos at)
{
	for (guint i = 0; f->facts && i < f->facts->assigns->len; i++) {
		struct f_assign *a = f->facts->assigns->pdata[i];

		if (fpos_eq(a->value_at, at) && !strcmp(a->field, "function"))
			return a;
	}
	return NULL;
}

/*
 * A static timer: named by its variable (DEFINE_TIMER) or, for an
 * initialiser, by the function spatch reports it in (the variable).  Its
 * callback may be NULL (DEFINE_TIMER(t, NULL, 0, 0)): .function is set
 * later, and the timer waits, like an init_timer(), for that callback.
 */
static void bind_define(struct planner *pl, struct binding *b)
{
	struct f_setup *s = b->setup;
	char *name = g_strdup(s->name ? s->name : s->func);
	struct dsrc *d;

	b->timer.file = b->file;
	b->timer.key = g_strdup_printf("global:%s:%s", b->file->path, name);
	if (b->cb)
		node_union(pl, b->cb->node, key_node(pl, b->timer.key));
	else
		key_node(pl, b->timer.key);
	d = g_new0(struct dsrc, 1);
	d->file = b->file;
	d->setup = s;
	d->value = s->data;
	d->func = s->func;
	d->line = s->at.line;
	d->timer.file = b->file;
	d->timer.key = g_strdup(b->timer.key);
	d->rel.rel = REL_NOT_MEMBER;
	g_ptr_array_add(pl->dsrcs, d);
	g_free(name);
}

static bool site_bound(struct planner *pl, const struct csite *cs)
{
	for (guint i = 0; i < pl->bindings->len; i++)
		if (((struct binding *)pl->bindings->pdata[i])->csite == cs)
			return true;
	return false;
}

static void bind_setups(struct planner *pl, struct cfile *f)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; f->facts && i < f->facts->setups->len; i++) {
		struct f_setup *s = f->facts->setups->pdata[i];
		struct csite *cs = find_csite(cv, f, s->at.line, s->at.col,
					      SITE_API);
		struct callback *cb = NULL;
		struct binding *b;
		bool cast = false;
		char *name;

		/* the record is of the call the scan saw there, by name: a
		 * rename (del_timer() at v6.16) is never a setup's site, and
		 * a name the API table lacks has nothing to plan with */
		if (!cs || cs->reason ||
		    api_lookup(s->api, strlen(s->api)) != cs->site->api ||
		    cs->site->api->kind == API_RENAME)
			continue;
		/* one record a site: a second at the same place (the same
		 * call printed twice, or read two ways) would bind the site
		 * to two timers, and one of them could refuse it alone */
		if (site_bound(pl, cs))
			continue;
		if (s->kind == FS_INIT && !s->paired) {
			b = binding_new(pl, B_LONE_INIT, f, NULL);
			b->setup = s;
			b->csite = cs;
			bind_timer(pl, b, s->timer, s->func, s->at);
			g_ptr_array_add(pl->lone_inits, b);
			continue;
		}
		name = callback_name(s->fn, &cast);
		if (!is_ident(name)) {
			site_refuse(cs, "callback is not a function name");
			g_free(name);
			continue;
		}
		/* setup_timer(&t, NULL, data): the callback comes later */
		if (strcmp(name, "NULL"))
			cb = callback_get(pl, f, name);
		g_free(name);
		b = binding_new(pl, s->kind == FS_SETUP ? B_SETUP :
				    s->kind == FS_INIT ? B_INIT : B_DEFINE,
				f, cb);
		b->setup = s;
		b->csite = cs;
		b->cast = cast;
		if (!cb)
			g_ptr_array_add(pl->lone_inits, b);
		if (s->kind == FS_DEFINE) {
			bind_define(pl, b);
			continue;
		}
		if (s->kind == FS_INIT) {
			g_hash_table_add(pl->paired, pos_key(f, s->fn_at));
			b->assign = assign_at(f, s->fn_at);
		}
		bind_timer(pl, b, s->timer, s->func, s->at);
		if (s->kind == FS_SETUP) {
			struct dsrc *d = dsrc_new(pl, f, s->timer, s->data,
						  s->func, s->at);

			d->setup = s;
			d->csite = cs;
		}
	}
}

/* ---- .function and .data assignments ---- */

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

/* Does some file of the run define `name` with the old prototype? */
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

static void bind_function_assign(struct planner *pl, struct cfile *f,
				 struct f_assign *a)
{
	bool cast = false;
	char *name = callback_name(a->value, &cast);
	struct binding *b;

	if (!is_ident(name) || !strcmp(name, "NULL")) {
		g_free(name);
		return;
	}
	/* A callback on today's prototype needs nothing: only a known old
	 * callback, one defined with the old prototype, or one installed
	 * through a cast is bound to the timer through its .function. */
	{
		const char *module;
		char *k = callback_key(pl, f, name, &module);
		bool known = g_hash_table_contains(pl->callbacks, k);

		g_free(k);
		if (!known && !(object_is_timer(f, a->object) &&
				(cast || ulong_defined(pl->cv, name)))) {
			g_free(name);
			return;
		}
	}
	b = binding_new(pl, B_FUNCTION, f, callback_get(pl, f, name));
	b->assign = a;
	b->cast = cast;
	bind_timer(pl, b, a->timer, a->func, a->at);
	g_free(name);
}

static void bind_assigns(struct planner *pl, struct cfile *f)
{
	for (guint i = 0; f->facts && i < f->facts->assigns->len; i++) {
		struct f_assign *a = f->facts->assigns->pdata[i];
		char *k = pos_key(f, a->value_at);
		bool paired = g_hash_table_contains(pl->paired, k);

		g_free(k);
		if (!strcmp(a->field, "function")) {
			if (!paired)
				bind_function_assign(pl, f, a);
			continue;
		}
		{
			struct csite *cs = find_csite(pl->cv, f, a->at.line,
						      G_MAXUINT,
						      SITE_DATA_ASSIGN);
			struct dsrc *d;

			/* not a timer's .data, as far as the lexer knows */
			if (!cs || cs->reason)
				continue;
			d = dsrc_new(pl, f, a->timer, a->value, a->func, a->at);
			d->assign = a;
			d->csite = cs;
		}
	}
}

/* ---- reads of .data ---- */

/*
 * The timer a read names, as the facts write it: `& E` for E.data, `E`
 * for E->data.  From the scan's text when spatch did not parse it.
 */
static char *read_timer_text(const char *text)
{
	size_t n = strlen(text);

	if (g_str_has_suffix(text, " . data"))
		return g_strdup_printf("& %.*s", (int)(n - 7), text);
	if (g_str_has_suffix(text, " -> data"))
		return g_strndup(text, n - 8);
	return NULL;
}

static struct dread *dread_add(struct planner *pl, struct cfile *f,
			       struct csite *cs, const char *timer,
			       const char *func, struct fpos at)
{
	struct dread *r = g_new0(struct dread, 1);

	r->file = f;
	r->csite = cs;
	r->function = !cs;
	r->line = at.line;
	r->func = func;
	g_ptr_array_add(pl->reads, r);
	tref_init(pl, &r->timer, f, timer, func, at);
	/* timer->data through a bare struct timer_list *: any timer (the
	 * timer core's own reads); it joins none */
	if (r->timer.chain_ok && !r->timer.chain.addr &&
	    !r->timer.chain.segs->len)
		g_clear_pointer(&r->timer.key, g_free);
	else
		key_node(pl, r->timer.key);
	return r;
}

/*
 * Every read the scan saw joins its timer: by spatch's expression where
 * spatch parsed it, else by the scan's (whose key, types unknown, joins
 * every timer of that field in the file).
 */
static void bind_reads(struct planner *pl, struct cfile *f)
{
	GHashTable *seen = g_hash_table_new(NULL, NULL);

	for (guint i = 0; f->facts && i < f->facts->reads->len; i++) {
		struct f_assign *a = f->facts->reads->pdata[i];
		struct csite *cs;

		if (!strcmp(a->field, "function")) {
			dread_add(pl, f, NULL, a->timer, a->func, a->at);
			continue;
		}

		cs = find_csite(pl->cv, f, a->at.line, a->at.col,
				SITE_DATA_READ);
		if (!cs || cs->reason || g_hash_table_contains(seen, cs))
			continue;
		g_hash_table_add(seen, cs);
		dread_add(pl, f, cs, a->timer, a->func, a->at)->object =
			a->object;
	}
	for (guint i = 0; i < pl->cv->sites->len; i++) {
		struct csite *cs = pl->cv->sites->pdata[i];
		char *timer;

		if (cs->file != f || cs->site->type != SITE_DATA_READ ||
		    cs->reason || g_hash_table_contains(seen, cs))
			continue;
		timer = read_timer_text(cs->site->text);
		if (timer)
			dread_add(pl, f, cs, timer, cs->site->func,
				  (struct fpos){ cs->site->line,
						 cs->site->col });
		g_free(timer);
	}
	g_hash_table_destroy(seen);
}

static void dread_free(struct dread *r)
{
	tref_clear(&r->timer);
	g_free(r);
}

/* ---- timers with no callback of their own ---- */

/*
 * init_timer() with no .function after it, setup_timer(&t, NULL, ...):
 * they join the callbacks that other code installs on the same timer.
 */
static void join_lone(struct planner *pl, struct binding *lone)
{
	for (guint i = 0; i < pl->bindings->len; i++) {
		struct binding *b = pl->bindings->pdata[i];

		if (b->cb && b->kind != B_LONE_INIT &&
		    same_timer(&b->timer, &lone->timer))
			node_union(pl, b->cb->node,
				   key_node(pl, lone->timer.key));
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

	for (guint j = 0; j < pl->bindings->len; j++) {
		struct binding *b = pl->bindings->pdata[j];
		struct keyed k = { b->file, b->timer.key };

		if (k.key)
			g_array_append_val(all, k);
	}
	for (guint j = 0; j < pl->dsrcs->len; j++) {
		struct dsrc *d = pl->dsrcs->pdata[j];
		struct keyed k = { d->file, d->timer.key };

		if (k.key)
			g_array_append_val(all, k);
	}
	for (guint j = 0; j < pl->reads->len; j++) {
		struct dread *r = pl->reads->pdata[j];
		struct keyed k = { r->file, r->timer.key };

		if (k.key)
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

/* Is the lexer's use of the name at `at` one C resolves to the function
 * (refs.c), not to a parameter or local of the same name? */
static bool lexer_use_at(const struct cfile *f, const char *name,
			 struct fpos at)
{
	for (guint k = 0; k < f->refs->len; k++) {
		const struct cb_ref *r = f->refs->pdata[k];

		if (r->line == at.line && r->col == at.col &&
		    !strcmp(r->name, name))
			return true;
	}
	return false;
}

/* The facts naming `name`; with `used`, only those at a use of the
 * function (a call through a local function pointer of that name is
 * not a call of the callback). */
static void add_crefs(GPtrArray *to, struct cfile *f, GPtrArray *facts,
		      const char *name, bool used)
{
	for (guint k = 0; k < facts->len; k++) {
		struct f_named *n = facts->pdata[k];
		struct cref *r;

		if (strcmp(n->name, name) ||
		    (used && !lexer_use_at(f, name, n->at)))
			continue;
		r = g_new0(struct cref, 1);
		r->file = f;
		r->n = n;
		g_ptr_array_add(to, r);
	}
}

/*
 * Can file f name the callback?  Any file, for a callback with external
 * linkage; a static one's own file, and the headers that file includes
 * (a static prototype in foo.h is foo.c's).
 */
static bool home_sees(struct planner *pl, const struct callback *cb,
		      const struct cfile *f)
{
	if (cb->module)
		return kmodule_sees(pl, cb->module, f);
	return !cb->home || cb->home == f ||
	       (g_str_has_suffix(f->path, ".h") &&
		cfile_includes(cb->home, f->path));
}

static guint count_defs(struct callback *cb, struct cfile *f, GArray *funcs)
{
	guint defs = 0;

	for (guint k = 0; k < funcs->len; k++) {
		struct ulong_func *u = &g_array_index(funcs, struct ulong_func,
						      k);

		if (strcmp(u->name, cb->name) || !u->is_def)
			continue;
		if (u->is_static && !cb->home)
			continue;
		/* the copy kept in #if 0 is not a definition */
		if (line_in_ranges(f->scan->dead_ranges, u->line))
			continue;
		defs++;
	}
	return defs;
}

static void collect_decls(struct planner *pl, struct callback *cb)
{
	struct conversion *cv = pl->cv;
	guint defs = 0;

	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (!home_sees(pl, cb, f))
			continue;
		if (f->scan)
			defs += count_defs(cb, f, f->scan->ulong_funcs) +
				count_defs(cb, f, f->scan->other_funcs);
		for (guint k = 0; f->facts && k < f->facts->callbacks->len;
		     k++) {
			struct f_callback *c = f->facts->callbacks->pdata[k];

			if (strcmp(c->name, cb->name) ||
			    !(cb->home || !static_in(f, cb->name)))
				continue;
			if (f->scan && line_in_ranges(f->scan->dead_ranges,
						      c->at.line))
				continue;
			cb->def = c;
			cb->def_file = f;
		}
		if (f->facts) {
			add_crefs(cb->protos, f, f->facts->protos, cb->name,
				  false);
			add_crefs(cb->calls, f, f->facts->calls, cb->name,
				  true);
		}
	}
	if (cb->module && kmodule_unclear(pl, cb->name))
		poison(cb, NULL,
		       "callback %s() is defined in several modules, and which one %s means is not clear",
		       cb->name, kmodule_unclear(pl, cb->name));
	else if (defs > 1 && cb->module)
		poison(cb, NULL,
		       "callback %s() is defined more than once in what links into %s",
		       cb->name, cb->module);
	else if (defs > 1)
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

/* A use written at `at` as text: fn, &fn, (void *)fn. */
static bool at_name(const char *text, struct fpos at, struct fpos ref)
{
	if (fpos_eq(at, ref))
		return true;
	return text && (text[0] == '&' || text[0] == '(') &&
	       at.line == ref.line && ref.col > at.col &&
	       ref.col < at.col + strlen(text);
}

/* Is the lexer's use of the name at `at` one spatch accounted for? */
static bool use_known(struct callback *cb, struct cfile *f, struct fpos at)
{
	if (cb->def_file == f && cb->def && fpos_eq(cb->def->at, at))
		return true;
	if (proto_known(cb, f, at))
		return true;
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];

		if (b->file != f)
			continue;
		if (b->setup && b->kind != B_LONE_INIT &&
		    at_name(b->setup->fn, b->setup->fn_at, at))
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
	GArray *lists[] = { f->scan ? f->scan->ulong_funcs : NULL,
			    f->scan ? f->scan->other_funcs : NULL };

	for (guint l = 0; l < G_N_ELEMENTS(lists) && lists[l]; l++)
		for (guint k = 0; k < lists[l]->len; k++) {
			struct ulong_func *u = &g_array_index(lists[l],
						struct ulong_func, k);

			if (!strcmp(u->name, name) && u->line == at.line &&
			    u->col == at.col)
				return true;
		}
	return false;
}

/*
 * A setup that hands the timer a parameter or a local of the callback's
 * name (a helper's `fn`) hands it no function: binding it to the
 * callback by name would convert a setup that does not set it up.
 */
static bool handed_unknown(struct callback *cb, struct cfile *f)
{
	for (guint k = 0; f->scan && k < f->scan->sites->len; k++) {
		const struct site *s = &g_array_index(f->scan->sites,
						      struct site, k);
		struct fpos at = { s->cb_line, s->cb_col };

		if (s->type != SITE_API || s->compat || s->define_name ||
		    !s->callback || strcmp(s->callback, cb->name) ||
		    line_in_ranges(f->scan->dead_ranges, s->line) ||
		    lexer_use_at(f, cb->name, at))
			continue;
		poison(cb, where(f, s->line),
		       "%s here is a parameter or a local variable, not the function %s()",
		       cb->name, cb->name);
		return true;
	}
	return false;
}

static void check_uses(struct planner *pl, struct callback *cb)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; i < cv->files->len && !cb->poison; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (!home_sees(pl, cb, f))
			continue;
		if ((cb->home || !static_in(f, cb->name)) &&
		    handed_unknown(cb, f))
			break;
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
			if (use_known(cb, f, at))
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

/* ---- the whole binding stage ---- */

void bind_all(struct planner *pl)
{
	struct conversion *cv = pl->cv;

	for (guint i = 0; i < cv->files->len; i++)
		bind_setups(pl, cv->files->pdata[i]);
	for (guint i = 0; i < cv->files->len; i++)
		bind_assigns(pl, cv->files->pdata[i]);
	for (guint i = 0; i < cv->files->len; i++)
		bind_reads(pl, cv->files->pdata[i]);
	poison_unparsed(pl);
	link_unknown_keys(pl);
	for (guint i = 0; i < pl->lone_inits->len; i++)
		join_lone(pl, pl->lone_inits->pdata[i]);
	for (guint i = 0; i < pl->all_callbacks->len; i++) {
		struct callback *cb = pl->all_callbacks->pdata[i];

		collect_decls(pl, cb);
		if (!cb->poison)
			check_uses(pl, cb);
	}
}

static void callback_free(struct callback *cb)
{
	g_free(cb->key);
	g_free(cb->name);
	g_ptr_array_free(cb->bindings, TRUE);
	g_ptr_array_free(cb->protos, TRUE);
	g_ptr_array_free(cb->calls, TRUE);
	g_free(cb->poison);
	g_free(cb->poison_where);
	g_free(cb->local);
	g_free(cb->local_type);
	g_free(cb->container);
	cbody_clear(&cb->body);
	g_free(cb->param);
	g_free(cb->hop);
	g_free(cb->hop_type);
	g_free(cb->field);
	g_free(cb->keep_member);
	g_free(cb->keep_ctype);
	g_free(cb->value);
	g_free(cb->back_local);
	g_free(cb->back_member);
	g_free(cb);
}

void planner_free(struct planner *pl)
{
	if (!pl)
		return;
	kmodule_free(pl);
	g_hash_table_destroy(pl->callbacks);
	g_ptr_array_set_free_func(pl->all_callbacks,
				  (GDestroyNotify)callback_free);
	g_ptr_array_free(pl->all_callbacks, TRUE);
	g_ptr_array_set_free_func(pl->bindings, (GDestroyNotify)binding_free);
	g_ptr_array_free(pl->bindings, TRUE);
	g_ptr_array_set_free_func(pl->dsrcs, (GDestroyNotify)dsrc_free);
	g_ptr_array_free(pl->dsrcs, TRUE);
	g_ptr_array_set_free_func(pl->reads, (GDestroyNotify)dread_free);
	g_ptr_array_free(pl->reads, TRUE);
	g_ptr_array_free(pl->lone_inits, TRUE);
	g_hash_table_destroy(pl->nodes);
	g_array_free(pl->parent, TRUE);
	g_hash_table_destroy(pl->paired);
	g_hash_table_destroy(pl->declared);
	g_free(pl);
}
