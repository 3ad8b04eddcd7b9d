// SPDX-License-Identifier: GPL-2.0
/*
 * The summary (stderr) and the JSON report (--report FILE).  Every site
 * the scan saw is there, converted or refused with its reason, and the
 * counts add up to what the scan found.
 */
#include <stdio.h>
#include <string.h>

#include "damage.h"
#include "diff.h"
#include "pathname.h"
#include "report.h"
#include "util.h"
#include "verify.h"
#include "version.h"

const char *csite_kind(const struct csite *s)
{
	return site_kind(s->site);
}

struct tally {
	guint sites, converted, refused;
	guint kept;		/* converted with their data kept */
	GHashTable *reasons;	/* reason -> GPtrArray of its csites */
	GPtrArray *order;	/* reasons, first seen first */
};

/* How many sites of a reason the summary names without -v. */
#define SUMMARY_SITES	3

static void tally(struct run *r, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	t->reasons = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					   (GDestroyNotify)g_ptr_array_unref);
	t->order = g_ptr_array_new();
	for (guint i = 0; r->cv.sites && i < r->cv.sites->len; i++) {
		struct csite *s = r->cv.sites->pdata[i];
		GPtrArray *sites;

		if (!csite_counted(s))
			continue;
		t->sites++;
		if (s->outcome == OUT_CONVERTED) {
			t->converted++;
			t->kept += s->unit && s->unit->kept;
			continue;
		}
		t->refused++;
		sites = g_hash_table_lookup(t->reasons, s->reason);
		if (!sites) {
			sites = g_ptr_array_new();
			g_ptr_array_add(t->order, s->reason);
			g_hash_table_insert(t->reasons, s->reason, sites);
		}
		g_ptr_array_add(sites, s);
	}
}

static guint tally_count(struct tally *t, const char *reason)
{
	return ((GPtrArray *)g_hash_table_lookup(t->reasons, reason))->len;
}

static void tally_clear(struct tally *t)
{
	g_hash_table_destroy(t->reasons);
	g_ptr_array_free(t->order, TRUE);
}

static int cmp_site(gconstpointer a, gconstpointer b)
{
	const struct csite *x = *(struct csite *const *)a;
	const struct csite *y = *(struct csite *const *)b;
	int c = strcmp(x->file->path, y->file->path);

	if (c)
		return c;
	if (x->site->line != y->site->line)
		return x->site->line < y->site->line ? -1 : 1;
	return x->site->col < y->site->col ? -1 : x->site->col > y->site->col;
}

/*
 * Where a reason's sites are, gcc-style: the first SUMMARY_SITES on one
 * line, or with verbose every one on a line of its own.
 */
static void print_sites(GPtrArray *sites, bool verbose)
{
	guint shown = verbose ? sites->len : MIN(sites->len, SUMMARY_SITES);

	g_ptr_array_sort(sites, cmp_site);
	for (guint i = 0; i < shown; i++) {
		struct csite *s = sites->pdata[i];

		fprintf(stderr, "%s%s:%u:%u", verbose ? "timerconv:          " :
					     i ? ", " : "timerconv:          ",
			s->file->path, s->site->line, s->site->col + 1);
		if (verbose)
			fputc('\n', stderr);
	}
	if (verbose)
		return;
	if (shown < sites->len)
		fprintf(stderr, " and %u more (-v lists them all)",
			sites->len - shown);
	fputc('\n', stderr);
}

static guint units_converted(struct run *r)
{
	guint n = 0;

	for (guint i = 0; r->cv.units && i < r->cv.units->len; i++)
		if (!((struct unit *)r->cv.units->pdata[i])->reason)
			n++;
	return n;
}

void report_summary(struct run *r)
{
	report_summary_full(r, false);
}

