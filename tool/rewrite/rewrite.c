// SPDX-License-Identifier: GPL-2.0
/*
 * The rewrite pass: spatch in patch mode on every file of a converted
 * unit, each with the plan of the units touching it; in the first round,
 * a file the facts+patch pass rewrote with that very plan keeps that
 * result instead (speculate.h).  Nothing is taken on trust, either way:
 * every planned change must be reported done by its rule, no planned
 * callback may still take unsigned long, and the scan of the result must
 * show exactly the planned old-API sites gone.  A unit that fails is
 * refused, and the files it touched are rewritten again without it,
 * until the plan is stable.
 */
#include <stdio.h>
#include <string.h>

#include "blank.h"
#include "compat.h"
#include "ppcond.h"
#include "conv.h"
#include "diff.h"
#include "env.h"
#include "spatch.h"
#include "speculate.h"
#include "util.h"
#include "verify.h"

static GPtrArray *planned_files(struct conversion *cv, GHashTable *dirty)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (dirty && !g_hash_table_contains(dirty, f))
			continue;
		g_free(f->new_text);
		f->new_text = NULL;
		facts_free(f->done);
		f->done = NULL;
		g_ptr_array_add(out, f);
	}
	return out;
}

static char *write_plan(struct spatch_env *env, JsonObject *plan, guint n,
			GError **error)
{
	JsonNode *root = json_node_new(JSON_NODE_OBJECT);
	JsonGenerator *gen = json_generator_new();
	char *path = g_strdup_printf("%s/plan-%u.json", env->workdir, n);
	bool ok;

	json_node_set_object(root, plan);
	json_generator_set_root(gen, root);
	ok = json_generator_to_file(gen, path, error);
	json_node_unref(root);
	g_object_unref(gen);
	if (!ok) {
		g_free(path);
		return NULL;
	}
	return path;
}

/* A definition or prototype of name on the old prototype, in code that
 * is compiled (a copy kept under #if 0 is not). */
static bool still_ulong(const struct scan_result *res, const char *name)
{
	for (guint i = 0; i < res->ulong_funcs->len; i++) {
		const struct ulong_func *u = &g_array_index(res->ulong_funcs,
						struct ulong_func, i);

		if (!strcmp(u->name, name) &&
		    !line_in_ranges(res->dead_ranges, u->line))
			return true;
	}
	return false;
}

static guint count_api_sites(const struct scan_result *res)
{
	guint n = 0;

	for (guint i = 0; i < res->sites->len; i++) {
		const struct site *s = &g_array_index(res->sites, struct site,
						      i);

		if (s->type == SITE_API && s->api->kind != API_RENAME)
			n++;
	}
	return n;
}

static bool is_site_item(const struct plan_item *it)
{
	return !strcmp(it->section, "setups") ||
	       !strcmp(it->section, "inits") ||
	       !strcmp(it->section, "defines");
}

/* The lines of f's old text (1-based) its new text changes: deleted,
 * replaced, or beside an insertion. */
static bool *changed_lines(const struct cfile *f, size_t *nlines)
{
	struct lines a, b;
	GArray *ops;
	bool *changed;
	size_t at = 0;		/* old lines passed so far */

	lines_split(&a, f->text, f->len);
	lines_split(&b, f->new_text, f->new_len);
	ops = diff_lines(&a, &b);
	*nlines = a.v->len;
	changed = g_new0(bool, a.v->len + 2);
	for (guint i = 0; i < ops->len; i++) {
		const struct dop *op = &g_array_index(ops, struct dop, i);

		if (op->kind == DOP_INSERT) {
			changed[at] = true;
			changed[at + 1] = true;
			continue;
		}
		at = op->a + 1;
		if (op->kind == DOP_DELETE)
			changed[at] = true;
	}
	g_array_free(ops, TRUE);
	lines_clear(&a);
	lines_clear(&b);
	return changed;
}

