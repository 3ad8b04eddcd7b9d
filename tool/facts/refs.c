// SPDX-License-Identifier: GPL-2.0
/*
 * Where callback names are used, as C resolves them (names.h): an
 * identifier of that name is a use of the callback when it names the
 * file-scope entity (not a member, tag, label, parameter or local) and
 * the callback is the entity the name has in that file:
 *  - a static callback, in its own file and in the headers that file
 *    includes (a static prototype in foo.h is foo.c's);
 *  - a callback with external linkage, in any file that does not declare
 *    the name for itself (its own static function or object, a typedef,
 *    an enumerator).
 * These uses are what a conversion is checked against: spatch must
 * account for each of them or the callback is refused.  The names a file
 * uses also narrow spatch's callback-name constraint for that file (see
 * spatch.c), the bodies blanking keeps, and the files planned together.
 */
#include <string.h>

#include "conv.h"
#include "names.h"
#include "util.h"

/* A word's first two bytes and length, folded to a bit of the filter. */
#define FILTER_BITS 65536u

struct name_filter {
	GHashTable *names;
	gsize min_len, max_len;
	/* a bit set for each name: most words of a file miss it, and are
	 * not looked up */
	guint8 bits[FILTER_BITS / 8];
};

static inline guint filter_bit(const char *w, size_t len)
{
	guint b = (guint)(unsigned char)w[0] << 8 |
		  (len > 1 ? (unsigned char)w[1] : 0);

	return (b ^ (guint)len << 10 ^ (guint)len) % FILTER_BITS;
}

static void filter_init(struct name_filter *nf, GHashTable *names)
{
	GHashTableIter it;
	gpointer key;

	memset(nf, 0, sizeof(*nf));
	nf->names = names;
	nf->min_len = G_MAXSIZE;
	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		gsize l = strlen(key);
		guint bit = filter_bit(key, l);

		nf->bits[bit / 8] |= 1u << bit % 8;
		nf->min_len = MIN(nf->min_len, l);
		nf->max_len = MAX(nf->max_len, l);
	}
}

/* The name of `len` bytes at p, when it is one of the filter's. */
static const char *filter_lookup(const struct name_filter *nf, const char *p,
				 size_t len)
{
	char buf[256];
	guint bit;
	gpointer key = NULL;

	if (len < nf->min_len || len > nf->max_len || len >= sizeof(buf))
		return NULL;
	bit = filter_bit(p, len);
	if (!(nf->bits[bit / 8] & 1u << bit % 8))
		return NULL;
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (!g_hash_table_lookup_extended(nf->names, buf, &key, NULL))
		return NULL;
	return key;
}

static bool wanted(const struct token *tok, void *ctx)
{
	return filter_lookup(ctx, tok->p, tok->len) != NULL;
}

/* What a file says about the names: their uses and declarations. */
struct resolved {
	GArray *uses;		/* struct name_use */
	GArray *decls;		/* struct name_decl */
};

static void resolve(const struct token *t, size_t n,
		    struct name_filter *nf, struct resolved *res)
{
	res->uses = g_array_new(FALSE, FALSE, sizeof(struct name_use));
	res->decls = g_array_new(FALSE, FALSE, sizeof(struct name_decl));
	names_resolve(t, n, wanted, nf, res->uses, res->decls);
}

static void resolved_clear(struct resolved *res)
{
	g_array_free(res->uses, TRUE);
	g_array_free(res->decls, TRUE);
}

/*
 * Does the file declare the name at t for itself, beyond doubt: a static
 * function or object, a typedef or an enumerator outside any #if, and
 * no declaration of an external function of that name?
 */
static bool own_name(const struct token *t, const struct resolved *res,
		     const struct token *name)
{
	bool own = false;

	for (guint i = 0; i < res->decls->len; i++) {
		const struct name_decl *d = &g_array_index(res->decls,
						struct name_decl, i);
		const struct token *dt = &t[d->tok];

		if (dt->len != name->len || memcmp(dt->p, name->p, dt->len))
			continue;
		if (d->kind == DECL_EXTERN || d->conditional)
			return false;
		own = true;
	}
	return own;
}

/* ---- the uses in one file ---- */

static void note_name(struct cfile *f, const char *name)
{
	if (!g_ptr_array_find_with_equal_func(f->cb_names, name,
					      g_str_equal, NULL))
		g_ptr_array_add(f->cb_names, g_strdup(name));
}

static bool is_home(const struct cfile *f, GPtrArray *homes)
{
	for (guint i = 0; homes && i < homes->len; i++) {
		const struct cfile *h = homes->pdata[i];

		if (h == f || (g_str_has_suffix(f->path, ".h") &&
			       cfile_includes(h, f->path)))
			return true;
	}
	return false;
}

