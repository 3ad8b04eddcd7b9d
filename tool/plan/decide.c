// SPDX-License-Identifier: GPL-2.0
/*
 * Deciding: can a callback be converted, and how?  A callback converts
 * when every use of its name is accounted for, it ignores its data, or
 * uses it exactly once, to find its container, and every timer it runs
 * on is given that container as data (by its setup, or by every .data
 * assignment it has) at one field that the struct definition confirms,
 * or that the setups' own syntax proves when the tree lacks it.
 * Anything else refuses the whole unit, with the first reason found.
 */
#include <stdlib.h>
#include <string.h>

#include "planner.h"
#include "ppcond.h"
#include "util.h"

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
	return "data not understood";
}

static const char *pick_name(GHashTable *idents, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (!idents || !g_hash_table_contains(idents, names[i]))
			return names[i];
	return NULL;
}

static char *binding_where(const struct binding *b)
{
	unsigned int line = b->setup ? b->setup->at.line : b->assign->at.line;

	return where(b->file, line);
}

/* ---- the callback's parameter ---- */

static bool is_ulong_type(const char *t)
{
	static const char *const spellings[] = {
		"unsigned long", "unsigned long int", "long unsigned int",
		"long", "long int", "ulong", "u_long", NULL
	};
	char *norm = text_normalize(t, strlen(t));
	bool res = false;

	for (int i = 0; spellings[i]; i++)
		res |= !strcmp(norm, spellings[i]);
	g_free(norm);
	return res;
}

/* P_POINTER: *container is the struct the parameter points to. */
static enum pkind param_kind(struct conversion *cv, const char *file,
			     const char *ptype, char **container)
{
	struct ctype t = { 0 };
	enum pkind k = P_OTHER;

	*container = NULL;
	if (!ptype)
		return P_OTHER;
	if (is_ulong_type(ptype))
		return P_ULONG;
	if (ctype_parse_in(conv_structs(cv), ptype, file, &t) && t.ptr == 1 &&
	    (g_str_has_prefix(t.tag, "struct ") ||
	     g_str_has_prefix(t.tag, "union "))) {
		*container = g_strdup(t.tag);
		k = P_POINTER;
	}
	ctype_clear(&t);
	return k;
}

/* ---- what the timers of a callback are given as data ---- */

/* t.data = data in the callback itself: the timer keeps what it had. */
bool passthrough(const struct callback *cb, const struct dsrc *d)
{
	char *bare;
	bool res;

	if (!d->assign || d->file != cb->def_file ||
	    g_strcmp0(d->func, cb->name))
		return false;
	bare = strip_casts(d->value);
	res = bare && !strcmp(bare, cb->def->param);
	g_free(bare);
	return res;
}

/* Does one of cb's bindings set up timer r? */
bool runs_on(const struct callback *cb, const struct tref *r)
{
	for (guint i = 0; i < cb->bindings->len; i++)
		if (same_timer(&((const struct binding *)
				 cb->bindings->pdata[i])->timer, r))
			return true;
	return false;
}

/* Is r a bare timer pointer (`t->data`, t a `struct timer_list *`: any
 * timer) in one of u's files? */
bool bare_pointer_in(const struct tref *r, struct cfile *file,
		     const struct unit *u)
{
	return r->chain_ok && !r->chain.addr && !r->chain.segs->len &&
	       g_hash_table_contains(u->files, file);
}

/* Does the callback run on the timer that d sets, and only on it? */
bool on_own_timer(const struct callback *cb, const struct dsrc *d)
{
	bool any = false;

	for (guint i = 0; i < cb->bindings->len; i++) {
		const struct binding *b = cb->bindings->pdata[i];

		if (!same_timer(&b->timer, &d->timer))
			return false;
		any = true;
	}
	return any;
}

/*
 * A form the binding needs that the target's timer.h lacks, with no
 * v4.14 spelling (TIMER_FUNC_TYPE) to stand in for it: why, or NULL.
 */