/* The lines a site spans: a callback's, its whole definition. */
static void site_extent(const struct cfile *f, const struct site *s,
			unsigned int *first, unsigned int *last)
{
	*first = s->line;
	*last = MAX(s->line, s->end_line);
	if (s->type != SITE_ULONG_CALLBACK)
		return;
	for (guint i = 0; f->facts && i < f->facts->callbacks->len; i++) {
		const struct f_callback *c = f->facts->callbacks->pdata[i];

		if (c->at.line == s->line && !g_strcmp0(c->name, s->callback))
			*last = MAX(*last, c->last);
	}
}

/* The lines of the construct a plan item names, from its position to
 * the ")" of its first parenthesis, or to its ";". */
static void item_extent(struct cfile *f, const struct plan_item *it,
			unsigned int *first, unsigned int *last)
{
	size_t n, i;
	const struct token *t = cfile_tokens(f, &n);

	*first = *last = it->at.line;
	for (i = 0; i < n; i++)
		if (t[i].line == it->at.line && t[i].col == it->at.col)
			break;
	for (; i < n && t[i].kind != TOK_EOF; i++) {
		if (tok_punct(&t[i], '(')) {
			size_t close = tok_match_close(t, n, i);

			if (close < n)
				*last = t[close].line;
			return;
		}
		if (tok_punct(&t[i], ';')) {
			*last = t[i].line;
			return;
		}
	}
}

struct changes {
	struct cfile *f;
	bool *lines;		/* changed_lines(), once asked */
	size_t nlines;
};

static bool changed_in(struct changes *c, unsigned int first,
		       unsigned int last)
{
	if (!c->f->new_text)
		return false;
	if (!c->lines)
		c->lines = changed_lines(c->f, &c->nlines);
	for (unsigned int l = first; l <= last && l <= c->nlines; l++)
		if (c->lines[l])
			return true;
	return false;
}

static void lost(struct unit *u, struct cfile *f, unsigned int line,
		 GHashTable *failed)
{
	char *w = g_strdup_printf("%s:%u", f->path, line);

	unit_refuse(u, w,
		    "internal error: the rewrite left %s unchanged; the unit is not converted",
		    w);
	g_free(w);
	g_hash_table_add(failed, u);
}

/*
 * The report must not claim what did not happen: every site of a unit
 * converted here, and every change planned here, must lie where f's new
 * text differs from its old.  One that does not (spatch's result lost,
 * say) refuses its unit, with an internal error as the reason.
 */
static void check_changed(struct conversion *cv, struct cfile *f,
			  GPtrArray *items, GHashTable *failed)
{
	struct changes c = { f, NULL, 0 };
	bool lexed = f->tokens != NULL;
	unsigned int first, last;

	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *cs = cv->sites->pdata[i];

		if (cs->file != f || !cs->unit || cs->unit->reason ||
		    cs->reason)
			continue;
		site_extent(f, cs->site, &first, &last);
		if (!changed_in(&c, first, last))
			lost(cs->unit, f, cs->site->line, failed);
	}
	for (guint i = 0; i < items->len; i++) {
		struct plan_item *it = items->pdata[i];

		/* a change placed by no position (--keep-data's member)
		 * is checked by its done record alone */
		if (it->unit->reason || !it->at.line)
			continue;
		item_extent(f, it, &first, &last);
		if (!changed_in(&c, first, last))
			lost(it->unit, f, it->at.line, failed);
	}
	g_free(c.lines);
	/* the tokens were forgotten to save memory: forget them again */
	if (!lexed)
		cfile_forget_tokens(f);
}

