// SPDX-License-Identifier: GPL-2.0
/*
 * --keep-data: where a callback needs what .data held and nothing proves
 * a way back to it from the timer's container, the data moves into the
 * container.  A member beside the timer holds it, set where and when the
 * old code set .data (a setup, a .data line), read where the old code
 * read .data, and the callback starts from the timer:
 *
 *	static void cisco_timer(struct timer_list *t)
 *	{
 *		struct cisco_state *cs = from_timer(cs, t, timer);
 *		unsigned long arg = cs->timer_data;
 *
 * and goes on as before.  Everything that writes or reads the timer's
 * data must be in sight: a .data write through a bare struct timer_list
 * pointer in the unit's files, or a timer that is not a member of a
 * struct the tree defines, refuses the unit.
 */
#include <string.h>

#include "planner.h"
#include "treescan.h"
#include "util.h"

static bool refuse(struct unit *u, const char *at, const char *why,
		   const char *arg)
{
	char *msg = g_strdup_printf(why, arg);

	unit_refuse(u, at, "--keep-data: %s", msg);
	g_free(msg);
	return false;
}

/* The field of a timer key "struct foo#timer" or "struct foo@f.c#timer",
 * when it is a plain member name. */
static const char *key_field(const char *key)
{
	const char *hash = key ? strrchr(key, '#') : NULL;

	if (!key || key[0] == '?' || named_key(key) ||
	    !hash || !is_ident(hash + 1))
		return NULL;
	return hash + 1;
}

/* A timer the member can sit beside: a member chain ending at the field,
 * no index on it. */
static bool member_timer(const struct tref *r, const char *field)
{
	const struct seg *last;

	if (!r->chain_ok || !r->chain.segs->len)
		return false;
	last = r->chain.segs->pdata[r->chain.segs->len - 1];
	return !strcmp(last->name, field) && !last->index;
}

char *keep_lvalue(const struct unit *u, const char *timer)
{
	struct chain c;
	char *res = NULL;

	if (u->keep_global)
		return g_strdup(u->keep_member);
	if (!chain_parse(timer, &c))
		return NULL;
	if (c.segs->len)
		res = chain_text(&c, u->keep_member);
	chain_clear(&c);
	return res;
}

/* The struct's definition, read into the run when it is not yet part of
 * it (the member goes there). */
static struct cfile *def_file(struct conversion *cv, const char *path)
{
	struct cfile *f = conv_file(cv, path);
	char *text;
	size_t len;

	if (f || !cv->may_add_files || g_path_is_absolute(path))
		return f;
	text = tree_read(cv->tree, path, &len, NULL);
	if (!text)
		return NULL;
	f = cfile_new(path, text, len);
	f->scan = scan_file(text, len, &(struct scan_opts){
				    cv->target->renames });
	scan_resolve(f->scan, NULL);
	f->in_scope = !cv->scope || g_hash_table_contains(cv->scope, path);
	g_ptr_array_add(cv->files, f);
	g_hash_table_insert(cv->by_path, f->path, f);
	return f;
}

/* Every binding of cb is on a timer that is one member of one struct. */
static bool one_member(struct unit *u, struct callback *cb, const char *at,
		       const char **tag, const char **field)
{
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		const char *f = key_field(b->timer.key);

		if (!f || !b->timer.container ||
		    !g_str_has_prefix(b->timer.container, "struct ") ||
		    !member_timer(&b->timer, f))
			return refuse(u, at, "a timer of %s() is not a plain member of a struct",
				      cb->name);
		if (*tag && (strcmp(*tag, b->timer.container) ||
			     strcmp(*field, f)))
			return refuse(u, at, "%s() runs on timers in different members",
				      cb->name);
		*tag = b->timer.container;
		*field = f;
	}
	if (!*tag)
		return refuse(u, at, "nothing sets up a timer of %s()",
			      cb->name);
	return true;
}

/* What writes the data of those timers: in sight and reachable. */
static bool sources_in_sight(struct planner *pl, struct unit *u,
			     struct callback *cb, const char *field,
			     const char *at)
{
	for (guint k = 0; k < pl->dsrcs->len; k++) {
		struct dsrc *d = pl->dsrcs->pdata[k];
		const char *why = NULL;
		bool ours = runs_on(cb, &d->timer);
		char *w;

		if (ours && !member_timer(&d->timer, field))
			why = "the timer's data is set at %s through something other than its struct";
		/* t->data = x, t any timer: it may be this one */
		else if (!ours && bare_pointer_in(&d->timer, d->file, u))
			why = "a timer's .data is set through a pointer at %s: which timer, cannot be told";
		if (!why)
			continue;
		w = where(d->file, d->line);
		refuse(u, at, why, w);
		g_free(w);
		return false;
	}
	return true;
}

/* The name of a file-scope timer all of cb's bindings are on, or NULL. */
static const char *one_global(struct callback *cb)
{
	const char *key = NULL, *name;

	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];

		if (!b->timer.key || (key && strcmp(key, b->timer.key)))
			return NULL;
		key = b->timer.key;
	}
	if (!key || !g_str_has_prefix(key, "global:") ||
	    ((struct binding *)cb->bindings->pdata[0])->file != cb->def_file)
		return NULL;
	name = strrchr(key, ':') + 1;
	return is_ident(name) ? name : NULL;
}