static const char *form_missing(const struct target_forms *f,
				const struct binding *b)
{
	const struct api *api = b->setup ?
		api_lookup(b->setup->api, strlen(b->setup->api)) : NULL;
	bool stays = b->kind == B_FUNCTION || (b->kind == B_INIT && b->assign);

	if (stays && f->function_ulong && !f->func_type)
		return "the target's timer_list.function takes unsigned long and its timer.h has no TIMER_FUNC_TYPE to cast a converted callback to";
	if (!api)
		return NULL;
	if (api->on_stack && !f->setup_on_stack && !f->func_type)
		return "the target's timer.h has neither timer_setup_on_stack() nor TIMER_FUNC_TYPE";
	if (b->kind != B_DEFINE)
		return NULL;
	if (api->kind == API_DEFINE && !f->define_short && !f->func_type)
		return "the target's timer.h has neither DEFINE_TIMER(name, fn) nor TIMER_FUNC_TYPE";
	if (api->kind == API_INITIALIZER && !f->initializer_short &&
	    f->compat)
		return "a static initialiser has no spelling that builds both before and after v4.15 (DEFINE_TIMER() has)";
	if (api->kind == API_INITIALIZER && !f->initializer_short &&
	    !f->func_type)
		return "the target's timer.h has neither __TIMER_INITIALIZER(fn, flags) nor TIMER_FUNC_TYPE";
	return NULL;
}

/* Problems of the setups themselves, whatever the callback does. */
static bool check_bindings(struct planner *pl, struct callback *cb,
			   struct unit *u)
{
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		struct fpos bat = b->setup ? b->setup->at : b->assign->at;
		GHashTable *params = enclosing_params(b->file, bat);
		const char *data = b->kind == B_SETUP ? b->setup->data : NULL;
		char *bare = strip_casts(data);
		const char *why = NULL;
		char *w;

		/* data handed in as an unsigned long: passed through as is */
		if (g_hash_table_contains(params, cb->name) ||
		    (bare && g_hash_table_contains(params, bare) &&
		     !strcmp(data, bare)))
			why = "setup inside a helper that receives fn/data as parameters";
		else if (b->kind == B_DEFINE && b->cast)
			why = "static timer whose callback is cast";
		else if (b->kind == B_DEFINE && b->setup->expires &&
			 !expr_is_integer(b->setup->expires))
			why = "static timer with an expires that is not a constant 0";
		else if (b->kind == B_DEFINE && b->setup->expires &&
			 strtol(b->setup->expires, NULL, 0) != 0)
			why = "static timer with a nonzero expires (add_timer() would use it)";
		else
			why = form_missing(&pl->cv->target->forms, b);
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

static bool proven_by_syntax(struct callback *cb, GPtrArray *srcs)
{
	if (cb->hop || !srcs->len)
		return false;
	for (guint i = 0; i < srcs->len; i++) {
		struct dsrc *d = srcs->pdata[i];

		if (!d->data_type || strcmp(d->data_type, cb->container))
			return false;
	}
	return true;
}

/*
 * The struct the callback gets back from this timer: what the data points
 * to, if spatch knows; else the timer's own struct, when the data is the
 * whole of it (&dev->phy.roc_timer with data &dev->phy is a phy's).
 */
static const char *effective_container(const struct binding *b,
				       const struct dsrc *d)
{
	const char *hash = b->timer.key ? strchr(b->timer.key, '#') : NULL;

	if (d->data_type)
		return d->data_type;
	if (hash && d->rel.field && !d->rel.hop &&
	    !strcmp(hash + 1, d->rel.field))
		return b->timer.container;
	return NULL;
}

static const char *no_data_reason(const struct binding *b)
{
	switch (b->kind) {
	case B_INIT:
		return "%s() uses its data but init_timer() here sets no .data";
	case B_FUNCTION:
		return "%s() is set as .function here, but no setup of that timer passes its container";
	default:
		return "%s() uses its data but nothing sets the .data of the timer here";
	}
}

/* Every data source of every timer the callback runs on. */
static bool gather_data(struct planner *pl, struct callback *cb,
			struct unit *u, GPtrArray *srcs)
{
	const char *field = NULL, *hop = NULL, *container = NULL;

	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		bool any = false;
		char *at = binding_where(b);
		bool ok = true;