/* Check one file's result against its plan; refuse what did not happen. */
static void verify(struct conversion *cv, struct cfile *f,
		   GHashTable *failed)
{
	GPtrArray *items = plan_items(cv, f);
	GHashTable *units = g_hash_table_new(NULL, NULL);
	struct scan_result *after = NULL;
	guint planned_sites = 0;
	guint failed_before = g_hash_table_size(failed);
	GHashTableIter it;
	gpointer key;

	if (f->new_text)
		after = scan_file(f->new_text, f->new_len, NULL);
	for (guint k = 0; k < items->len; k++) {
		struct plan_item *pi = items->pdata[k];
		bool ok;
		char *w;

		g_hash_table_add(units, pi->unit);
		if (is_site_item(pi))
			planned_sites++;
		if (pi->unit->reason)
			continue;
		ok = f->done && facts_done(f->done, pi->section, pi->key);
		/* spatch updates a prototype in the definition's file along
		 * with the definition */
		if (!ok && !strcmp(pi->section, "protos") && after)
			ok = !still_ulong(after, pi->callback);
		if (ok)
			continue;
		w = g_strdup_printf("%s:%u", f->path, pi->at.line);
		unit_refuse(pi->unit, w, "rewrite incomplete: spatch did not rewrite the %s here%s%s",
			    pi->what, f->rewrite_error ? ": " : "",
			    f->rewrite_error ? f->rewrite_error : "");
		g_free(w);
		g_hash_table_add(failed, pi->unit);
	}
	/* without the compat header it would not build where it must */
	if (f->compat_include &&
	    !(f->done && facts_done(f->done, "compat", "include"))) {
		g_hash_table_iter_init(&it, units);
		while (g_hash_table_iter_next(&it, &key, NULL)) {
			unit_refuse(key, f->path,
				    "could not add the #include of %s to %s (it has no #include to put it after)",
				    cv->compat_header, f->path);
			g_hash_table_add(failed, key);
		}
	}
	g_hash_table_iter_init(&it, units);
	while (after && g_hash_table_iter_next(&it, &key, NULL)) {
		struct unit *u = key;

		for (guint k = 0; !u->reason && k < u->cb_names->len; k++) {
			const char *name = u->cb_names->pdata[k];

			if (!still_ulong(after, name))
				continue;
			unit_refuse(u, f->path,
				    "rewrite incomplete: %s() still takes unsigned long",
				    name);
			g_hash_table_add(failed, u);
		}
	}
	if (after && f->scan && g_hash_table_size(failed) == failed_before &&
	    count_api_sites(f->scan) - count_api_sites(after) !=
	    planned_sites) {
		/* spatch changed more (or less) than it was asked to */
		g_hash_table_iter_init(&it, units);
		while (g_hash_table_iter_next(&it, &key, NULL)) {
			unit_refuse(key, f->path,
				    "rewrite check failed: the result of %s does not match the plan",
				    f->path);
			g_hash_table_add(failed, key);
		}
	}
	if (g_hash_table_size(failed) == failed_before)
		check_changed(cv, f, items, failed);
	g_hash_table_destroy(units);
	g_ptr_array_free(items, TRUE);
	scan_result_free(after);
}

/* How f's #include of the compat header reads. */
static char *compat_spec(struct conversion *cv, struct cfile *f)
{
	return compat_include_spec(f->path, cv->compat_header,
				   tree_has(cv->tree, "include/linux/timer.h"));
}

/*
 * A file the plan moves to the new API needs the compat header, unless it
 * includes it already (or is it).  Prototypes alone do not.
 */
static bool needs_compat(struct conversion *cv, struct cfile *f,
			 JsonObject *plan)
{
	static const char *const sections[] = {
		"setups", "inits", "defines", "callbacks", "renames", NULL
	};
	char *inc;
	bool has = false;

	if (!cv->compat_header || !strcmp(f->path, cv->compat_header))
		return false;
	for (int i = 0; sections[i] && !has; i++)
		has = json_object_has_member(plan, sections[i]);
	if (!has)
		return false;
	inc = compat_spec(cv, f);
	has = !memmem(f->text, f->len, inc, strlen(inc));
	g_free(inc);
	return has;
}

/*
 * What spatch made of the scratch copy of f, which was `blanked` (blank.h)
 * or f's text.  False when that result cannot be merged into f's text:
 * f is then rewritten again, unblanked.
 */
