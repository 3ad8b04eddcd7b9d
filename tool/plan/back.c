// SPDX-License-Identifier: GPL-2.0
/*
 * Data that is not the timer's container, but that the container leads
 * back to, as upstream's hand conversions found it:
 *
 *	priv = netdev_priv(dev);			the container of dev
 *	priv->ndev = dev;				a way back to dev
 *	setup_timer(&priv->timer, foo_timeout, (unsigned long)dev);
 *
 *	static void foo_timeout(struct timer_list *t)
 *	{
 *		struct foo_priv *priv = from_timer(priv, t, timer);
 *		struct net_device *dev = priv->ndev;
 *
 * The member must lead back to the data wherever the tree sets it: every
 * assignment to it, in the files that can see the struct, stores the
 * object that container belongs to (`priv->ndev = dev` where priv came
 * from dev, or beside a setup of the timer passing dev).  Where the
 * callback used its data only to reach the container again, by the
 * accessor its setups used (`struct foo_priv *priv = netdev_priv(dev)`),
 * that line takes from_timer() and the data's local goes; where it used
 * the data too, the data's local takes the member.  Data that is itself
 * the container's member (`setup_timer(&p->t, fn, (unsigned long)p->dev)`)
 * leads back by construction.
 */
#include <string.h>

#include "planner.h"
#include "treescan.h"
#include "util.h"

struct back {
	struct planner *pl;
	struct callback *cb;
	struct unit *u;
	const char *at;
	const char *tag;	/* the container: "struct foo_priv" */
	const char *field;	/* the timer in it */
	char *dtag;		/* what the data points to */
	const char *member;	/* the way back, NULL: none proven */
	const char *data_var;	/* setups pass a variable... */
	bool member_data;	/* ... or the container's member */
};

/* The field of a key "struct foo#timer" or "struct foo@f.c#hw.timer". */
static const char *field_of(const char *key)
{
	const char *hash = key ? strrchr(key, '#') : NULL;

	if (!key || key[0] == '?' || named_key(key))
		return NULL;
	return hash ? hash + 1 : NULL;
}

/* Every timer of the callback: one field of one struct. */
static bool one_container(struct back *b)
{
	for (guint i = 0; i < b->cb->bindings->len; i++) {
		struct binding *bi = b->cb->bindings->pdata[i];
		const char *f = field_of(bi->timer.key);

		if (!f || !bi->timer.container || !bi->timer.chain_ok ||
		    !g_str_has_prefix(bi->timer.container, "struct "))
			return false;
		if (b->tag && (strcmp(b->tag, bi->timer.container) ||
			       strcmp(b->field, f)))
			return false;
		b->tag = bi->timer.container;
		b->field = f;
	}
	return b->tag != NULL;
}

/* A member of the container pointing to what the data points to. */
static bool leads_back(struct back *b, const char *member, const char *file)
{
	const struct member *m = structs_member(conv_structs(b->pl->cv),
						b->tag, member, file);

	return m && m->type.ptr == 1 && !strcmp(m->type.tag, b->dtag);
}

/*
 * What every setup and .data line of the timers passes: all the same
 * variable (each setup's own), or all the container's same member
 * (p->ndev beside &p->timer).
 */
static bool sources(struct back *b)
{
	guint n = 0;

	for (guint k = 0; k < b->pl->dsrcs->len; k++) {
		struct dsrc *d = b->pl->dsrcs->pdata[k];
		char *bare;
		struct chain c;

		if (!runs_on(b->cb, &d->timer) || (passthrough(b->cb, d) &&
			      on_own_timer(b->cb, d)))
			continue;
		if (!d->value || !d->timer.chain_ok)
			return false;
		n++;
		bare = strip_casts(d->value);
		if (bare && is_ident(bare)) {
			if (b->member_data)
				goto no;
			b->data_var = "var";
		} else if (bare && chain_parse(bare, &c)) {
			const struct seg *s = c.segs->len == 1 ?
					      c.segs->pdata[0] : NULL;
			bool ok = !c.addr && s && !s->index &&
				  !strcmp(c.base, d->timer.chain.base) &&
				  (!b->member || !strcmp(b->member, s->name)) &&
				  !b->data_var;

			if (ok) {
				b->member_data = true;
				b->member = g_intern_string(s->name);
			}
			chain_clear(&c);
			if (!ok)
				goto no;
		} else {
			goto no;
		}
		g_free(bare);
		continue;
no:
		g_free(bare);
		return false;
	}
	return n > 0;
}