		if (b->kind == B_DEFINE) {
			unit_refuse(u, at,
				    "the timer is a global (DEFINE_TIMER) and %s() uses its data",
				    cb->name);
			g_free(at);
			return false;
		}
		for (guint k = 0; ok && k < pl->dsrcs->len; k++) {
			struct dsrc *d = pl->dsrcs->pdata[k];
			const char *why;
			char *dw;

			if (!same_timer(&b->timer, &d->timer) ||
			    (passthrough(cb, d) && on_own_timer(cb, d)))
				continue;
			any = true;
			dw = where(d->file, d->line);
			why = relation_reason(d->rel.rel);
			if (why && d->assign)
				unit_refuse(u, dw, "the timer's .data is assigned elsewhere (at %s) to something other than its container",
					    dw);
			else if (why)
				unit_refuse(u, dw, "%s", why);
			else if (field && (strcmp(field, d->rel.field) ||
					   g_strcmp0(hop, d->rel.hop)))
				unit_refuse(u, dw, "callback shared by timers in different fields");
			else if (container && effective_container(b, d) &&
				 strcmp(container, effective_container(b, d)))
				unit_refuse(u, dw, "callback shared by timers in different container types");
			else if (d->data_type &&
				 strcmp(d->data_type, cb->container))
				unit_refuse(u, dw, "container type mismatch: the setup passes %s, %s() expects %s",
					    d->data_type, cb->name,
					    cb->container);
			ok = !u->reason;
			g_free(dw);
			if (!ok)
				break;
			field = d->rel.field;
			hop = d->rel.hop;
			if (effective_container(b, d))
				container = effective_container(b, d);
			if (!g_ptr_array_find(srcs, d, NULL))
				g_ptr_array_add(srcs, d);
		}
		if (ok && !any && b->kind != B_LONE_INIT) {
			unit_refuse(u, at, no_data_reason(b), cb->name);
			ok = false;
		}
		g_free(at);
		if (!ok)
			return false;
	}
	if (!field) {
		char *at = where(cb->def_file, cb->def->at.line);

		unit_refuse(u, at, "no setup of %s() passes its container",
			    cb->name);
		g_free(at);
		return false;
	}
	cb->field = g_strdup(field);
	cb->hop = g_strdup(hop);
	return true;
}

static bool decide_data_user(struct planner *pl, struct callback *cb,
			     struct unit *u)
{
	struct conversion *cv = pl->cv;
	static const char *const params[] = { "t", "timer", "tl", NULL };
	GPtrArray *srcs = g_ptr_array_new();
	char *at = where(cb->def_file, cb->def->at.line);
	const char *why, *p;
	bool ok = false, unknown;

	if (!gather_data(pl, cb, u, srcs))
		goto out;
	if (cb->hop) {
		const struct member *m = structs_member(conv_structs(cv),
			cb->container, cb->hop, cb->def_file->path);

		if (cb->pkind == P_POINTER) {
			unit_refuse(u, at, "%s() takes %s but its timer is in %s->%s",
				    cb->name, cb->container, cb->local,
				    cb->hop);
			goto out;
		}
		if (!m || m->type.ptr != 1) {
			unit_refuse(u, at, "cannot resolve %s->%s: %s is not defined in the tree",
				    cb->local, cb->hop, cb->container);
			goto out;
		}
		if (g_strcmp0(cb->body.only_member, cb->hop)) {
			unit_refuse(u, at,
				    "%s() uses %s for more than %s->%s; it cannot be recovered from the timer",
				    cb->name, cb->local, cb->local, cb->hop);
			goto out;
		}
		if (g_hash_table_contains(cb->body.idents, cb->hop)) {
			unit_refuse(u, at, "name conflict: %s() already uses the name %s",
				    cb->name, cb->hop);
			goto out;
		}
		why = check_field(cv, cb->def_file->path, m->type.tag,
				  cb->field, &unknown);
		if (why) {
			unit_refuse(u, at, "cannot check field %s: %s %s",
				    cb->field, m->type.tag, why);
			goto out;
		}
		cb->hop_type = g_strdup(m->type.text);
	} else {
		why = check_field(cv, cb->def_file->path, cb->container,
				  cb->field, &unknown);
		/* no definition in the tree: the setups' syntax proves the
		 * field, and the compiler checks from_timer() against it */
		if (why && (!unknown || !proven_by_syntax(cb, srcs))) {
			unit_refuse(u, at, "cannot check field %s: %s %s",
				    cb->field, cb->container, why);
			goto out;
		}
	}
	p = pick_name(cb->body.idents, params);
	if (!p) {
		unit_refuse(u, at, "name conflict: %s() uses t, timer and tl",
			    cb->name);
		goto out;
	}
	cb->param = g_strdup(p);
	ok = true;
out:
	g_ptr_array_free(srcs, TRUE);
	g_free(at);
	return ok;
}

/* ---- a callback ---- */

/* The casts of the parameter spatch found, one per place. */
struct f_cast *the_cast(struct callback *cb, guint *n, bool *two)
{
	GPtrArray *casts = cb->def_file->facts->casts;
	struct f_cast *cast = NULL;