static bool read_result(struct cfile *f, struct spatch_file *sf,
			const char *blanked)
{
	char *text = NULL;
	gsize len = 0;

	if (!sf->error && !sf->timed_out &&
	    g_file_get_contents(sf->input, &text, &len, NULL) && blanked) {
		size_t merged_len;
		char *merged = blank_merge(f->text, f->len, blanked, f->len,
					   text, len, &merged_len);

		g_free(text);
		if (!merged)
			return false;
		text = merged;
		len = merged_len;
	}
	f->done = sf->facts ? sf->facts : facts_parse("");
	sf->facts = NULL;
	if (sf->error || sf->timed_out) {
		f->rewrite_error = g_strdup(sf->timed_out ? "spatch timed out" :
					    "spatch failed");
		return true;
	}
	if (!text)
		return true;
	if (len == f->len && !memcmp(text, f->text, len)) {
		g_free(text);
		return true;
	}
	f->new_text = text;
	f->new_len = len;
	return true;
}

/* A scratch copy of f, or of `text`, for spatch to rewrite in place. */
static char *scratch_copy(struct spatch_env *env, struct cfile *f,
			  const char *text, guint round, GError **error)
{
	char *dir = g_strdup_printf("%s/src-%u", env->workdir, round);
	char *abs = cfile_scratch_write(f, dir, text ? text : f->text, f->len,
					error);

	g_free(dir);
	return abs;
}

/*
 * The files of the round whose results on blanked copies could not be
 * merged: rewritten again from their real text, with the same plan (it
 * goes by the copy's path, which is the same).
 */
static bool redo_unblanked(struct spatch_env *env, GPtrArray *redo,
			   GPtrArray *redo_sf, const char *plan_path,
			   guint round, GError **error)
{
	GPtrArray *again = g_ptr_array_new_with_free_func(
		(GDestroyNotify)spatch_file_free);
	bool ok = true;

	for (guint i = 0; ok && i < redo->len; i++) {
		struct cfile *f = redo->pdata[i];
		struct spatch_file *old = redo_sf->pdata[i];
		char *copy = scratch_copy(env, f, NULL, round, error);
		struct spatch_file *sf;

		if (!copy) {
			ok = false;
			break;
		}
		sf = spatch_file_new(copy, old->sp_file, f->len);
		sf->names = f->cb_names;
		g_ptr_array_add(again, sf);
	}
	if (ok)
		spatch_run_files(env, "patch", again, plan_path, NULL, true);
	if (ok && interrupted()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
			    "interrupted");
		ok = false;
	}
	for (guint i = 0; ok && i < again->len; i++)
		read_result(redo->pdata[i], again->pdata[i], NULL);
	g_ptr_array_free(again, TRUE);
	return ok;
}

/* Redo every file a failed unit touched, without it. */
static GHashTable *dirty_files(GHashTable *failed)
{
	GHashTable *dirty = g_hash_table_new(NULL, NULL);
	GHashTableIter it;
	gpointer u;

	g_hash_table_iter_init(&it, failed);
	while (g_hash_table_iter_next(&it, &u, NULL)) {
		GHashTableIter fi;
		gpointer f;

		g_hash_table_iter_init(&fi, ((struct unit *)u)->files);
		while (g_hash_table_iter_next(&fi, &f, NULL))
			g_hash_table_add(dirty, f);
	}
	return dirty;
}

