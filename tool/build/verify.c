// SPDX-License-Identifier: GPL-2.0
/*
 * Build verification of a conversion.  The objects are the .c files of
 * the units still converted; each is compiled once before the first
 * rewrite round and again whenever the state it is built in changes (its
 * own text, or a header a unit changes).  A failure is blamed on the
 * units that change the file it names, the one nearest to the line when
 * there are several; the rewrite loop then redoes their files without
 * them and the next round builds again, until everything left builds.
 */
#include <stdio.h>
#include <string.h>

#include "compat.h"
#include "diff.h"
#include "kbuild.h"
#include "overlay.h"
#include "util.h"
#include "verify.h"

enum vstate {
	VS_NEW,
	VS_NOT_IN_CONFIG,	/* this config does not build it */
	VS_BROKEN_BEFORE,	/* did not build before the conversion */
	VS_BUILT_BEFORE,
};

struct vobj {
	struct cfile *file;
	char *obj;
	enum vstate state;
	char *before_error;
	char *why;		/* not built by this config: where kbuild
				 * stops; or why kbuild could not say */
	char *key;		/* the state it was last built in */
	bool after_ok;		/* ... and how that went */
	char *after_error;
	GHashTable *seen;	/* state key -> error ("" if it built) */
	GHashTable *deps;	/* files its last compile read, or NULL */
};

struct verify {
	struct kbuild *kb;
	GHashTable *objs;	/* struct cfile * -> struct vobj * */
	GHashTable *refused;	/* struct unit * -> "failed: ..." */
	GPtrArray *watch;	/* objects that failed once: built from then
				 * on, whether or not a unit changes them */
	GPtrArray *unknown;	/* "dir: why" for the directories kbuild
				 * could not say about */
	struct cfile *compat;	/* --compat-header, as the run will write
				 * it (after the rewrite rounds) */
	bool before_done;
};

static void vobj_free(struct vobj *o)
{
	g_free(o->obj);
	g_free(o->before_error);
	g_free(o->why);
	g_free(o->key);
	g_free(o->after_error);
	if (o->seen)
		g_hash_table_destroy(o->seen);
	if (o->deps)
		g_hash_table_destroy(o->deps);
	g_free(o);
}

struct verify *verify_new(const struct tree *tree, const struct verify_opts *o,
			  int jobs, GError **error)
{
	struct kbuild_opts ko = {
		.src = o->src ? o->src : tree->root,
		.key = o->src ? o->src : tree->root,
		.config = o->config, .build_dir = o->build_dir,
		.kernel_headers = o->kernel_headers, .base = o->base,
		.make_args = o->make_args, .jobs = jobs,
	};
	struct verify *v = g_new0(struct verify, 1);

	v->kb = kbuild_open(&ko, error);
	if (!v->kb) {
		g_free(v);
		return NULL;
	}
	v->objs = g_hash_table_new_full(NULL, NULL, NULL,
					(GDestroyNotify)vobj_free);
	v->refused = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	v->watch = g_ptr_array_new();
	v->unknown = g_ptr_array_new_with_free_func(g_free);
	return v;
}

void verify_free(struct verify *v)
{
	if (!v)
		return;
	kbuild_close(v->kb);
	g_hash_table_destroy(v->objs);
	g_hash_table_destroy(v->refused);
	g_ptr_array_free(v->watch, TRUE);
	g_ptr_array_free(v->unknown, TRUE);
	if (v->compat)
		cfile_free(v->compat);
	g_free(v);
}

static bool is_c_file(const struct cfile *f)
{
	return g_str_has_suffix(f->path, ".c");
}

/* The .c files of a unit that have an object. */
static GPtrArray *unit_objs(struct verify *v, struct unit *u)
{
	GPtrArray *out = g_ptr_array_new();
	GHashTableIter it;
	gpointer f;

	g_hash_table_iter_init(&it, u->files);
	while (g_hash_table_iter_next(&it, &f, NULL)) {
		struct vobj *o = g_hash_table_lookup(v->objs, f);

		if (o)
			g_ptr_array_add(out, o);
	}
	return out;
}