	*n = 0;
	*two = false;
	for (guint i = 0; i < casts->len; i++) {
		struct f_cast *c = casts->pdata[i];
		struct ctype a = { 0 }, b = { 0 };

		if (strcmp(c->callback, cb->name))
			continue;
		if (cast && fpos_eq(cast->data_at, c->data_at))
			continue;	/* (T *)data seen as (T)data too */
		if (cast) {
			ctype_parse(NULL, cast->type, &a);
			ctype_parse(NULL, c->type, &b);
			*two |= strcmp(a.tag, b.tag) != 0;
			ctype_clear(&a);
			ctype_clear(&b);
		}
		if (!cast)
			cast = c;
		(*n)++;
	}
	return cast;
}

/* Uses of the parameter, less those in `t.data = data` of its own. */
guint counted_uses(struct planner *pl, struct callback *cb)
{
	guint n = 0;

	for (guint i = 0; i < cb->body.param_uses->len; i++) {
		struct fpos at = g_array_index(cb->body.param_uses,
					       struct fpos, i);
		bool own = false;

		for (guint k = 0; k < pl->dsrcs->len && !own; k++) {
			struct dsrc *d = pl->dsrcs->pdata[k];

			own = passthrough(cb, d) && on_own_timer(cb, d) &&
			      d->assign->value_at.line == at.line &&
			      d->assign->value_at.col <= at.col;
		}
		n += !own;
	}
	return n;
}

/*
 * Every use of the parameter is a cast of it to one struct's pointer in
 * an expression, foo((struct bar *)data): a local of the container, from
 * from_timer(), takes the casts' places.
 */
static bool inline_casts(struct planner *pl, struct callback *cb)
{
	GPtrArray *icasts = cb->def_file->facts->icasts;
	struct ctype ct = { 0 };
	const char *type = NULL;
	guint uses = counted_uses(pl, cb);

	if (!uses || uses != cb->body.param_uses->len)
		return false;
	for (guint i = 0; i < uses; i++) {
		struct fpos at = g_array_index(cb->body.param_uses,
					       struct fpos, i);
		const char *found = NULL;

		for (guint k = 0; k < icasts->len && !found; k++) {
			struct f_cast *c = icasts->pdata[k];

			if (!strcmp(c->callback, cb->name) &&
			    fpos_eq(c->data_at, at))
				found = c->type;
		}
		if (!found || (type && strcmp(type, found)))
			return false;
		type = found;
	}
	if (!ctype_parse_in(conv_structs(pl->cv), type, cb->def_file->path,
			    &ct) || ct.ptr || !ct.tag ||
	    !g_str_has_prefix(ct.tag, "struct ")) {
		ctype_clear(&ct);
		return false;
	}
	cb->uses_data = true;
	cb->icast = true;
	cb->container = g_strdup(ct.tag);
	cb->local = local_name(ct.tag, cb->body.idents);
	g_hash_table_add(cb->body.idents, g_strdup(cb->local));
	ctype_clear(&ct);
	return true;
}

static bool decide_ulong_data(struct planner *pl, struct callback *cb,
			      struct unit *u, const char *at)
{
	guint casts;
	bool two;
	struct f_cast *cast = the_cast(cb, &casts, &two);
	struct ctype ct = { 0 };

	if (two) {
		unit_refuse(u, at, "callback casts data to two different types");
		return false;
	}
	if (!cbody_analyse(cb->def_file, cb->def->at, cb->def->param,
			   cast ? cast->local : NULL,
			   cast ? cast->local_at : (struct fpos){ 0, 0 },
			   &cb->body)) {
		unit_refuse(u, at, "not parsed: cannot find the body of %s()",
			    cb->name);
		return false;
	}
	if (counted_uses(pl, cb) == 0)
		return true;
	/* It uses its data: an integer handed in cannot become a timer. */
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];

		for (guint k = 0; k < pl->dsrcs->len; k++) {
			struct dsrc *d = pl->dsrcs->pdata[k];
			char *w;

			if (!same_timer(&b->timer, &d->timer) ||
			    (passthrough(cb, d) && on_own_timer(cb, d)) ||
			    !(d->rel.rel == REL_INTEGER ||
			      (d->setup && d->setup->kind == FS_DEFINE &&
			       g_strcmp0(d->setup->fn, "NULL") &&
			       d->value && expr_is_integer(d->value))))
				continue;
			w = where(d->file, d->line);
			unit_refuse(u, w, "integer data that the callback uses");
			g_free(w);
			return false;
		}
	}
	if (!casts && inline_casts(pl, cb))
		return decide_data_user(pl, cb, u);
	if (counted_uses(pl, cb) != 1 || casts != 1 ||
	    !fpos_eq(g_array_index(cb->body.param_uses, struct fpos, 0),
		     cast->data_at)) {
		unit_refuse(u, at, casts > 1 ?
			    "callback uses data more than once" :
			    "callback uses data other than to find its container");
		return false;
	}
	cb->uses_data = true;
	cb->cast = cast;
	cb->local = g_strdup(cast->local);
	ctype_parse_in(conv_structs(pl->cv), cast->type, cb->def_file->path,
		       &ct);
	cb->container = g_strdup(ct.tag);
	ctype_clear(&ct);
	return decide_data_user(pl, cb, u);
}

