// SPDX-License-Identifier: GPL-2.0
/*
 * The plan: group what bind.c joined into units (a connected set of
 * callbacks and timers, changed together or not at all), let decide.c
 * judge each, and turn the units that convert into plan items, the
 * changes each file's rules are asked for.  Every old-API site ends with
 * an outcome: converted with its unit, or refused with a reason.
 */
#include <stdarg.h>
#include <string.h>

#include "kmodule.h"
#include "planner.h"
#include "ppcond.h"
#include "util.h"

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

/* Why spatch has nothing on a site the scan saw. */
static const char *unparsed_reason(const struct cfile *f)
{
	if (f->damage)
		return f->damage;
	if (f->timed_out)
		return "not parsed: spatch timed out on this file";
	if (f->spatch_error)
		return "not parsed: spatch failed on this file";
	return "not parsed: spatch could not parse the code around it";
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

static void item_free(struct plan_item *it)
{
	g_free(it->key);
	json_object_unref(it->entry);
	g_free(it->what);
	g_free(it);
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

/* An assignment is named by function, object, field and value. */
static char *field_key(const struct f_assign *a)
{
	return plan_key(a->func ? a->func : "", a->object, a->field, a->value,
			NULL);
}

/*
 * Can the .function assignment paired with an init_timer() go?  Only if
 * every assignment spelled the same in that function is paired too: the
 * rules name an assignment by its text.
 */
static bool all_paired(struct planner *pl, struct cfile *f,
		       const struct f_assign *a)
{
	char *key = field_key(a);
	bool ok = true;

	for (guint i = 0; ok && i < f->facts->assigns->len; i++) {
		struct f_assign *o = f->facts->assigns->pdata[i];
		char *ok_key, *pk;

		if (g_strcmp0(o->func, a->func))
			continue;
		ok_key = field_key(o);
		pk = g_strdup_printf("%s\n%u:%u", f->path, o->value_at.line,
				     o->value_at.col);
		ok = strcmp(ok_key, key) ||
		     g_hash_table_contains(pl->paired, pk);
		g_free(pk);
		g_free(ok_key);
	}
	g_free(key);
	return ok;
}

/* A callback as the target's struct timer_list stores it: v4.14's
 * .function takes unsigned long, and a converted callback is cast. */
static char *stored_fn(const struct target_forms *f, const char *name)
{
	if (f->function_ulong)
		return g_strdup_printf("(TIMER_FUNC_TYPE)%s", name);
	return g_strdup(name);
}

/* A .function assignment that stays loses the cast on its callback, or
 * gets the one a v4.14 tree needs. */
static void function_item(struct planner *pl, struct unit *u,
			  struct binding *b, const char *name)
{
	const struct target_forms *f = &pl->cv->target->forms;
	char *value;

	if (!b->cast && !f->function_ulong)
		return;
	value = stored_fn(f, name);
	item(u, b->file, "fields", field_key(b->assign), b->assign->at,
	     obj_str("op", "set", "value", value), ".function assignment",
	     NULL);
	g_free(value);
}

/*
 * An on-stack timer where the target lacks timer_setup_on_stack() (v4.14):
 * what it does, spelled with v4.14's own __setup_timer_on_stack().
 */
static void on_stack_by_hand(const struct target_forms *f, JsonObject *o,
			     const char *fn, const char *timer)
{
	char *cast_fn = stored_fn(f, fn);
	char *t = expr_compact(timer);
	char *data = g_strdup_printf("(TIMER_DATA_TYPE)%s", t);

	json_object_set_string_member(o, "api", "__setup_timer_on_stack");
	json_object_set_string_member(o, "fn", cast_fn);
	json_object_set_string_member(o, "data", data);
	g_free(cast_fn);
	g_free(t);
	g_free(data);
}

/* --keep-data: the setup's data goes to the member, right after it. */
static void keep_setup(const struct unit *u, JsonObject *o, const char *fn,
		       const char *timer)
{
	char *lvalue = keep_lvalue(u, timer);

	json_object_set_string_member(o, "fn", fn);
	json_object_set_string_member(o, "keep", lvalue);
	g_free(lvalue);
}

/* A static timer: the short forms of v4.15, or v4.14's with the callback
 * cast and, for DEFINE_TIMER(), the timer's own address as its data. */
static JsonObject *define_entry(const struct target_forms *f,
				const struct api *api, struct binding *b)
{
	JsonObject *o = obj_str("flags", initializer_flags(b->setup->api),
				NULL, NULL);
	char *fn, *data;

	if (api->kind == API_DEFINE ? f->define_short : f->initializer_short)
		return o;
	fn = stored_fn(f, b->cb->name);
	json_object_set_string_member(o, "fn", fn);
	g_free(fn);
	if (api->kind != API_DEFINE)
		return o;
	data = g_strdup_printf("(TIMER_DATA_TYPE)&%s", b->setup->name);
	json_object_set_string_member(o, "data", data);
	g_free(data);
	return o;
}

/* A prototype of the converted callback above the function b is in. */
static void decl_item(struct unit *u, struct binding *b)
{
	struct callback *cb = b->init_cb;
	JsonObject *o = obj_str("fn", cb->name, "param", cb->param);

	json_object_set_string_member(o, "static", cb->home ? "yes" : "no");
	item(u, b->file, "decls", plan_key(b->setup->func, NULL),
	     b->setup->at, o, "prototype", cb->name);
}

/* DEFINE_TIMER(t, NULL, 0, 0) given the timer's one callback. */
static void null_define_item(const struct target_forms *f, struct unit *u,
			     struct binding *b)
{
	JsonObject *o = obj_str("flags", "0", NULL, NULL);
	char *fn = f->define_short ? g_strdup(b->init_cb->name) :
				     stored_fn(f, b->init_cb->name);

	json_object_set_string_member(o, "fn", fn);
	if (!f->define_short) {
		char *data = g_strdup_printf("(TIMER_DATA_TYPE)&%s",
					     b->setup->name);

		json_object_set_string_member(o, "data", data);
		g_free(data);
	}
	item(u, b->file, "defines",
	     plan_key("DEFINE_TIMER", b->setup->name, NULL), b->setup->at, o,
	     b->setup->api, b->init_cb->name);
	g_free(fn);
}

static void binding_items(struct planner *pl, struct unit *u,
			  struct binding *b)
{
	const struct target_forms *f = &pl->cv->target->forms;
	const struct api *api = b->setup ?
		api_lookup(b->setup->api, strlen(b->setup->api)) : NULL;
	const char *cb = b->cb ? b->cb->name : NULL;
	const char *new_api = api && api->on_stack ? "timer_setup_on_stack" :
						      "timer_setup";
	bool by_hand = api && api->on_stack && !f->setup_on_stack;
	JsonObject *o;

	switch (b->kind) {
	case B_SETUP:
		o = obj_str("api", new_api, "flags",
			    api->flags ? api->flags : b->setup->flags);
		if (by_hand)
			on_stack_by_hand(f, o, cb, b->setup->timer);
		else if (u->keep_member)
			keep_setup(u, o, cb, b->setup->timer);
		else if (b->cast)
			json_object_set_string_member(o, "fn", cb);
		item(u, b->file, "setups",
		     plan_key(b->setup->func, api->name, b->setup->timer,
			      b->setup->fn, NULL),
		     b->setup->at, o, api->name, NULL);
		break;
	case B_INIT:
	case B_LONE_INIT:
		o = obj_str("api", new_api, "flags", api->flags);
		/* the callback as the paired assignment wrote it: &fn */
		json_object_set_string_member(o, "fn", b->kind == B_LONE_INIT ?
					      b->init_cb->name :
					      b->cast ? cb : b->setup->fn);
		if (by_hand)
			on_stack_by_hand(f, o, b->kind == B_LONE_INIT ?
					 b->init_cb->name : cb,
					 b->setup->timer);
		item(u, b->file, "inits",
		     plan_key(b->setup->func, api->name, b->setup->timer, NULL),
		     b->setup->at, o, api->name, NULL);
		if (b->declare)
			decl_item(u, b);
		if (!b->assign)
			break;
		if (all_paired(pl, b->file, b->assign))
			item(u, b->file, "fields", field_key(b->assign),
			     b->assign->at, obj_str("op", "delete", NULL, NULL),
			     ".function assignment", NULL);
		else
			function_item(pl, u, b, cb);
		break;
	case B_DEFINE:
		if (!b->cb) {
			null_define_item(f, u, b);
			break;
		}
		item(u, b->file, "defines",
		     api->kind == API_DEFINE ?
		     plan_key("DEFINE_TIMER", b->setup->name, NULL) :
		     plan_key(b->setup->func, api->name, b->setup->fn, NULL),
		     b->setup->at, define_entry(f, api, b), b->setup->api,
		     NULL);
		break;
	case B_FUNCTION:
		if (b->drop_assign)
			item(u, b->file, "fields", field_key(b->assign),
			     b->assign->at, obj_str("op", "delete", NULL, NULL),
			     ".function assignment", NULL);
		else
			function_item(pl, u, b, cb);
		break;
	}
}

/* A .data assignment goes; with --keep-data it sets the new member. */
static void dsrc_items(struct unit *u, struct dsrc *d)
{
	char *lvalue;

	if (!d->assign)
		return;		/* a setup's data goes with the setup */
	if (!u->keep_member) {
		item(u, d->file, "fields", field_key(d->assign),
		     d->assign->at, obj_str("op", "delete", NULL, NULL),
		     ".data assignment", NULL);
		return;
	}
	lvalue = keep_lvalue(u, d->assign->object);
	item(u, d->file, "fields", field_key(d->assign), d->assign->at,
	     obj_str("op", "keep", "lvalue", lvalue), ".data assignment",
	     NULL);
	g_free(lvalue);
}

/* --keep-data: a read of .data reads the member. */
static void read_items(struct unit *u, struct dread *r)
{
	char *lvalue;

	if (r->function || r->in_call || !u->keep_member)
		return;
	lvalue = keep_lvalue(u, r->object);
	item(u, r->file, "reads", plan_key(r->func ? r->func : "", r->object,
					   NULL),
	     (struct fpos){ r->line, 0 }, obj_str("lvalue", lvalue, NULL, NULL),
	     ".data read", NULL);
	g_free(lvalue);
}

/* --keep-data: the member beside the timer, in the struct's definition,
 * or the static beside a file-scope timer. */
static void member_item(struct unit *u)
{
	JsonObject *o;
	char *decl;

	if (!u->keep_global) {
		item(u, u->keep_file, "members",
		     plan_key(u->keep_tag, u->keep_field, NULL),
		     (struct fpos){ 0, 0 },
		     obj_str("member", u->keep_member, "type",
			     "unsigned long"),
		     "struct member", NULL);
		return;
	}
	decl = strcmp(u->keep_init, "0") ?
	       g_strdup_printf("%s = %s", u->keep_member, u->keep_init) :
	       g_strdup(u->keep_member);
	o = obj_str("decl", decl, NULL, NULL);
	/* declared with others: the patch finds the declaration by the
	 * line it ends on (its text may hold any bytes) */
	if (u->keep_among)
		json_object_set_int_member(o, "among", u->keep_among);
	item(u, u->keep_file, "statics", plan_key(u->keep_global, NULL),
	     (struct fpos){ 0, 0 }, o, "static variable", NULL);
	g_free(decl);
}

static const char *callback_kind(const struct callback *cb)
{
	if (cb->back_local)
		return cb->back_member ? "back" : "acc";
	if (cb->icast)
		return "icast";
	if (cb->value)
		return "value";
	if (cb->keep_member)
		return "keep";
	if (!cb->uses_data)
		return "unused";
	if (cb->pkind == P_POINTER)
		return "ptr";
	return cb->hop ? "hop" : "direct";
}

static void callback_items(struct planner *pl, struct unit *u,
			   struct callback *cb)
{
	JsonObject *o = json_object_new();
	const char *container_of = pl->cv->target->container_of;
	const char *kind = callback_kind(cb);

	json_object_set_string_member(o, "param", cb->param);
	json_object_set_string_member(o, "kind", kind);
	if (cb->uses_data) {
		json_object_set_string_member(o, "local", cb->local);
		json_object_set_string_member(o, "field", cb->field);
		json_object_set_string_member(o, "container_of", container_of);
	}
	/* kernel style: a blank line after the declarations */
	if ((cb->pkind == P_POINTER || cb->keep_member || cb->icast) &&
	    cb->uses_data)
		json_object_set_string_member(o, "blank", cb->body.decl_first ?
					      "no" : "yes");
	if (cb->back_local) {
		char *ct = g_strdup_printf("%s *", cb->container);

		json_object_set_string_member(o, "c", cb->back_local);
		json_object_set_string_member(o, "ctype", ct);
		json_object_set_string_member(o, "acc", cb->back_acc ? "yes" :
					      "no");
		if (cb->back_member)
			json_object_set_string_member(o, "member",
						      cb->back_member);
		g_free(ct);
	} else if (cb->icast) {
		char *ct = g_strdup_printf("%s *", cb->container);

		json_object_set_string_member(o, "ctype", ct);
		g_free(ct);
	} else if (cb->value) {
		json_object_set_string_member(o, "value", cb->value);
		json_object_set_string_member(o, "data", cb->def->param);
		json_object_set_string_member(o, "blank", cb->body.decl_first ?
					      "no" : "yes");
	} else if (cb->keep_member) {
		json_object_set_string_member(o, "ctype", cb->keep_ctype);
		json_object_set_string_member(o, "member", cb->keep_member);
		json_object_set_string_member(o, "data", cb->def->param);
	}
	if (cb->hop) {
		json_object_set_string_member(o, "hop", cb->hop);
		json_object_set_string_member(o, "hop_type", cb->hop_type);
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
	u->items = g_ptr_array_new_with_free_func((GDestroyNotify)item_free);
	u->sites = g_ptr_array_new();
	u->files = g_hash_table_new(NULL, NULL);
	u->lone = g_ptr_array_new();
	u->dsrcs = g_ptr_array_new();
	u->reads = g_ptr_array_new();
	g_ptr_array_add(cv->units, u);
	return u;
}

static void unit_free(struct unit *u)
{
	g_ptr_array_free(u->callbacks, TRUE);
	g_ptr_array_free(u->cb_names, TRUE);
	g_ptr_array_free(u->items, TRUE);
	g_ptr_array_free(u->sites, TRUE);
	g_hash_table_destroy(u->files);
	g_ptr_array_free(u->lone, TRUE);
	g_ptr_array_free(u->dsrcs, TRUE);
	g_ptr_array_free(u->reads, TRUE);
	g_free(u->reason);
	g_free(u->where);
	g_free(u->kept);
	g_free(u->keep_tag);
	g_free(u->keep_field);
	g_free(u->keep_member);
	g_free(u->keep_global);
	g_free(u->keep_init);
	g_free(u);
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
	for (guint i = 0; i < u->lone->len && !u->reason; i++)
		decide_lone_init(pl, u->lone->pdata[i], u);
	for (guint i = 0; i < u->reads->len && !u->reason; i++)
		decide_read(u->reads->pdata[i], u);
	if (!u->reason)
		decide_pointer_reads(pl, u);
	for (guint i = 0; i < u->dsrcs->len && !u->reason; i++)
		decide_dsrc(pl, u->dsrcs->pdata[i], u);
	if (u->reason)
		return;
	for (guint i = 0; i < u->callbacks->len; i++) {
		struct callback *cb = u->callbacks->pdata[i];

		for (guint k = 0; k < cb->bindings->len; k++)
			binding_items(pl, u, cb->bindings->pdata[k]);
		callback_items(pl, u, cb);
	}
	for (guint i = 0; i < u->lone->len; i++)
		binding_items(pl, u, u->lone->pdata[i]);
	for (guint i = 0; i < u->dsrcs->len; i++)
		dsrc_items(u, u->dsrcs->pdata[i]);
	for (guint i = 0; i < u->reads->len; i++)
		read_items(u, u->reads->pdata[i]);
	if (u->keep_member)
		member_item(u);
}

static int cmp_callbacks(gconstpointer a, gconstpointer b)
{
	const struct callback *x = *(struct callback *const *)a;
	const struct callback *y = *(struct callback *const *)b;

	return strcmp(x->key, y->key);
}

/* The unit of the callbacks around key's node, if any. */
static struct unit *unit_of_key(struct planner *pl, GHashTable *by_root,
				const char *key)
{
	int root;

	if (!key || !g_hash_table_contains(pl->nodes, key))
		return NULL;
	root = node_find(pl, key_node(pl, key));
	return g_hash_table_lookup(by_root, GINT_TO_POINTER(root));
}

/* Why a timer without a callback of its own, joined to none, is left. */
static const char *lone_reason(const struct binding *b)
{
	switch (b->kind) {
	case B_SETUP:
		return "setup with a NULL callback and no .function assignment this tool can convert";
	case B_DEFINE:
		return "static timer defined with a NULL callback and no .function assignment this tool can convert";
	default:
		return "init_timer() without a .function assignment on every path after it";
	}
}

static void build_units(struct planner *pl)
{
	struct conversion *cv = pl->cv;
	GHashTable *by_root = g_hash_table_new(NULL, NULL);
	GPtrArray *cbs = g_ptr_array_new();

	/* Deterministic order: by the callback's key. */
	g_ptr_array_extend(cbs, pl->all_callbacks, NULL, NULL);
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
		}
		if (cb->def_file)
			g_hash_table_add(u->files, cb->def_file);
		/* the scan's site for the definition, parsed or not; not
		 * a copy in #if 0 (or other code refused on its own), which
		 * stays as it is */
		for (guint k = 0; k < cv->sites->len; k++) {
			struct csite *cs = cv->sites->pdata[k];

			if (cs->site->type == SITE_ULONG_CALLBACK &&
			    !cs->reason &&
			    !strcmp(cs->site->callback, cb->name) &&
			    (cb->home ? cs->file == cb->home :
					!static_in(cs->file, cb->name)) &&
			    (!cb->module ||
			     kmodule_sees(pl, cb->module, cs->file)))
				unit_add_site(u, cs);
		}
	}
	for (guint i = 0; i < pl->lone_inits->len; i++) {
		struct binding *b = pl->lone_inits->pdata[i];
		struct unit *u = unit_of_key(pl, by_root, b->timer.key);

		if (!u) {
			site_refuse(b->csite, lone_reason(b));
			continue;
		}
		g_ptr_array_add(u->lone, b);
		unit_add_site(u, b->csite);
	}
	for (guint i = 0; i < pl->dsrcs->len; i++) {
		struct dsrc *d = pl->dsrcs->pdata[i];
		struct unit *u = unit_of_key(pl, by_root, d->timer.key);

		if (!u)
			continue;
		g_ptr_array_add(u->dsrcs, d);
		unit_add_site(u, d->csite);
	}
	for (guint i = 0; i < pl->reads->len; i++) {
		struct dread *r = pl->reads->pdata[i];
		struct unit *u = unit_of_key(pl, by_root, r->timer.key);

		if (!u)
			continue;
		g_ptr_array_add(u->reads, r);
		if (r->csite)
			unit_add_site(u, r->csite);
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

			if (f->damage)
				site_refuse(cs, f->damage);
			else if (s->compat)
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
		case SITE_DATA_READ:
			site_refuse(cs, "the timer's .data is read here");
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
	struct planner *pl = g_new0(struct planner, 1);

	pl->cv = cv;
	pl->callbacks = g_hash_table_new(g_str_hash, g_str_equal);
	pl->all_callbacks = g_ptr_array_new();
	pl->bindings = g_ptr_array_new();
	pl->dsrcs = g_ptr_array_new();
	pl->reads = g_ptr_array_new();
	pl->lone_inits = g_ptr_array_new();
	pl->nodes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  NULL);
	pl->parent = g_array_new(FALSE, FALSE, sizeof(int));
	pl->paired = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   NULL);
	pl->declared = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     NULL);
	cv->planner = pl;

	presort_sites(cv);
	bind_all(pl);
	build_units(pl);
	plan_renames(pl);
	plan_settle(cv);
}