static char *state_key(struct vobj *o, GPtrArray *state);

bool verify_before(struct conversion *cv, GError **error)
{
	struct verify *v = cv->verify;
	GPtrArray *all = g_ptr_array_new();
	GPtrArray *names = g_ptr_array_new();
	GPtrArray *build = g_ptr_array_new();
	GPtrArray *bnames = g_ptr_array_new();
	GPtrArray *empty = g_ptr_array_new();
	struct kbuild_result *res = NULL;
	struct kbuild_answer *ans;
	bool ok = false;

	if (v->before_done)
		return true;
	v->before_done = true;
	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];
		GHashTableIter it;
		gpointer f;

		if (u->reason)
			continue;
		g_hash_table_iter_init(&it, u->files);
		while (g_hash_table_iter_next(&it, &f, NULL)) {
			struct vobj *o;

			if (!is_c_file(f) || g_hash_table_contains(v->objs, f))
				continue;
			o = g_new0(struct vobj, 1);
			o->file = f;
			o->obj = kbuild_object(o->file->path);
			g_hash_table_insert(v->objs, f, o);
			g_ptr_array_add(all, o);
			g_ptr_array_add(names, o->obj);
		}
	}
	if (!all->len) {
		ok = true;
		goto out;
	}
	if (!kbuild_prepare(v->kb, error))
		goto out;
	ans = g_new0(struct kbuild_answer, all->len);
	if (!kbuild_query(v->kb, names, ans, error)) {
		g_free(ans);
		goto out;
	}
	for (guint i = 0; i < all->len; i++) {
		struct vobj *o = all->pdata[i];

		o->why = g_steal_pointer(&ans[i].why);
		if (ans[i].in == KB_NOT_BUILT) {
			o->state = VS_NOT_IN_CONFIG;
			continue;
		}
		/* kbuild could not say: built, as a compile tells
		 * something, and the directory named */
		if (ans[i].in == KB_UNKNOWN && o->why &&
		    !g_ptr_array_find_with_equal_func(v->unknown, o->why,
						      g_str_equal, NULL))
			g_ptr_array_add(v->unknown, g_strdup(o->why));
		g_ptr_array_add(build, o);
		g_ptr_array_add(bnames, o->obj);
	}
	g_free(ans);
	res = g_new0(struct kbuild_result, build->len);
	if (!kbuild_compile(v->kb, bnames, NULL, res, error))
		goto out;
	for (guint i = 0; i < build->len; i++) {
		struct vobj *o = build->pdata[i];

		o->state = res[i].built ? VS_BUILT_BEFORE : VS_BROKEN_BEFORE;
		o->before_error = g_steal_pointer(&res[i].error);
		o->deps = g_steal_pointer(&res[i].deps);
		if (!res[i].built)
			continue;
		/* the tree as it is is a state too (series --verify builds
		 * the files of left-out patches as they are) */
		o->key = state_key(o, empty);
		o->after_ok = true;
		o->seen = g_hash_table_new_full(g_str_hash, g_str_equal,
						g_free, g_free);
		g_hash_table_insert(o->seen, g_strdup(o->key), g_strdup(""));
	}
	ok = true;
out:
	if (res)
		for (guint i = 0; i < build->len; i++)
			kbuild_result_clear(&res[i]);
	g_free(res);
	g_ptr_array_free(empty, TRUE);
	g_ptr_array_free(all, TRUE);
	g_ptr_array_free(names, TRUE);
	g_ptr_array_free(build, TRUE);
	g_ptr_array_free(bnames, TRUE);
	return ok;
}

/* ---- build states ---- */