static bool decide_pointer(struct planner *pl, struct callback *cb,
			   struct unit *u, const char *at)
{
	if (!cbody_analyse(cb->def_file, cb->def->at, cb->def->param, NULL,
			   (struct fpos){ 0, 0 }, &cb->body)) {
		unit_refuse(u, at, "not parsed: cannot find the body of %s()",
			    cb->name);
		return false;
	}
	if (cb->body.param_uses->len == 0)
		return true;
	cb->uses_data = true;
	cb->local = g_strdup(cb->def->param);
	return decide_data_user(pl, cb, u);
}

/* What decide_ulong_data() may have decided before it refused. */
static void forget_data(struct callback *cb)
{
	g_clear_pointer(&cb->back_local, g_free);
	g_clear_pointer(&cb->back_member, g_free);
	cb->back_acc = false;
	g_clear_pointer(&cb->local, g_free);
	g_clear_pointer(&cb->local_type, g_free);
	g_clear_pointer(&cb->container, g_free);
	g_clear_pointer(&cb->param, g_free);
	g_clear_pointer(&cb->hop, g_free);
	g_clear_pointer(&cb->hop_type, g_free);
	g_clear_pointer(&cb->field, g_free);
	cb->cast = NULL;
	cb->icast = false;
	cb->uses_data = false;
}

/*
 * A .data write through a bare timer pointer (`timer->data = v` in a
 * helper taking `struct timer_list *timer`) in one of the unit's files,
 * on no timer of cb's: it may be one of them, and a callback that uses
 * its data would no longer get what it wrote.  The write, or NULL.
 */
const struct dsrc *pointer_data_write(struct planner *pl,
				      struct callback *cb, struct unit *u)
{
	for (guint k = 0; k < pl->dsrcs->len; k++) {
		const struct dsrc *d = pl->dsrcs->pdata[k];

		if (bare_pointer_in(&d->timer, d->file, u) &&
		    !runs_on(cb, &d->timer))
			return d;
	}
	return NULL;
}

/*
 * A callback taking unsigned long: as it is, or, where its data cannot be
 * recovered from the timer and --keep-data is given, with the data kept
 * in a member beside the timer.  When both fail, the reason says both.
 */
static bool decide_ulong_ways(struct planner *pl, struct callback *cb,
			 struct unit *u, const char *at)
{
	char *reason, *where_was;
	bool read = false;

	/* a .data read elsewhere needs the data kept, container or not */
	for (guint i = 0; pl->cv->keep_data && i < u->reads->len; i++)
		read |= !((struct dread *)u->reads->pdata[i])->function;
	if (read)
		return decide_keep(pl, cb, u, at);
	if (decide_ulong_data(pl, cb, u, at))
		return true;
	if (g_str_has_prefix(u->reason, "not parsed"))
		return false;
	reason = u->reason;
	where_was = u->where;
	u->reason = NULL;
	u->where = NULL;
	forget_data(cb);
	/* a way back from the container; the same constant from every
	 * setup; with --keep-data, the data beside the timer */
	if (decide_back(pl, cb, u, at) || decide_const(pl, cb, u) ||
	    (pl->cv->keep_data && decide_keep(pl, cb, u, at))) {
		g_free(reason);
		g_free(where_was);
		return true;
	}
	g_free(u->where);
	u->where = where_was;
	where_was = u->reason;
	u->reason = where_was ? g_strdup_printf("%s (%s)", reason, where_was) :
				g_strdup(reason);
	g_free(reason);
	g_free(where_was);
	return false;
}

/* ... and nothing out of sight writes the data it now finds elsewhere. */
static bool decide_ulong(struct planner *pl, struct callback *cb,
			 struct unit *u, const char *at)
{
	const struct dsrc *d;
	char *w;

	if (!decide_ulong_ways(pl, cb, u, at))
		return false;
	d = cb->uses_data ? pointer_data_write(pl, cb, u) : NULL;
	if (!d)
		return true;
	w = where(d->file, d->line);
	unit_refuse(u, at, "a timer's .data is set through a pointer at %s: which timer, cannot be told",
		    w);
	g_free(w);
	forget_data(cb);
	return false;
}