void refs_find(struct cfile *f, const struct cb_names *cn)
{
	struct name_filter *nf;
	struct resolved res;
	size_t n;
	const struct token *t;

	if (!g_hash_table_size(cn->all))
		return;
	nf = g_new(struct name_filter, 1);
	filter_init(nf, cn->all);
	t = cfile_tokens(f, &n);
	resolve(t, n, nf, &res);
	for (guint i = 0; i < res.uses->len; i++) {
		const struct name_use *u = &g_array_index(res.uses,
						struct name_use, i);
		const struct token *tok = &t[u->tok];
		const char *name;
		struct cb_ref *r;

		if (u->role != NAME_ORDINARY)
			continue;
		name = filter_lookup(nf, tok->p, tok->len);
		if (!is_home(f, g_hash_table_lookup(cn->homes, name)) &&
		    !(g_hash_table_contains(cn->global, name) &&
		      !own_name(t, &res, tok)))
			continue;
		note_name(f, name);
		r = g_new0(struct cb_ref, 1);
		r->name = g_strdup(name);
		r->line = tok->line;
		r->col = tok->col;
		r->in_define = (tok->flags & TF_PP) != 0;
		g_ptr_array_add(f->refs, r);
	}
	resolved_clear(&res);
	g_free(nf);
}

GHashTable *refs_functions(struct cfile *f, GHashTable *names)
{
	GHashTable *at = g_hash_table_new_full(g_int64_hash, g_int64_equal,
					       g_free, NULL);
	struct name_filter *nf;
	struct resolved res;
	size_t n;
	const struct token *t;

	if (!g_hash_table_size(names))
		return at;
	nf = g_new(struct name_filter, 1);
	filter_init(nf, names);
	t = cfile_tokens(f, &n);
	resolve(t, n, nf, &res);
	for (guint i = 0; i < res.uses->len; i++) {
		const struct name_use *u = &g_array_index(res.uses,
						struct name_use, i);
		gint64 *key;

		if (u->role != NAME_ORDINARY)
			continue;
		key = g_new(gint64, 1);
		*key = refs_pos_key(t[u->tok].line, t[u->tok].col);
		g_hash_table_add(at, key);
	}
	resolved_clear(&res);
	g_free(nf);
	return at;
}

/* ---- the names to look for ---- */

void cb_names_init(struct cb_names *cn)
{
	cn->all = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	cn->global = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   NULL);
	cn->homes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  (GDestroyNotify)g_ptr_array_unref);
}

void cb_names_clear(struct cb_names *cn)
{
	g_hash_table_destroy(cn->all);
	g_hash_table_destroy(cn->global);
	g_hash_table_destroy(cn->homes);
}

static void add_name(struct cb_names *cn, GHashTable *statics,
		     struct cfile *f, const char *name)
{
	if (!g_hash_table_contains(cn->all, name))
		g_hash_table_add(cn->all, g_strdup(name));
	if (g_hash_table_contains(statics, name)) {
		GPtrArray *homes = g_hash_table_lookup(cn->homes, name);

		if (!homes) {
			homes = g_ptr_array_new();
			g_hash_table_insert(cn->homes, g_strdup(name), homes);
		}
		if (!g_ptr_array_find(homes, f, NULL))
			g_ptr_array_add(homes, f);
	} else if (!g_hash_table_contains(cn->global, name)) {
		g_hash_table_add(cn->global, g_strdup(name));
	}
}

static void statics_of(GHashTable *statics, GArray *funcs)
{
	for (guint k = 0; k < funcs->len; k++) {
		struct ulong_func *u = &g_array_index(funcs, struct ulong_func,
						      k);

		if (u->is_static)
			g_hash_table_add(statics, u->name);
	}
}

/* The names a file hands to timers, before C has its say. */
static GHashTable *handed_names(const struct cfile *f)
{
	GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint k = 0; k < f->scan->sites->len; k++) {
		const struct site *s = &g_array_index(f->scan->sites,
						      struct site, k);

		if (!s->compat && s->callback && strcmp(s->callback, "NULL"))
			g_hash_table_add(names, s->callback);
	}
	if (f->scan->cast_handed) {
		GHashTableIter it;
		gpointer name;

		g_hash_table_iter_init(&it, f->scan->cast_handed);
		while (g_hash_table_iter_next(&it, &name, NULL))
			g_hash_table_add(names, name);
	}
	return names;
}

/*
 * Callbacks the candidates' old-API sites name, which of them are static
 * in the file that names them (their home) and which are not (so other
 * files may use them too).  A name that is a parameter or a local where
 * it is handed over (a helper's `fn`, a macro's parameter) names no
 * function: looked for in the tree, it would make every file that spells
 * `fn` a candidate.  Callbacks handed to today's API are not looked for:
 * they need nothing.
 */