/* The files of a state as the overlay takes them. */
static GPtrArray *state_files(GPtrArray *state)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < state->len; i++) {
		struct cfile *f = state->pdata[i];
		struct overlay_file *of = g_new0(struct overlay_file, 1);

		of->path = f->path;
		of->text = f->new_text;
		of->len = f->new_len;
		g_ptr_array_add(out, of);
	}
	return out;
}

/* What an object is built from, in state: its text and the headers the
 * state changes that its last compile read (all of them, if unknown). */
static char *state_key(struct vobj *o, GPtrArray *state)
{
	GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
	GPtrArray *sorted = g_ptr_array_copy(state, NULL, NULL);
	bool own = false;
	char *res;

	g_ptr_array_sort(sorted, cfile_cmp_path);
	for (guint i = 0; i < sorted->len; i++) {
		struct cfile *f = sorted->pdata[i];

		if (f == o->file)
			own = true;
		else if (is_c_file(f) ||
			 (o->deps && !g_hash_table_contains(o->deps, f->path)))
			continue;
		g_checksum_update(c, (const guchar *)f->path, -1);
		g_checksum_update(c, (const guchar *)"", 1);
		g_checksum_update(c, (const guchar *)f->new_text, f->new_len);
		g_checksum_update(c, (const guchar *)"\n--\n", 4);
	}
	if (!own)
		g_checksum_update(c, (const guchar *)o->file->text,
				  o->file->len);
	res = g_strdup(g_checksum_get_string(c));
	g_checksum_free(c);
	g_ptr_array_free(sorted, TRUE);
	return res;
}

/* Build the objects whose state changed since they were last built. */
static bool build_after(struct verify *v, GPtrArray *objs, GPtrArray *state,
			GError **error)
{
	GPtrArray *todo = g_ptr_array_new();
	GPtrArray *names = g_ptr_array_new();
	GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *files = NULL;
	struct kbuild_result *res;
	bool ok;

	for (guint i = 0; i < objs->len; i++) {
		struct vobj *o = objs->pdata[i];
		char *key;

		if (o->state != VS_BUILT_BEFORE ||
		    g_ptr_array_find(todo, o, NULL))
			continue;
		key = state_key(o, state);
		if (g_hash_table_contains(o->seen, key)) {
			/* built in this state before */
			const char *e = g_hash_table_lookup(o->seen, key);

			g_free(o->key);
			o->key = key;
			o->after_ok = !*e;
			g_free(o->after_error);
			o->after_error = *e ? g_strdup(e) : NULL;
			continue;
		}
		g_ptr_array_add(todo, o);
		g_ptr_array_add(names, o->obj);
		g_ptr_array_add(keys, key);
	}
	res = g_new0(struct kbuild_result, todo->len);
	if (todo->len)
		files = state_files(state);
	ok = kbuild_compile(v->kb, names, files, res, error);
	for (guint i = 0; ok && i < todo->len; i++) {
		struct vobj *o = todo->pdata[i];

		g_free(o->key);
		o->key = g_strdup(keys->pdata[i]);
		o->after_ok = res[i].built;
		g_free(o->after_error);
		o->after_error = g_steal_pointer(&res[i].error);
		if (!o->after_ok && !o->after_error)
			o->after_error = g_strdup("no object");
		g_hash_table_replace(o->seen, g_strdup(o->key),
				     g_strdup(o->after_ok ? "" :
					      o->after_error));
		if (res[i].deps) {
			if (o->deps)
				g_hash_table_destroy(o->deps);
			o->deps = g_steal_pointer(&res[i].deps);
		}
	}
	for (guint i = 0; i < todo->len; i++)
		kbuild_result_clear(&res[i]);
	g_free(res);
	if (files)
		g_ptr_array_free(files, TRUE);
	g_ptr_array_free(todo, TRUE);
	g_ptr_array_free(names, TRUE);
	g_ptr_array_free(keys, TRUE);
	return ok;
}

/* ---- blame ---- */