void plan_keep_in_scope(struct conversion *cv)
{
	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];
		GHashTableIter it;
		gpointer f;
		const char *outside = NULL;

		if (u->reason)
			continue;
		g_hash_table_iter_init(&it, u->files);
		while (g_hash_table_iter_next(&it, &f, NULL)) {
			const char *p = ((struct cfile *)f)->path;

			/* the first in path order, for a stable message */
			if (!((struct cfile *)f)->in_scope &&
			    (!outside || strcmp(p, outside) < 0))
				outside = p;
		}
		if (outside)
			unit_refuse(u, outside,
				    "unit extends outside the given paths: %s (--follow-units converts it whole)",
				    outside);
	}
	plan_settle(cv);
}

static void csite_free(struct csite *s)
{
	g_free(s->reason);
	g_free(s->callback);
	g_free(s);
}

void plan_free(struct conversion *cv)
{
	if (cv->units) {
		g_ptr_array_set_free_func(cv->units,
					  (GDestroyNotify)unit_free);
		g_ptr_array_free(cv->units, TRUE);
		cv->units = NULL;
	}
	if (cv->sites) {
		g_ptr_array_set_free_func(cv->sites,
					  (GDestroyNotify)csite_free);
		g_ptr_array_free(cv->sites, TRUE);
		cv->sites = NULL;
	}
	planner_free(cv->planner);
	cv->planner = NULL;
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