/*
 * A file-scope timer, declared above the callback in the callback's file
 * (alone, or among other timers: `static struct timer_list a, name;`),
 * every write and read of its data there too: a static after its
 * declaration holds the data, initialised with what the timer's
 * initialiser gave.
 */
static bool decide_keep_global(struct planner *pl, struct callback *cb,
			       struct unit *u, const char *at,
			       const char *name)
{
	struct cfile *f = cb->def_file;
	bool alone = false;
	unsigned int line = timer_declared_at(f, name, &alone);
	const char *init = "0";
	char *member;

	if (!line || line >= cb->def->at.line)
		return refuse(u, at, "%s is not a timer declared at file scope above its callback",
			      name);
	for (guint k = 0; k < pl->dsrcs->len; k++) {
		struct dsrc *d = pl->dsrcs->pdata[k];

		if (!same_timer(&((struct binding *)
				  cb->bindings->pdata[0])->timer, &d->timer))
			continue;
		if (d->file != f)
			return refuse(u, at, "the data of %s is set in another file",
				      name);
		if (d->setup && d->setup->kind == FS_DEFINE && d->value)
			init = d->value;
	}
	for (guint k = 0; k < u->reads->len; k++)
		if (((struct dread *)u->reads->pdata[k])->file != f)
			return refuse(u, at, "the data of %s is read in another file",
				      name);
	member = g_strdup_printf("%s_data", name);
	if (declared_at_file_scope(f, member, G_MAXUINT)) {
		g_free(member);
		return refuse(u, at, "%s is a name already", name);
	}
	if (!cb->body.idents &&
	    !cbody_analyse(f, cb->def->at, cb->def->param, NULL,
			   (struct fpos){ 0, 0 }, &cb->body)) {
		g_free(member);
		return refuse(u, at, "cannot find the body of %s()", cb->name);
	}
	cb->value = g_strdup(member);
	cb->uses_data = true;
	if (!u->keep_member) {
		u->keep_member = g_strdup(member);
		u->keep_global = g_strdup(name);
		u->keep_init = expr_compact(init);
		u->keep_file = f;
		u->keep_among = alone ? 0 : line;
		u->kept = g_strdup_printf("static %s", member);
	}
	g_free(member);
	return true;
}

bool decide_keep(struct planner *pl, struct callback *cb, struct unit *u,
		 const char *at)
{
	static const char *const params[] = { "t", "timer", "tl", NULL };
	struct conversion *cv = pl->cv;
	const char *tag = NULL, *field = NULL;
	const char *param = NULL;
	const char *path;
	struct cfile *def;
	char *member;

	if (cb->pkind != P_ULONG)
		return refuse(u, at, "%s() does not take unsigned long",
			      cb->name);
	if (one_global(cb))
		return decide_keep_global(pl, cb, u, at, one_global(cb));
	if (!one_member(u, cb, at, &tag, &field))
		return false;
	if (u->keep_tag && (strcmp(u->keep_tag, tag + strlen("struct ")) ||
			    strcmp(u->keep_field, field)))
		return refuse(u, at, "the unit's timers are in different members (%s)",
			      field);
	if (!sources_in_sight(pl, u, cb, field, at))
		return false;
	path = structs_def_file(conv_structs(cv), tag, cb->def_file->path);
	def = path ? def_file(cv, path) : NULL;
	if (!def)
		return refuse(u, at, "%s is not defined in the tree (once)",
			      tag);
	member = g_strdup_printf("%s_data", field);
	if (structs_member(conv_structs(cv), tag, member, path)) {
		refuse(u, at, "%s already has a member named like the new one",
		       tag);
		g_free(member);
		return false;
	}
	cbody_clear(&cb->body);
	if (!cbody_analyse(cb->def_file, cb->def->at, cb->def->param, NULL,
			   (struct fpos){ 0, 0 }, &cb->body)) {
		g_free(member);
		return refuse(u, at, "cannot find the body of %s()",
			      cb->name);
	}
	for (int i = 0; params[i] && !param; i++)
		if (!g_hash_table_contains(cb->body.idents, params[i]) &&
		    strcmp(params[i], cb->def->param))
			param = params[i];
	if (!param) {
		g_free(member);
		return refuse(u, at, "name conflict: %s() uses t, timer and tl",
			      cb->name);
	}
	g_hash_table_add(cb->body.idents, g_strdup(cb->def->param));
	g_hash_table_add(cb->body.idents, g_strdup(param));
	cb->param = g_strdup(param);
	cb->local = local_name(tag, cb->body.idents);
	cb->keep_ctype = g_strdup(tag);
	cb->container = g_strdup(tag);
	cb->field = g_strdup(field);
	cb->keep_member = g_strdup(member);
	cb->uses_data = true;
	if (!u->keep_tag) {
		u->keep_tag = g_strdup(tag + strlen("struct "));
		u->keep_field = g_strdup(field);
		u->keep_member = g_strdup(member);
		u->keep_file = def;
		u->kept = g_strdup_printf("%s.%s", tag, member);
		g_hash_table_add(u->files, def);
	}
	g_free(member);
	return true;
}