/* "drivers/x/y.c:12:5: error: ..." -> path and line */
static char *error_at(const char *err, unsigned int *line)
{
	const char *c = strchr(err, ':');
	char *end;
	unsigned long n;

	if (!c || c == err)
		return NULL;
	n = strtoul(c + 1, &end, 10);
	if (end == c + 1 || *end != ':')
		return NULL;
	*line = (unsigned int)n;
	return g_strndup(err, c - err);
}

/* The line of f's original text where its converted line `line` is (or
 * would be). */
static unsigned int old_line(struct cfile *f, unsigned int line)
{
	struct lines a, b;
	GArray *ops;
	unsigned int res = line;
	size_t apos = 0;

	lines_split(&a, f->text, f->len);
	lines_split(&b, f->new_text, f->new_len);
	ops = diff_lines(&a, &b);
	for (guint i = 0; i < ops->len; i++) {
		const struct dop *d = &g_array_index(ops, struct dop, i);

		if (d->kind != DOP_INSERT)
			apos = d->a;
		if (d->kind != DOP_DELETE && d->b + 1 == line) {
			res = (unsigned int)(d->kind == DOP_EQUAL ? d->a :
					     apos) + 1;
			break;
		}
	}
	g_array_unref(ops);
	lines_clear(&a);
	lines_clear(&b);
	return res;
}

/* Of the units in cands, those with a change in f nearest to line. */
static GPtrArray *nearest(GPtrArray *cands, struct cfile *f,
			  unsigned int line)
{
	GPtrArray *out = g_ptr_array_new();
	unsigned int best = G_MAXUINT;

	for (guint i = 0; i < cands->len; i++) {
		struct unit *u = cands->pdata[i];
		unsigned int d = G_MAXUINT;

		for (guint k = 0; k < u->items->len; k++) {
			struct plan_item *it = u->items->pdata[k];
			unsigned int dist;

			if (it->file != f)
				continue;
			dist = it->at.line > line ? it->at.line - line :
						    line - it->at.line;
			d = MIN(d, dist);
		}
		if (d == G_MAXUINT)
			continue;
		if (d < best) {
			g_ptr_array_set_size(out, 0);
			best = d;
		}
		if (d == best)
			g_ptr_array_add(out, u);
	}
	return out;
}

static bool includes(const struct cfile *c, const char *h);

/* Live units that change a header: those o includes, else all. */
static GPtrArray *header_units(struct conversion *cv, struct vobj *o)
{
	GPtrArray *mine = g_ptr_array_new(), *any = g_ptr_array_new();

	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];
		GHashTableIter it;
		gpointer f;
		bool has = false, inc = false;

		if (u->reason)
			continue;
		g_hash_table_iter_init(&it, u->files);
		while (g_hash_table_iter_next(&it, &f, NULL)) {
			struct cfile *h = f;

			if (is_c_file(h) || !h->new_text)
				continue;
			has = true;
			inc |= includes(o->file, h->path);
		}
		if (has)
			g_ptr_array_add(any, u);
		if (inc)
			g_ptr_array_add(mine, u);
	}
	if (mine->len) {
		g_ptr_array_free(any, TRUE);
		return mine;
	}
	g_ptr_array_free(mine, TRUE);
	return any;
}

/*
 * The units to refuse for an object that fails: the live units that
 * change it, or the file the error is in; when several do, the nearest
 * to the error.  An object no live unit changes any more (its own were
 * refused) can only fail for a header another unit changes.
 */
static GPtrArray *blame(struct conversion *cv, struct vobj *o)
{
	GPtrArray *cands = g_ptr_array_new();
	unsigned int line = 0;
	char *path = error_at(o->after_error ? o->after_error : "", &line);
	struct cfile *at = path ? conv_file(cv, path) : NULL;
	GPtrArray *near;

	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];

		if (u->reason)
			continue;
		if (g_hash_table_contains(u->files, o->file) ||
		    (at && at->new_text && g_hash_table_contains(u->files, at)))
			g_ptr_array_add(cands, u);
	}
	g_free(path);
	if (!cands->len) {
		g_ptr_array_free(cands, TRUE);
		return header_units(cv, o);
	}
	if (cands->len < 2 || !at || !at->new_text)
		return cands;
	near = nearest(cands, at, old_line(at, line));
	if (!near->len) {
		g_ptr_array_free(near, TRUE);
		return cands;
	}
	g_ptr_array_free(cands, TRUE);
	return near;
}