bool decide_callback(struct planner *pl, struct callback *cb,
		     struct unit *u)
{
	static const char *const unused_names[] = { "unused", "t", "timer",
						    NULL };
	char *at;
	bool ok = false;

	if (!check_bindings(pl, cb, u))
		return false;
	if (cb->poison) {
		unit_refuse(u, cb->poison_where, "%s", cb->poison);
		return false;
	}
	at = where(cb->def_file, cb->def->at.line);
	if (cb->def->ret && strcmp(cb->def->ret, "void")) {
		unit_refuse(u, at, "callback %s() returns %s, not void",
			    cb->name, cb->def->ret);
		goto out;
	}
	cb->pkind = param_kind(pl->cv, cb->def_file->path, cb->def->ptype,
			       &cb->container);
	if (cb->pkind == P_POINTER &&
	    !strcmp(cb->container, "struct timer_list")) {
		unit_refuse(u, at, "callback %s() already takes struct timer_list *",
			    cb->name);
		goto out;
	}
	if (cb->pkind == P_OTHER) {
		unit_refuse(u, at, "callback %s() takes %s, not unsigned long or a pointer to its container",
			    cb->name, cb->def->ptype ? cb->def->ptype : "?");
		goto out;
	}
	if (cb->pkind == P_ULONG ? !decide_ulong(pl, cb, u, at) :
				   !decide_pointer(pl, cb, u, at))
		goto out;
	if (!cb->uses_data || cb->value) {
		const char *p = pick_name(cb->body.idents, unused_names);

		if (!p) {
			unit_refuse(u, at, "name conflict: %s() uses unused, t and timer",
				    cb->name);
			goto out;
		}
		cb->param = g_strdup(p);
	}
	ok = true;
out:
	g_free(at);
	return ok;
}

/* ---- timers without a callback of their own ---- */

/* Is name declared in f above `line`, by a prototype or its definition? */
static bool declared_above(const struct cfile *f, const char *name,
			   unsigned int line)
{
	GArray *lists[] = { f->scan->ulong_funcs, f->scan->other_funcs };

	for (guint l = 0; l < G_N_ELEMENTS(lists); l++)
		for (guint k = 0; k < lists[l]->len; k++) {
			const struct ulong_func *fn = &g_array_index(lists[l],
						struct ulong_func, k);

			if (fn->line < line && !strcmp(fn->name, name) &&
			    !line_in_ranges(f->scan->dead_ranges, fn->line))
				return true;
		}
	return false;
}

/* ... or by a prototype in a header f includes. */
static bool declared_for(const struct callback *cb, const struct cfile *f,
			 unsigned int line)
{
	if (declared_above(f, cb->name, line))
		return true;
	for (guint i = 0; i < cb->protos->len; i++) {
		const struct cref *r = cb->protos->pdata[i];

		if (r->file != f && cfile_includes(f, r->file->path))
			return true;
	}
	return false;
}

/*
 * init_timer() becoming timer_setup(&t, fn, 0) names fn where the old
 * code did not: fn must be declared above it.  When the file defines fn
 * further down, a prototype goes above the enclosing function (one per
 * function); anything else is refused.
 */
static bool declare_before_use(struct planner *pl, struct binding *b,
			       struct unit *u, const char *at)
{
	struct callback *cb = b->init_cb;
	char *key;
	struct callback *other;

	if (declared_for(cb, b->file, b->setup->at.line))
		return true;
	if (cb->def_file != b->file || !b->setup->func) {
		unit_refuse(u, at, "timer_setup() here would name %s() before anything declares it in this file",
			    cb->name);
		return false;
	}
	key = g_strdup_printf("%s\n%s", b->file->path, b->setup->func);
	other = g_hash_table_lookup(pl->declared, key);
	if (other && other != cb) {
		unit_refuse(u, at, "timer_setup() here would name %s() before its declaration, and %s() already needs a prototype above %s()",
			    cb->name, other->name, b->setup->func);
		g_free(key);
		return false;
	}
	g_hash_table_replace(pl->declared, key, cb);
	b->declare = true;
	return true;
}

/*
 * DEFINE_TIMER(t, NULL, 0, 0) with .function set later: the define is
 * given the timer's one callback, which must be declared above it, and
 * the .function assignments go.
 */
static bool decide_null_define(struct planner *pl, struct binding *b,
			       struct unit *u, const char *at)
{
	struct callback *cb = b->init_cb;