/* `name` with the identifier `from` in it replaced by `to`, spaced as
 * spatch prints it. */
static char *with_ident(const char *text, const char *from, const char *to)
{
	size_t n;
	struct token *t = lex_all(text, strlen(text), &n);
	GString *s = g_string_new(NULL);

	for (size_t i = 0; i + 1 < n; i++) {
		bool member = i > 0 && (tok_punct(&t[i - 1], '.') ||
					TOK_IS(&t[i - 1], "->"));

		if (s->len)
			g_string_append_c(s, ' ');
		if (t[i].kind == TOK_IDENT && !member &&
		    tok_is(&t[i], from, strlen(from)))
			g_string_append(s, to);
		else
			g_string_append_len(s, t[i].p, t[i].len);
	}
	g_free(t);
	return g_string_free(s, FALSE);
}

/* An assignment X->member = Y (or X.member) found by the lexer. */
struct massign {
	char *file;
	struct fpos at;		/* of X */
	char *object;		/* X */
	char *member;
	char *value;		/* Y, as written */
};

static void massign_free(struct massign *m)
{
	g_free(m->file);
	g_free(m->object);
	g_free(m->member);
	g_free(m->value);
	g_free(m);
}

/* X->member = Y and X.member = Y in a file, as the lexer sees them
 * (member NULL: any member). */
static void find_assigns(const char *path, const char *text, size_t len,
			 const char *member, GPtrArray *out)
{
	size_t n, mlen = member ? strlen(member) : 0;
	struct token *t;

	if (member && !memmem(text, len, member, mlen))
		return;
	t = lex_all(text, len, &n);
	for (size_t i = 1; i + 3 < n; i++) {
		struct massign *m;
		size_t e;

		if (!(tok_punct(&t[i], '.') || TOK_IS(&t[i], "->")) ||
		    t[i + 1].kind != TOK_IDENT ||
		    (member && !tok_is(&t[i + 1], member, mlen)) ||
		    !tok_punct(&t[i + 2], '=') || t[i - 1].kind != TOK_IDENT)
			continue;
		for (e = i + 3; e < n && !tok_punct(&t[e], ';'); e++)
			;
		if (e >= n || e == i + 3)
			continue;
		m = g_new0(struct massign, 1);
		m->file = g_strdup(path);
		m->at = (struct fpos){ t[i - 1].line, t[i - 1].col };
		/* X->m = ..., X a plain name; anything else stays unmatched,
		 * and refuses */
		if (!(i >= 2 && (tok_punct(&t[i - 2], '.') ||
				 TOK_IS(&t[i - 2], "->"))))
			m->object = g_strndup(t[i - 1].p, t[i - 1].len);
		m->member = g_strndup(t[i + 1].p, t[i + 1].len);
		m->value = g_strndup(t[i + 3].p, t[e - 1].p + t[e - 1].len -
					       t[i + 3].p);
		g_ptr_array_add(out, m);
	}
	g_free(t);
}

/* Where the facts saw a data source: its setup, or its .data line. */
static struct fpos dsrc_at(const struct dsrc *d)
{
	return d->setup ? d->setup->at : d->assign->at;
}

/*
 * The files that can set the member: the struct's own .c file, or every
 * file of the tree below the directory of the header defining it.
 */