static void refuse(struct verify *v, struct unit *u, const char *where,
		   const char *what, const char *why, GHashTable *failed)
{
	unit_refuse(u, where, "%s: %s", what, why);
	g_hash_table_replace(v->refused, u, g_strdup_printf("failed: %s",
							    why));
	if (failed)
		g_hash_table_add(failed, u);
}

/* The files the conversion changes, as they are now: with the
 * --compat-header the converted files include, which the run writes
 * only once the rounds are done. */
static GPtrArray *current_state(struct conversion *cv)
{
	struct verify *v = cv->verify;
	GPtrArray *state = g_ptr_array_new();
	bool compat = false, have = false;

	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (f->new_text)
			g_ptr_array_add(state, f);
		compat |= f->new_text && f->compat_include;
		have |= f->new_text && cv->compat_header &&
			!strcmp(f->path, cv->compat_header);
	}
	if (compat && !have && cv->compat_header && cv->target) {
		if (!v->compat) {
			v->compat = cfile_new(cv->compat_header, g_strdup(""),
					      0);
			v->compat->new_text =
				compat_header_text(cv->target->level);
			v->compat->new_len = strlen(v->compat->new_text);
		}
		g_ptr_array_add(state, v->compat);
	}
	return state;
}

bool verify_round(struct conversion *cv, GHashTable *failed, GError **error)
{
	struct verify *v = cv->verify;
	GPtrArray *state = current_state(cv);
	GPtrArray *objs = g_ptr_array_new();
	bool ok;

	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];
		GPtrArray *uo;

		if (u->reason)
			continue;
		uo = unit_objs(v, u);
		for (guint k = 0; k < uo->len; k++)
			if (!g_ptr_array_find(objs, uo->pdata[k], NULL))
				g_ptr_array_add(objs, uo->pdata[k]);
		g_ptr_array_free(uo, TRUE);
	}
	for (guint i = 0; i < v->watch->len; i++)
		if (!g_ptr_array_find(objs, v->watch->pdata[i], NULL))
			g_ptr_array_add(objs, v->watch->pdata[i]);
	ok = build_after(v, objs, state, error);
	for (guint i = 0; ok && i < objs->len; i++) {
		struct vobj *o = objs->pdata[i];
		GPtrArray *guilty;

		if (o->state != VS_BUILT_BEFORE || o->after_ok)
			continue;
		if (!g_ptr_array_find(v->watch, o, NULL))
			g_ptr_array_add(v->watch, o);
		guilty = blame(cv, o);
		for (guint k = 0; k < guilty->len; k++)
			refuse(v, guilty->pdata[k], o->file->path,
			       "does not build after conversion",
			       o->after_error, failed);
		g_ptr_array_free(guilty, TRUE);
	}
	g_ptr_array_free(objs, TRUE);
	g_ptr_array_free(state, TRUE);
	return ok;
}

bool verify_state(struct conversion *cv, GPtrArray *state, GPtrArray *files,
		  char **why, GError **error)
{
	struct verify *v = cv->verify;
	GPtrArray *objs = g_ptr_array_new();
	bool ok;

	*why = NULL;
	for (guint i = 0; i < files->len; i++) {
		struct vobj *o = g_hash_table_lookup(v->objs, files->pdata[i]);

		if (o)
			g_ptr_array_add(objs, o);
	}
	ok = build_after(v, objs, state, error);
	for (guint i = 0; ok && i < objs->len && !*why; i++) {
		struct vobj *o = objs->pdata[i];

		if (o->state == VS_BUILT_BEFORE && !o->after_ok)
			*why = g_strdup(o->after_error);
	}
	g_ptr_array_free(objs, TRUE);
	return ok;
}