/* One round: every planned file of `files`, rewritten by spatch. */
static bool rewrite_round(struct conversion *cv, struct spatch_env *env,
			  GPtrArray *files, guint round, GError **error)
{
	GPtrArray *sfiles = g_ptr_array_new_with_free_func(
		(GDestroyNotify)spatch_file_free);
	GPtrArray *planned = g_ptr_array_new();
	/* each planned file's blanked copy (blank.h), or NULL */
	GPtrArray *blanked = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *redo = g_ptr_array_new(), *redo_sf = g_ptr_array_new();
	bool blank = blank_wanted(env->macro_file);
	JsonObject *all = json_object_new();
	JsonObject *by_file = json_object_new();
	char *plan_path = NULL;
	guint kept = 0;
	bool ok = false;

	json_object_set_object_member(all, "files", by_file);
	for (guint i = 0; i < files->len; i++) {
		struct cfile *f = files->pdata[i];
		JsonObject *plan = plan_for_file(cv, f);
		const char *sp_file = NULL;
		struct spatch_file *sf;
		char *copy, *text = NULL;
		size_t nblanked;

		if (!plan)
			continue;
		/* the facts+patch pass rewrote it with this very plan */
		if (!round && spec_take(f, plan)) {
			json_object_unref(plan);
			kept++;
			continue;
		}
		f->compat_include = needs_compat(cv, f, plan);
		if (f->compat_include) {
			char *inc = compat_spec(cv, f);

			sp_file = spatch_sp_with_include(env, inc, error);
			g_free(inc);
			if (!sp_file) {
				json_object_unref(plan);
				goto out;
			}
		}
		if (blank)
			text = cfile_blanked_text(f, &nblanked);
		copy = scratch_copy(env, f, text, round, error);
		g_ptr_array_add(blanked, text);
		if (!copy) {
			json_object_unref(plan);
			goto out;
		}
		json_object_set_object_member(by_file, copy, plan);
		sf = spatch_file_new(copy, sp_file, f->len);
		sf->names = f->cb_names;
		g_ptr_array_add(sfiles, sf);
		g_ptr_array_add(planned, f);
	}
	if (kept && env_timings())
		fprintf(stderr, "timerconv: timing: %u files kept from the facts+patch pass, %u to rewrite\n",
			kept, sfiles->len);
	plan_path = write_plan(env, all, round, error);
	if (!plan_path)
		goto out;
	spatch_run_files(env, "patch", sfiles, plan_path, NULL, true);
	if (interrupted()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
			    "interrupted");
		goto out;
	}
	for (guint i = 0; i < planned->len; i++) {
		if (read_result(planned->pdata[i], sfiles->pdata[i],
				blanked->pdata[i]))
			continue;
		g_ptr_array_add(redo, planned->pdata[i]);
		g_ptr_array_add(redo_sf, sfiles->pdata[i]);
	}
	if (redo->len &&
	    !redo_unblanked(env, redo, redo_sf, plan_path, round, error))
		goto out;
	for (guint i = 0; i < planned->len; i++) {
		struct cfile *f = planned->pdata[i];

		f->compat_missing = f->compat_include && (!f->done ||
			!facts_done(f->done, "compat", "include"));
	}
	ok = true;
out:
	json_object_unref(all);
	g_free(plan_path);
	g_ptr_array_free(sfiles, TRUE);
	g_ptr_array_free(planned, TRUE);
	g_ptr_array_free(blanked, TRUE);
	g_ptr_array_free(redo, TRUE);
	g_ptr_array_free(redo_sf, TRUE);
	return ok;
}

bool rewrite_run(struct conversion *cv, struct spatch_env *env,
		 GError **error)
{
	GHashTable *dirty = NULL;
	guint round = 0;

	/* --verify: build the units' files as they are, once */
	if (cv->verify && !verify_before(cv, error))
		return false;
	for (;;) {
		GPtrArray *files = planned_files(cv, dirty);
		GHashTable *failed = g_hash_table_new(NULL, NULL);
		bool ok = rewrite_round(cv, env, files, round, error);

		for (guint i = 0; ok && i < files->len; i++)
			verify(cv, files->pdata[i], failed);
		/* --verify: a round as planned is built; what fails is redone */
		if (ok && cv->verify && !g_hash_table_size(failed) &&
		    !verify_round(cv, failed, error))
			ok = false;
		g_ptr_array_free(files, TRUE);
		if (dirty)
			g_hash_table_destroy(dirty);
		dirty = NULL;
		if (!ok || !g_hash_table_size(failed)) {
			g_hash_table_destroy(failed);
			return ok;
		}
		dirty = dirty_files(failed);
		g_hash_table_destroy(failed);
		round++;
	}
}