static GPtrArray *assigns_of(struct back *b, const char *def)
{
	struct conversion *cv = b->pl->cv;
	GPtrArray *out = g_ptr_array_new_with_free_func(
		(GDestroyNotify)massign_free);
	char *dir = g_path_get_dirname(def);

	for (guint i = 0; cv->all_files && i < cv->all_files->len; i++) {
		const char *p = cv->all_files->pdata[i];
		struct cfile *f;
		char *text;
		size_t len;

		if (g_str_has_suffix(def, ".c") ? strcmp(p, def) :
		    !(g_str_has_prefix(p, dir) && p[strlen(dir)] == '/'))
			continue;
		f = conv_file(cv, p);
		if (f) {
			find_assigns(p, f->text, f->len, b->member, out);
			continue;
		}
		text = tree_read(cv->tree, p, &len, NULL);
		if (text)
			find_assigns(p, text, len, b->member, out);
		g_free(text);
	}
	g_free(dir);
	return out;
}

/*
 * Does X->member = Y store the object X belongs to?  Where X came from Y
 * in that function (priv = netdev_priv(dev)), or a setup of the timer
 * there passes Y as the data of X's timer.
 */
static bool stores_own(struct back *b, struct massign *m)
{
	struct cfile *f = conv_file(b->pl->cv, m->file);
	char *from;
	bool own = false;

	if (!f || !m->object || !is_ident(m->value))
		return false;
	from = local_value(f, m->at, m->object);
	if (from) {
		char *y = g_strdup_printf(" %s ", m->value);
		char *spaced = g_strdup_printf(" %s ", from);

		own = strstr(spaced, y) != NULL;
		g_free(y);
		g_free(spaced);
		g_free(from);
	}
	for (guint k = 0; !own && k < b->u->dsrcs->len; k++) {
		struct dsrc *d = b->u->dsrcs->pdata[k];
		char *bare = strip_casts(d->value);

		own = d->file == f && d->timer.chain_ok && bare &&
		      !strcmp(d->timer.chain.base, m->object) &&
		      !strcmp(bare, m->value) &&
		      same_function(f, m->at, dsrc_at(d));
		g_free(bare);
	}
	return own;
}

/*
 * The member each setup sets beside itself to the data it passes: the
 * same for all, and leading back to what the data points to.
 */
static bool setup_member(struct back *b)
{
	for (guint k = 0; k < b->u->dsrcs->len; k++) {
		struct dsrc *d = b->u->dsrcs->pdata[k];
		char *bare = strip_casts(d->value);
		GPtrArray *as = g_ptr_array_new_with_free_func(
			(GDestroyNotify)massign_free);
		const char *found = NULL;

		if (passthrough(b->cb, d) && on_own_timer(b->cb, d)) {
			g_free(bare);
			g_ptr_array_free(as, TRUE);
			continue;
		}
		for (guint i = 0; bare && d->timer.chain_ok; i++) {
			struct massign *m;

			if (i == 0)
				find_assigns(d->file->path, d->file->text,
					     d->file->len, NULL, as);
			if (i >= as->len)
				break;
			m = as->pdata[i];
			if (m->object &&
			    !strcmp(m->object, d->timer.chain.base) &&
			    !strcmp(m->value, bare) &&
			    same_function(d->file, m->at, dsrc_at(d)) &&
			    leads_back(b, m->member, d->file->path))
				found = g_intern_string(m->member);
		}
		g_free(bare);
		g_ptr_array_free(as, TRUE);
		if (!found || (b->member && strcmp(b->member, found)))
			return false;
		b->member = found;
	}
	return b->member != NULL;
}

/* Every assignment to the member stores what its container belongs to. */
static bool member_proven(struct back *b)
{
	const char *def = structs_def_file(conv_structs(b->pl->cv), b->tag,
					   b->cb->def_file->path);
	GPtrArray *as;
	bool ok;

	if (!def || g_path_is_absolute(def) ||
	    g_str_has_prefix(def, "include/"))
		return false;
	as = assigns_of(b, def);
	ok = as->len > 0;
	for (guint i = 0; ok && i < as->len; i++)
		ok = stores_own(b, as->pdata[i]);
	g_ptr_array_free(as, TRUE);
	return ok;
}