void verify_refused(struct conversion *cv, struct unit *u, const char *why)
{
	refuse(cv->verify, u, NULL,
	       "does not build on top of the patches before it", why, NULL);
}

/* ---- what the report says ---- */

static const char *obj_status(struct vobj *o)
{
	if (o->state == VS_BUILT_BEFORE && o->after_ok && o->key)
		return "built";
	return "not-built";
}

/* Whether c includes the header h (directly), by its #include lines. */
static bool includes(const struct cfile *c, const char *h)
{
	size_t n;
	struct token *t = lex_all(c->text, c->len, &n);
	GPtrArray *names = lex_includes(t, n);
	char *dir = g_path_get_dirname(c->path);
	bool found = false;

	for (guint i = 0; i < names->len && !found; i++) {
		const char *spelled = names->pdata[i];
		char *inc = g_strndup(spelled + 1, strlen(spelled) - 2);
		char *rel = g_build_filename(dir, inc, NULL);
		char *tail = g_strconcat("/", inc, NULL);

		found = g_str_has_suffix(h, tail) || !strcmp(h, inc) ||
			!strcmp(h, rel);
		g_free(tail);
		g_free(rel);
		g_free(inc);
	}
	g_ptr_array_free(names, TRUE);
	g_free(dir);
	g_free(t);
	return found;
}

const char *verify_site(struct conversion *cv, const struct csite *s)
{
	struct verify *v = cv->verify;
	struct vobj *o;
	const char *res = "not-built";

	if (!v)
		return NULL;
	if (s->unit && g_hash_table_contains(v->refused, s->unit))
		return g_hash_table_lookup(v->refused, s->unit);
	if (s->outcome != OUT_CONVERTED || !s->unit)
		return NULL;
	o = g_hash_table_lookup(v->objs, s->file);
	if (o)
		return obj_status(o);
	/* a header: built if a built file of its unit includes it */
	{
		GPtrArray *objs = unit_objs(v, s->unit);

		for (guint i = 0; i < objs->len; i++) {
			struct vobj *u = objs->pdata[i];

			if (!strcmp(obj_status(u), "built") &&
			    includes(u->file, s->file->path))
				res = "built";
		}
		g_ptr_array_free(objs, TRUE);
	}
	return res;
}

/* Those that did not build before first (they want a look), by path. */
static int cmp_obj(gconstpointer a, gconstpointer b)
{
	const struct vobj *x = *(struct vobj *const *)a;
	const struct vobj *y = *(struct vobj *const *)b;

	if ((x->state == VS_BROKEN_BEFORE) != (y->state == VS_BROKEN_BEFORE))
		return x->state == VS_BROKEN_BEFORE ? -1 : 1;
	return strcmp(x->file->path, y->file->path);
}

/* The objects in state st, sorted by path. */
static GPtrArray *objs_in(struct verify *v, enum vstate st)
{
	GPtrArray *list = g_ptr_array_new();
	GHashTableIter it;
	gpointer val;

	g_hash_table_iter_init(&it, v->objs);
	while (g_hash_table_iter_next(&it, NULL, &val))
		if (((struct vobj *)val)->state == st)
			g_ptr_array_add(list, val);
	g_ptr_array_sort(list, cmp_obj);
	return list;
}

/* Files listed one by one in the summary; the report has them all. */
#define SHOW_MAX 20

struct counts {
	guint objects, verified, not_in_config, broken_before, reverted;
	guint unverified;	/* built before; their units refused later */
};