void cb_names_collect(struct cb_names *cn, GPtrArray *files)
{
	for (guint i = 0; i < files->len; i++) {
		struct cfile *f = files->pdata[i];
		GHashTable *statics = g_hash_table_new(g_str_hash,
						       g_str_equal);
		GHashTable *handed = handed_names(f);
		GHashTable *fn_at;

		if (!g_hash_table_size(handed)) {
			g_hash_table_destroy(handed);
			g_hash_table_destroy(statics);
			continue;
		}
		statics_of(statics, f->scan->ulong_funcs);
		statics_of(statics, f->scan->other_funcs);
		fn_at = refs_functions(f, handed);
		cfile_forget_tokens(f);
		for (guint k = 0; k < f->scan->sites->len; k++) {
			const struct site *s = &g_array_index(f->scan->sites,
							      struct site, k);
			gint64 at = refs_pos_key(s->cb_line, s->cb_col);

			if (s->compat || !s->callback ||
			    !strcmp(s->callback, "NULL"))
				continue;
			if (s->type == SITE_API &&
			    !g_hash_table_contains(fn_at, &at))
				continue;
			add_name(cn, statics, f, s->callback);
		}
		/* callbacks taking a pointer, installed through a cast */
		for (guint k = 0; f->scan->cast_handed &&
		     k < f->scan->cb_uses->len; k++) {
			const struct cb_use *u = &g_array_index(
				f->scan->cb_uses, struct cb_use, k);
			gint64 at = refs_pos_key(u->line, u->col);

			if (g_hash_table_contains(f->scan->cast_handed,
						  u->name) &&
			    g_hash_table_contains(fn_at, &at))
				add_name(cn, statics, f, u->name);
		}
		g_hash_table_destroy(fn_at);
		g_hash_table_destroy(handed);
		g_hash_table_destroy(statics);
	}
}


/* ---- the files that may use a name of external linkage ---- */

struct refs_job {
	const struct tree *tree;
	GPtrArray *files;
	gboolean *hit;
	GAsyncQueue *scratch;	/* token arrays, one a worker at a time */
	gint mentioned;		/* files that spell a name */
	struct name_filter nf;
};

/*
 * Does the text contain one of the names as a whole identifier?  A word
 * is a run of the bytes the lexer reads names from, so that a name it
 * would see as a token is found here.
 */
static bool mentions(const struct name_filter *nf, const char *text,
		     size_t len)
{
	const char *p = text, *end = text + len;

	while ((p = lex_ident_next(p, end)) < end) {
		const char *start = p;

		p = lex_ident_end(p, end);
		if (filter_lookup(nf, start, p - start))
			return true;
	}
	return false;
}

/* Does the file use one of the names as the external entity? */
static bool uses_external(struct refs_job *job, const char *text, size_t len)
{
	GArray *toks = g_async_queue_try_pop(job->scratch);
	struct resolved res;
	bool found = false;

	if (!toks)
		toks = g_array_new(FALSE, FALSE, sizeof(struct token));
	lex_into(toks, text, len);
	resolve((const struct token *)toks->data, toks->len, &job->nf, &res);
	for (guint i = 0; !found && i < res.uses->len; i++) {
		const struct name_use *u = &g_array_index(res.uses,
						struct name_use, i);
		const struct token *t = (const struct token *)toks->data;

		found = u->role == NAME_ORDINARY &&
			!own_name(t, &res, &t[u->tok]);
	}
	resolved_clear(&res);
	g_async_queue_push(job->scratch, toks);
	return found;
}

static void refs_one(size_t i, void *data)
{
	struct refs_job *job = data;
	size_t len;
	char *text = tree_read(job->tree, job->files->pdata[i], &len, NULL);

	if (text && mentions(&job->nf, text, len)) {
		g_atomic_int_inc(&job->mentioned);
		if (uses_external(job, text, len))
			job->hit[i] = TRUE;
	}
	g_free(text);
}

GPtrArray *refs_files(const struct tree *tree, GPtrArray *files,
		      GHashTable *names, int jobs, guint *mentioned)
{
	struct refs_job *job;
	GPtrArray *out = g_ptr_array_new();

	if (mentioned)
		*mentioned = 0;
	if (!g_hash_table_size(names))
		return out;
	job = g_new0(struct refs_job, 1);
	job->tree = tree;
	job->files = files;
	filter_init(&job->nf, names);
	job->hit = g_new0(gboolean, files->len);
	job->scratch = g_async_queue_new_full((GDestroyNotify)g_array_unref);
	parallel_for(files->len, jobs, refs_one, job);
	for (guint i = 0; i < files->len; i++)
		if (job->hit[i])
			g_ptr_array_add(out, files->pdata[i]);
	if (mentioned)
		*mentioned = (guint)job->mentioned;
	g_async_queue_unref(job->scratch);
	g_free(job->hit);
	g_free(job);
	return out;
}