/* The setup's container was reached from its data by the accessor the
 * callback uses (cinit, with the callback's data local v). */
static bool same_accessor(struct back *b, const char *v, const char *cinit)
{
	for (guint k = 0; k < b->u->dsrcs->len; k++) {
		struct dsrc *d = b->u->dsrcs->pdata[k];
		char *bare = strip_casts(d->value);
		char *want = bare ? with_ident(cinit, v, bare) : NULL;
		char *have = d->timer.chain_ok ?
			     local_value(d->file, dsrc_at(d),
					 d->timer.chain.base) : NULL;
		char *h = have ? with_ident(have, "", "") : NULL;
		bool same = want && h && !strcmp(want, h);

		g_free(bare);
		g_free(want);
		g_free(have);
		g_free(h);
		if (passthrough(b->cb, d) && on_own_timer(b->cb, d))
			continue;
		if (!same)
			return false;
	}
	return true;
}

bool decide_back(struct planner *pl, struct callback *cb, struct unit *u,
		 const char *at)
{
	static const char *const params[] = { "t", "timer", "tl", NULL };
	struct back b = { pl, cb, u, at };
	struct ctype ct = { 0 };
	struct f_cast *cast;
	guint casts;
	bool two, ok = false;
	char *cname = NULL, *cinit = NULL;
	const char *param = NULL;

	cast = the_cast(cb, &casts, &two);
	if (cb->pkind != P_ULONG || !cast || casts != 1 || two ||
	    cast->assign || !one_container(&b))
		return false;
	cbody_clear(&cb->body);
	if (!cbody_analyse(cb->def_file, cb->def->at, cb->def->param,
			   cast->local, cast->local_at, &cb->body) ||
	    counted_uses(pl, cb) != 1 ||
	    !fpos_eq(g_array_index(cb->body.param_uses, struct fpos, 0),
		     cast->data_at))
		return false;
	/* what the data points to, defined in the tree or not */
	if (!ctype_parse(NULL, cast->type, &ct) || ct.ptr != 1 || !ct.tag ||
	    !g_str_has_prefix(ct.tag, "struct "))
		goto out;
	b.dtag = g_strdup(ct.tag);
	if (!sources(&b))
		goto out;
	if (!local_of_type(cb->def_file, cb->def->at,
			   b.tag + strlen("struct "), cast->local, &cname,
			   &cinit))
		goto out;
	/* the callback's own container local: it must be the one the
	 * setups' accessor gives */
	if (cname && (b.member_data ||
		      !same_accessor(&b, cast->local, cinit)))
		goto out;
	if (cname && cb->body.local_uses == 1) {
		b.member = NULL;	/* the data only led back to it */
	} else if (!(b.member_data ? leads_back(&b, b.member,
					       cb->def_file->path) :
		     setup_member(&b)) || !member_proven(&b)) {
		goto out;
	}
	for (int i = 0; params[i] && !param; i++)
		if (!g_hash_table_contains(cb->body.idents, params[i]))
			param = params[i];
	if (!param)
		goto out;
	cb->param = g_strdup(param);
	cb->local = g_strdup(cast->local);
	cb->container = g_strdup(b.tag);
	cb->field = g_strdup(b.field);
	cb->back_member = g_strdup(b.member);
	cb->back_acc = cname != NULL;
	cb->back_local = cname ? g_strdup(cname) :
			 g_strdup(((struct binding *)cb->bindings->pdata[0])->
				  timer.chain.base);
	cb->cast = cast;
	cb->uses_data = true;
	/* a container local of its own, unless the name is taken */
	ok = cname || !g_hash_table_contains(cb->body.idents, cb->back_local);
out:
	ctype_clear(&ct);
	g_free(b.dtag);
	g_free(cname);
	g_free(cinit);
	return ok;
}