static void count(struct conversion *cv, struct counts *n)
{
	struct verify *v = cv->verify;
	GHashTableIter it;
	gpointer val;

	memset(n, 0, sizeof(*n));
	g_hash_table_iter_init(&it, v->objs);
	while (g_hash_table_iter_next(&it, NULL, &val)) {
		struct vobj *o = val;
		bool live = false;

		for (guint i = 0; i < cv->units->len && !live; i++) {
			struct unit *u = cv->units->pdata[i];

			live = !u->reason &&
			       g_hash_table_contains(u->files, o->file);
		}
		n->objects++;
		if (o->state == VS_NOT_IN_CONFIG)
			n->not_in_config++;
		else if (o->state == VS_BROKEN_BEFORE)
			n->broken_before++;
		else if (live && !strcmp(obj_status(o), "built"))
			n->verified++;
		else
			n->unverified++;
	}
	n->reverted = g_hash_table_size(v->refused);
}

/* This config builds none of the files: say where kbuild stops, in
 * case the config is not the one the tree is built with. */
static void none_built_warning(struct verify *v, guint n, FILE *out)
{
	GPtrArray *whys = g_ptr_array_new();
	GHashTableIter it;
	gpointer val;

	g_hash_table_iter_init(&it, v->objs);
	while (g_hash_table_iter_next(&it, NULL, &val)) {
		struct vobj *o = val;

		if (o->why && !g_ptr_array_find_with_equal_func(whys, o->why,
							g_str_equal, NULL))
			g_ptr_array_add(whys, o->why);
	}
	g_ptr_array_sort(whys, cmp_strings);
	fprintf(out, "timerconv: verify: warning: this config builds none of the %u changed file%s (is it the config this tree is built with?):",
		n, n == 1 ? "" : "s");
	for (guint i = 0; i < whys->len && i < 4; i++)
		fprintf(out, "%s %s", i ? ";" : "", (char *)whys->pdata[i]);
	if (whys->len > 4)
		fprintf(out, "; ... (%u more)", whys->len - 4);
	fprintf(out, "\n");
	g_ptr_array_free(whys, TRUE);
}

void verify_summary(struct conversion *cv, FILE *out)
{
	struct verify *v = cv->verify;
	const struct kbuild_stats *st;
	struct counts n;

	if (!v)
		return;
	if (!g_hash_table_size(v->objs)) {
		fprintf(out, "timerconv: verify: nothing to build: no converted unit changes a .c file\n");
		return;
	}
	count(cv, &n);
	st = kbuild_stats(v->kb);
	fprintf(out, "timerconv: verify (%s): %u file%s built before and after the conversion, %u not built by this config",
		kbuild_describe(v->kb), n.verified, n.verified == 1 ? "" : "s",
		n.not_in_config);
	if (n.broken_before)
		fprintf(out, ", %u not building before the conversion",
			n.broken_before);
	fprintf(out, "; %u unit%s reverted: does not build after conversion\n",
		n.reverted, n.reverted == 1 ? "" : "s");
	for (guint i = 0; i < v->unknown->len; i++)
		fprintf(out, "timerconv: verify: warning: kbuild could not say whether this config builds the files under %s; they count as built by it\n",
			(char *)v->unknown->pdata[i]);
	if (n.objects && n.not_in_config == n.objects)
		none_built_warning(v, n.objects, out);
	fprintf(out, "timerconv: verify: %s%.1f s; %u compile%s in %u make run%s, %.1f s\n",
		st->prepared ? "configured and prepared in " :
			       "build directory ready in ",
		st->prepare_s, st->compiled, st->compiled == 1 ? "" : "s",
		st->makes, st->makes == 1 ? "" : "s", st->compile_s);
	{
		GPtrArray *list = g_ptr_array_new();
		GHashTableIter it;
		gpointer val;
		guint shown = 0;

		g_hash_table_iter_init(&it, v->objs);
		while (g_hash_table_iter_next(&it, NULL, &val))
			if (((struct vobj *)val)->state == VS_NOT_IN_CONFIG ||
			    ((struct vobj *)val)->state == VS_BROKEN_BEFORE)
				g_ptr_array_add(list, val);
		g_ptr_array_sort(list, cmp_obj);
		for (guint i = 0; i < list->len && shown < SHOW_MAX; i++) {
			struct vobj *o = list->pdata[i];

			if (o->state == VS_NOT_IN_CONFIG)
				fprintf(out, "timerconv: verify: %s: not built by this config\n",
					o->file->path);
			else
				fprintf(out, "timerconv: verify: %s: does not build before the conversion either: %s\n",
					o->file->path, o->before_error);
			shown++;
		}
		if (list->len > shown)
			fprintf(out, "timerconv: verify: ... and %u more files not built (see --report)\n",
				list->len - shown);
		g_ptr_array_free(list, TRUE);
	}
}