void report_summary_full(struct run *r, bool verbose)
{
	GPtrArray *changed = pipeline_changed(r);
	struct tally t;

	tally(r, &t);
	fprintf(stderr, "timerconv: %s\n", r->target.note);
	fprintf(stderr,
		"timerconv: %u old-API site%s found: %u converted, %u refused; %u file%s changed; %u of %u unit%s converted\n",
		t.sites, t.sites == 1 ? "" : "s", t.converted, t.refused,
		changed->len, changed->len == 1 ? "" : "s",
		units_converted(r), r->cv.units ? r->cv.units->len : 0,
		r->cv.units && r->cv.units->len == 1 ? "" : "s");
	if (t.kept)
		fprintf(stderr, "timerconv:   %4u converted (data kept beside the timer: --keep-data)\n",
			t.kept);
	for (guint i = 0; i < t.order->len; i++) {
		const char *reason = t.order->pdata[i];

		fprintf(stderr, "timerconv:   %4u refused: %s\n",
			tally_count(&t, reason), reason);
		print_sites(g_hash_table_lookup(t.reasons, reason), verbose);
	}
	for (guint i = 0; r->cv.files && i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];

		if (f->damage)
			fprintf(stderr, "timerconv: warning: %s:%u: %s: the file is left alone\n",
				f->path, f->damage_line,
				!strcmp(f->damage, DAMAGE_CONFLICT) ?
				"merge conflict marker" :
				"comment not closed before the end of the file");
		if (f->conflict_line && !f->damage)
			fprintf(stderr, "timerconv: warning: %s:%u: merge conflict marker around preprocessor lines only: the code converts as if it were not there; resolve the conflict before building\n",
				f->path, f->conflict_line);
		if (f->compat_missing)
			fprintf(stderr, "timerconv: warning: %s: could not add the #include of %s (it has no #include to put it after): its units are refused\n",
				f->path, r->cv.compat_header);
		if (f->timed_out)
			fprintf(stderr, "timerconv: %s: spatch timed out; its sites are refused\n",
				f->path);
		else if (f->spatch_error)
			fprintf(stderr, "timerconv: %s: spatch failed; its sites are refused\n",
				f->path);
	}
	verify_summary(&r->cv, stderr);
	if (!r->target.has_timer_setup && !r->cv.compat_header)
		fprintf(stderr, "timerconv: warning: %s has no timer_setup(): converted code needs v4.14-rc3 or later (686fef928bba)\n",
			r->target.header ? r->target.header : "the tree");
	tally_clear(&t);
	g_ptr_array_free(changed, TRUE);
}

/* val may hold a file name that is not UTF-8: JSON's must be */
static void add_value(JsonBuilder *b, const char *val)
{
	char *u = text_utf8(val);

	json_builder_add_string_value(b, u);
	g_free(u);
}

static void add_str(JsonBuilder *b, const char *key, const char *val)
{
	json_builder_set_member_name(b, key);
	if (val)
		add_value(b, val);
	else
		json_builder_add_null_value(b);
}

static void add_int(JsonBuilder *b, const char *key, gint64 val)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, val);
}

static void unit_files(JsonBuilder *b, struct unit *u)
{
	GPtrArray *paths = g_ptr_array_new();
	GHashTableIter it;
	gpointer f;

	g_hash_table_iter_init(&it, u->files);
	while (g_hash_table_iter_next(&it, &f, NULL))
		g_ptr_array_add(paths, ((struct cfile *)f)->path);
	g_ptr_array_sort(paths, cmp_strings);
	json_builder_begin_array(b);
	for (guint i = 0; i < paths->len; i++)
		add_value(b, paths->pdata[i]);
	json_builder_end_array(b);
	g_ptr_array_free(paths, TRUE);
}

static void site_record(JsonBuilder *b, struct conversion *cv,
			struct csite *s)
{
	json_builder_begin_object(b);
	add_str(b, "file", s->file->path);
	add_int(b, "line", s->site->line);
	add_int(b, "column", s->site->col + 1);
	add_str(b, "kind", csite_kind(s));
	add_str(b, "outcome", s->outcome == OUT_CONVERTED ? "converted" :
							    "refused");
	add_str(b, "reason", s->outcome == OUT_CONVERTED ? NULL : s->reason);
	if (s->outcome == OUT_CONVERTED && s->unit && s->unit->kept)
		add_str(b, "data_kept", s->unit->kept);
	add_str(b, "callback", s->callback);
	json_builder_set_member_name(b, "unit");
	if (s->unit)
		json_builder_add_int_value(b, s->unit->id);
	else
		json_builder_add_null_value(b);
	json_builder_set_member_name(b, "unit_files");
	if (s->unit) {
		unit_files(b, s->unit);
	} else {
		json_builder_begin_array(b);
		add_value(b, s->file->path);
		json_builder_end_array(b);
	}
	if (cv->verify)
		add_str(b, "verify", verify_site(cv, s));
	json_builder_end_object(b);
}