	if (!declared_for(cb, b->file, b->setup->at.line)) {
		unit_refuse(u, at, "DEFINE_TIMER() here would name %s() before anything declares it",
			    cb->name);
		return false;
	}
	for (guint i = 0; i < pl->bindings->len; i++) {
		struct binding *o = pl->bindings->pdata[i];

		if (o->kind == B_FUNCTION && same_timer(&o->timer, &b->timer))
			o->drop_assign = true;
	}
	return true;
}

bool decide_lone_init(struct planner *pl, struct binding *b, struct unit *u)
{
	const char *what = b->kind == B_DEFINE ?
			   "DEFINE_TIMER() with a NULL callback" :
			   "init_timer()";
	struct callback *one = NULL;
	char *at = binding_where(b);
	bool ok = false;

	if (b->kind == B_SETUP) {	/* setup_timer(&t, NULL, ...) */
		ok = true;
		goto out;
	}
	if (b->kind == B_INIT) {
		unit_refuse(u, at, "init_timer() followed by a NULL .function");
		goto out;
	}
	for (guint i = 0; i < pl->bindings->len; i++) {
		struct binding *o = pl->bindings->pdata[i];

		if (!o->cb || o->kind == B_LONE_INIT ||
		    !same_timer(&o->timer, &b->timer) || o->cb == one)
			continue;
		if (one) {
			unit_refuse(u, at, "%s of a timer that runs several callbacks (%s(), %s())",
				    what, one->name, o->cb->name);
			goto out;
		}
		one = o->cb;
	}
	if (!one) {
		unit_refuse(u, at, "%s without a .function assignment on every path after it",
			    what);
		goto out;
	}
	if (form_missing(&pl->cv->target->forms, b)) {
		unit_refuse(u, at, "%s", form_missing(&pl->cv->target->forms,
						       b));
		goto out;
	}
	b->init_cb = one;
	if (b->kind == B_DEFINE)
		ok = decide_null_define(pl, b, u, at);
	else
		ok = declare_before_use(pl, b, u, at);
out:
	g_free(at);
	return ok;
}

bool decide_dsrc(struct planner *pl, struct dsrc *d, struct unit *u)
{
	char *at = where(d->file, d->line);
	bool runs = false;

	for (guint i = 0; i < pl->bindings->len && !runs; i++) {
		struct binding *b = pl->bindings->pdata[i];

		runs = (b->cb || b->kind == B_SETUP) &&
		       same_timer(&b->timer, &d->timer);
	}
	if (!runs)
		unit_refuse(u, at, "cannot tell which callback the timer whose .data is set at %s runs",
			    at);
	/* a container is the timer's own base, priv(dev) in both: it is
	 * evaluated with the timer still; a kept value is evaluated once,
	 * where it was */
	else if (d->value && d->rel.rel != REL_CONTAINER && !u->keep_member &&
		 expr_has_side_effects(d->value))
		unit_refuse(u, at, "the timer's data %s has side effects",
			    d->value);
	g_free(at);
	return !u->reason;
}

/*
 * A read of .data would see the timer's address, or no field at all.  A
 * read of .function sees what the old code had, unless an init_timer()
 * given the timer's one callback now sets it before the old code did.
 */
bool decide_read(struct dread *r, struct unit *u)
{
	bool early = false;
	char *at;

	for (guint i = 0; i < u->lone->len; i++)
		early |= ((struct binding *)u->lone->pdata[i])->kind ==
			 B_LONE_INIT;
	if (r->function && !early)
		return true;
	/* --keep-data: the read reads the member (plan.c) */
	if (!r->function && u->keep_member && r->object)
		return true;
	at = where(r->file, r->line);
	if (r->function)
		unit_refuse(u, at, "the timer's .function is read at %s, and timer_setup() in place of its init_timer() would set it before the old code did",
			    at);
	else
		unit_refuse(u, at, "the timer's .data is read at %s: after timer_setup() it no longer holds what the old code put there",
			    at);
	g_free(at);
	return false;
}

/*
 * A read of .data through a bare timer pointer (`timer->data` in a helper
 * taking `struct timer_list *timer`) in one of the unit's files, on no
 * timer of the unit's: it may read one of them, and would no longer see
 * what the old code put there.
 */