static void add_int(JsonBuilder *b, const char *key, gint64 val)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, val);
}

static void add_double(JsonBuilder *b, const char *key, double val)
{
	json_builder_set_member_name(b, key);
	json_builder_add_double_value(b, (double)(gint64)(val * 10 + 0.5) / 10);
}

void verify_json(struct conversion *cv, JsonBuilder *b)
{
	struct verify *v = cv->verify;
	const struct kbuild_stats *st;
	struct counts n;

	if (!v)
		return;
	count(cv, &n);
	st = kbuild_stats(v->kb);
	json_builder_set_member_name(b, "verify");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "config");
	json_builder_add_string_value(b, kbuild_config(v->kb));
	json_builder_set_member_name(b, "build_dir");
	json_builder_add_string_value(b, kbuild_dir(v->kb));
	add_int(b, "files", n.objects);
	add_int(b, "verified", n.verified);
	add_int(b, "not_built", n.not_in_config);
	add_int(b, "not_building_before", n.broken_before);
	add_int(b, "reverted", n.reverted);
	add_double(b, "prepare_seconds", st->prepare_s);
	add_double(b, "compile_seconds", st->compile_s);
	add_int(b, "compiles", st->compiled);
	{
		GPtrArray *broken = objs_in(v, VS_BROKEN_BEFORE);

		json_builder_set_member_name(b, "broken_before");
		json_builder_begin_array(b);
		for (guint i = 0; i < broken->len; i++) {
			struct vobj *o = broken->pdata[i];

			json_builder_begin_object(b);
			json_builder_set_member_name(b, "file");
			json_builder_add_string_value(b, o->file->path);
			json_builder_set_member_name(b, "error");
			json_builder_add_string_value(b, o->before_error ?
						      o->before_error : "");
			json_builder_end_object(b);
		}
		json_builder_end_array(b);
		g_ptr_array_free(broken, TRUE);
	}
	json_builder_end_object(b);
}


static bool live(struct conversion *cv, struct vobj *o)
{
	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];

		if (!u->reason && g_hash_table_contains(u->files, o->file))
			return true;
	}
	return false;
}

char *verify_note(struct conversion *cv)
{
	struct verify *v = cv->verify;
	GString *b = g_string_new(NULL);
	GPtrArray *untested = g_ptr_array_new();
	GHashTableIter it;
	gpointer val;
	guint built = 0;

	g_hash_table_iter_init(&it, v->objs);
	while (g_hash_table_iter_next(&it, NULL, &val)) {
		struct vobj *o = val;

		if (!live(cv, o))
			continue;
		if (!strcmp(obj_status(o), "built"))
			built++;
		else
			g_ptr_array_add(untested, o);
	}
	g_ptr_array_sort(untested, cmp_obj);
	g_string_append_printf(b,
		"Build-tested with the tree's kbuild (%s): the .c files of each\n"
		"patch were compiled before the series and on top of the patches\n"
		"before it; %u file%s built.\n", kbuild_config(v->kb), built,
		built == 1 ? "" : "s");
	if (untested->len)
		g_string_append(b, "Not built by this config, so not build-tested:\n");
	for (guint i = 0; i < untested->len; i++)
		g_string_append_printf(b, "  %s\n",
			((struct vobj *)untested->pdata[i])->file->path);
	g_ptr_array_free(untested, TRUE);
	return g_string_free(b, FALSE);
}