static void unit_record(JsonBuilder *b, struct unit *u)
{
	json_builder_begin_object(b);
	add_int(b, "id", u->id);
	add_str(b, "outcome", u->reason ? "refused" : "converted");
	add_str(b, "reason", u->reason);
	add_str(b, "where", u->where);
	if (!u->reason && u->kept)
		add_str(b, "data_kept", u->kept);
	json_builder_set_member_name(b, "callbacks");
	json_builder_begin_array(b);
	for (guint i = 0; i < u->cb_names->len; i++)
		add_value(b, u->cb_names->pdata[i]);
	json_builder_end_array(b);
	json_builder_set_member_name(b, "files");
	unit_files(b, u);
	json_builder_set_member_name(b, "changes");
	json_builder_begin_array(b);
	for (guint i = 0; !u->reason && i < u->items->len; i++) {
		struct plan_item *it = u->items->pdata[i];

		json_builder_begin_object(b);
		add_str(b, "file", it->file->path);
		add_int(b, "line", it->at.line);
		add_int(b, "column", it->at.col + 1);
		add_str(b, "kind", it->what);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
}

/* The files spatch timed out on (or failed on, timed_out false). */
static void add_files(JsonBuilder *b, const char *key, struct run *r,
		      bool timed_out)
{
	json_builder_set_member_name(b, key);
	json_builder_begin_array(b);
	for (guint i = 0; r->cv.files && i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];

		if (timed_out ? f->timed_out :
				(f->spatch_error && !f->timed_out))
			add_value(b, f->path);
	}
	json_builder_end_array(b);
}

bool report_write(struct run *r, const char *path, GError **error)
{
	JsonBuilder *b = json_builder_new();
	GPtrArray *changed = pipeline_changed(r);
	struct tally t;
	bool ok;

	tally(r, &t);
	json_builder_begin_object(b);
	add_str(b, "tool", "timerconv");
	add_str(b, "version", TIMERCONV_VERSION);
	add_str(b, "tree", r->tree.root);
	json_builder_set_member_name(b, "target");
	json_builder_begin_object(b);
	add_str(b, "level", api_level_name(r->target.level));
	add_str(b, "header", r->target.header);
	json_builder_set_member_name(b, "auto");
	json_builder_add_boolean_value(b, r->target.is_auto);
	add_str(b, "container_of", r->target.container_of);
	add_str(b, "note", r->target.note);
	json_builder_end_object(b);

	json_builder_set_member_name(b, "summary");
	json_builder_begin_object(b);
	add_int(b, "sites", t.sites);
	add_int(b, "converted", t.converted);
	add_int(b, "refused", t.refused);
	add_int(b, "files_scanned", r->nfiles_scanned);
	add_int(b, "files_changed", changed->len);
	add_int(b, "units", r->cv.units ? r->cv.units->len : 0);
	add_int(b, "units_converted", units_converted(r));
	add_files(b, "files_timed_out", r, true);
	add_files(b, "files_failed", r, false);
	json_builder_set_member_name(b, "refused_by_reason");
	json_builder_begin_object(b);
	for (guint i = 0; i < t.order->len; i++) {
		char *reason = text_utf8(t.order->pdata[i]);

		add_int(b, reason, tally_count(&t, t.order->pdata[i]));
		g_free(reason);
	}
	json_builder_end_object(b);
	verify_json(&r->cv, b);
	json_builder_end_object(b);

	json_builder_set_member_name(b, "sites");
	json_builder_begin_array(b);
	for (guint i = 0; r->cv.sites && i < r->cv.sites->len; i++)
		if (csite_counted(r->cv.sites->pdata[i]))
			site_record(b, &r->cv, r->cv.sites->pdata[i]);
	json_builder_end_array(b);

	json_builder_set_member_name(b, "units");
	json_builder_begin_array(b);
	for (guint i = 0; r->cv.units && i < r->cv.units->len; i++)
		unit_record(b, r->cv.units->pdata[i]);
	json_builder_end_array(b);

	json_builder_set_member_name(b, "files_changed");
	json_builder_begin_array(b);
	for (guint i = 0; i < changed->len; i++)
		add_value(b, ((struct cfile *)changed->pdata[i])->path);
	json_builder_end_array(b);
	json_builder_end_object(b);
	ok = write_json_atomic(path, b, 0644, error);
	g_object_unref(b);
	tally_clear(&t);
	g_ptr_array_free(changed, TRUE);
	return ok;
}