bool decide_pointer_reads(struct planner *pl, struct unit *u)
{
	for (guint k = 0; k < pl->reads->len; k++) {
		struct dread *r = pl->reads->pdata[k];
		bool ours = g_ptr_array_find(u->reads, r, NULL);
		char *at;

		if (r->function || !bare_pointer_in(&r->timer, r->file, u))
			continue;
		for (guint i = 0; i < u->callbacks->len && !ours; i++)
			ours = runs_on(u->callbacks->pdata[i], &r->timer);
		for (guint i = 0; i < u->lone->len && !ours; i++)
			ours = same_timer(&((struct binding *)
					    u->lone->pdata[i])->timer,
					  &r->timer);
		if (ours)
			continue;
		at = where(r->file, r->line);
		unit_refuse(u, at, "a timer's .data is read through a pointer at %s: which timer, cannot be told",
			    at);
		g_free(at);
		return false;
	}
	return true;
}

/* ---- direct calls ---- */

/*
 * A direct call of a callback whose data is a constant or kept beside its
 * timer: fine when it passes what the timer's data is at that moment,
 * the constant, or the value a .data line of the same function set just
 * before (blink_timer.data = FREQ; blink_timeout(FREQ);).  The callback
 * then gets its timer (it reads its data from there) or, needing none,
 * NULL.
 */
static char *call_arg_kept(struct planner *pl, struct callback *cb,
			   struct cref *r, struct unit *u, const char *w)
{
	char *bare = strip_casts(r->n->arg);
	char *arg = bare ? expr_compact(bare) : NULL;
	char *res = NULL;
	char *v;

	g_free(bare);
	if (!arg || expr_has_side_effects(arg))
		goto out;
	/* the constant itself */
	if (cb->value && !u->keep_global) {
		v = strip_casts(cb->value);
		bare = v ? expr_compact(v) : NULL;
		if (bare && !strcmp(bare, arg))
			res = g_strdup("NULL");
		g_free(v);
		g_free(bare);
		goto out;
	}
	/* the timer's own data: fn(st->timer.data) gets the timer */
	for (guint k = 0; !res && !u->keep_global && k < u->reads->len; k++) {
		struct dread *d = u->reads->pdata[k];
		char *obj;

		if (d->function || !d->object || d->file != r->file ||
		    g_strcmp0(d->func, r->n->func) || d->line != r->n->at.line)
			continue;
		obj = expr_compact(d->object);
		v = g_strdup_printf("%s.data", obj);
		bare = g_strdup_printf("%s->data", obj);
		if (!strcmp(v, arg) || !strcmp(bare, arg)) {
			res = g_strdup_printf("&%s", obj);
			d->in_call = true;
		}
		g_free(obj);
		g_free(v);
		g_free(bare);
	}
	/* what a .data line just above set */
	for (guint k = 0; !res && k < u->dsrcs->len; k++) {
		struct dsrc *d = u->dsrcs->pdata[k];

		if (!d->assign || d->file != r->file ||
		    g_strcmp0(d->func, r->n->func) ||
		    d->line >= r->n->at.line || d->line + 2 < r->n->at.line)
			continue;
		v = strip_casts(d->value);
		bare = v ? expr_compact(v) : NULL;
		if (bare && !strcmp(bare, arg)) {
			if (u->keep_global)
				res = g_strdup("NULL");
			else if (d->timer.chain_ok) {
				char *t = chain_text(&d->timer.chain, NULL);

				res = g_strdup_printf("&%s", t);
				g_free(t);
			}
		}
		g_free(v);
		g_free(bare);
	}
out:
	if (!res)
		unit_refuse(u, w, "a direct call of %s() passes %s, not what its timer's data is then",
			    cb->name, r->n->arg);
	g_free(arg);
	return res;
}

char *call_arg(struct planner *pl, struct callback *cb, struct cref *r,
	       struct unit *u)
{
	char *w = where(r->file, r->n->at.line);
	char *bare = strip_casts(r->n->arg);
	char *res = NULL;
	char *type = NULL;
	struct chain c;

	if (!cb->uses_data) {
		if (expr_has_side_effects(r->n->arg))
			unit_refuse(u, w, "a direct call of %s() has an argument with side effects",
				    cb->name);
		else
			res = g_strdup("NULL");
		goto out;
	}
	if (cb->value || cb->keep_member) {
		res = call_arg_kept(pl, cb, r, u, w);
		goto out;
	}
	if (!bare || !chain_parse(bare, &c)) {
		unit_refuse(u, w, "callback is called with a non-container argument");
		goto out;
	}
	type = pointee_type(pl->cv, r->file, r->n->func, bare);
	if (!type || strcmp(type, cb->container)) {
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
	chain_clear(&c);
out:
	g_free(bare);
	g_free(w);
	return res;
}
