// SPDX-License-Identifier: GPL-2.0
/*
 * The planner: arbitrary sets of the facts it consumes -> bind, decide,
 * plan, for one or several files, as the pipeline runs it (scan of each
 * file's text, callback uses, the records spatch printed, the struct
 * index), then the report and the summary written from the result.
 *
 * An input is the format of tool/facts/facts_dump.h: real runs recorded
 * with TIMERCONV_FACTS_DUMP are the seeds (fuzz/run.py makes them), and
 * a custom mutator changes them the ways real facts go wrong: a field
 * dropped or null, names swapped, a record duplicated or dropped, a
 * record pointing at another file, a member chain cut, positions moved,
 * scope and spatch failure flipped, and the C text mutated bytewise.
 *
 * Asserted, beyond "no crash":
 *   - every site the scan saw gets exactly one outcome, and a refused
 *     site has a reason;
 *   - a unit is converted in all of its files or none: every site of a
 *     converted unit is converted, every site of a refused one refused,
 *     and a converted site's file has a change of its unit planned;
 *   - the JSON report's counts are those of its sites and units, and the
 *     summary line prints the same numbers;
 *   - a file planned alone (the facts+patch pass) obeys the same.
 */
#include <fcntl.h>
#include <json-glib/json-glib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "conv.h"
#include "pipeline.h"
#include "report.h"
#include "speculate.h"
#include "treescan.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1,
				 const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed);

#define MAX_FILES 16

/* ---- the input ---- */

struct pfile {
	char *path;
	char *flags;		/* in, out, idx, failed */
	GString *text;
};

struct pinput {
	char *level;
	bool paths;
	GPtrArray *files;	/* struct pfile * */
	GPtrArray *recs;	/* char *: the JSON of each record */
	bool report;		/* check the report and summary */
};

static void pfile_free(gpointer p)
{
	struct pfile *f = p;

	g_free(f->path);
	g_free(f->flags);
	g_string_free(f->text, TRUE);
	g_free(f);
}

static void pinput_free(struct pinput *in)
{
	g_free(in->level);
	g_ptr_array_free(in->files, TRUE);
	g_ptr_array_free(in->recs, TRUE);
	g_free(in);
}

static struct pfile *pfile_new(const char *path, const char *flags)
{
	struct pfile *f = g_new0(struct pfile, 1);

	f->path = g_strdup(path);
	f->flags = g_strdup(flags);
	f->text = g_string_new(NULL);
	return f;
}

/* NULL when the input is not of the format. */
static struct pinput *pinput_parse(const uint8_t *data, size_t size)
{
	struct pinput *in;
	struct pfile *cur = NULL;
	const char *p = (const char *)data, *end = p + size;
	const char *nl = memchr(p, '\n', size);
	char *first;

	if (!nl || size < 6 || memcmp(p, "#plan ", 6))
		return NULL;
	in = g_new0(struct pinput, 1);
	in->files = g_ptr_array_new_with_free_func(pfile_free);
	in->recs = g_ptr_array_new_with_free_func(g_free);
	first = g_strndup(p + 6, (size_t)(nl - p - 6));
	{
		char **w = g_strsplit(first, " ", 3);

		in->level = g_strdup(w[0] ? w[0] : "");
		in->paths = w[0] && w[1] && !strcmp(w[1], "paths");
		g_strfreev(w);
	}
	g_free(first);
	for (p = nl + 1; p < end;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		size_t len = e ? (size_t)(e - p) + 1 : (size_t)(end - p);

		if (len > 6 && !memcmp(p, "#file ", 6)) {
			char *line = g_strndup(p + 6, len - 6);
			char *sp;

			g_strchomp(line);
			sp = strrchr(line, ' ');
			if (sp)
				*sp = '\0';
			if (in->files->len < MAX_FILES && line[0]) {
				cur = pfile_new(line, sp ? sp + 1 : "in");
				g_ptr_array_add(in->files, cur);
			} else {
				cur = NULL;
			}
			g_free(line);
		} else if (len > 5 && !memcmp(p, "#rec ", 5)) {
			g_ptr_array_add(in->recs, g_strndup(p + 5, e ? len - 6 :
							       len - 5));
		} else if (cur) {
			g_string_append_len(cur->text, p, (gssize)len);
		}
		p += len;
	}
	return in;
}

static GString *pinput_write(const struct pinput *in)
{
	GString *out = g_string_new(NULL);

	g_string_append_printf(out, "#plan %s%s\n", in->level,
			       in->paths ? " paths" : "");
	for (guint i = 0; i < in->files->len; i++) {
		struct pfile *f = in->files->pdata[i];

		g_string_append_printf(out, "#file %s %s\n", f->path, f->flags);
		g_string_append_len(out, f->text->str, (gssize)f->text->len);
		if (f->text->len && f->text->str[f->text->len - 1] != '\n')
			g_string_append_c(out, '\n');
	}
	for (guint i = 0; i < in->recs->len; i++)
		g_string_append_printf(out, "#rec %s\n",
				       (char *)in->recs->pdata[i]);
	return out;
}

/* ---- the run ---- */

static struct target *target_of(const char *level)
{
	static struct target targets[5];
	static const char *const names[] = { "v4.15", "v4.14", "v6.2",
					     "v6.16", NULL };
	int i;

	for (i = 0; names[i] && strcmp(names[i], level); i++)
		;
	if (!names[i])
		i = 0;
	if (!targets[i].note)
		FUZZ_ASSERT(target_resolve(&targets[i], names[i], "/", NULL,
					   NULL, NULL));
	return &targets[i];
}

static bool flag_is(const struct pfile *f, const char *flag)
{
	return !strcmp(f->flags, flag);
}

/* The timer names of the quoted headers f includes, among the input's. */
static GHashTable *header_names(const struct pinput *in, const char *path,
				GHashTable *scans, struct scan_result *res,
				const struct scan_opts *opts)
{
	GHashTable *merged = NULL;

	for (guint k = 0; k < res->includes->len; k++) {
		char *dir = g_path_get_dirname(path);
		char *joined = g_build_filename(dir, res->includes->pdata[k],
						NULL);
		char *rel = path_normalize(joined);
		struct scan_result *h = NULL;
		GHashTableIter it;
		gpointer key;

		g_free(dir);
		g_free(joined);
		/* each header scanned once, when a file includes it */
		if (!g_hash_table_lookup_extended(scans, rel, NULL,
						  (gpointer *)&h)) {
			for (guint i = 0; i < in->files->len; i++) {
				struct pfile *pf = in->files->pdata[i];

				if (strcmp(pf->path, rel))
					continue;
				h = scan_file(pf->text->str, pf->text->len,
					      opts);
				g_hash_table_insert(scans, g_strdup(rel), h);
				break;
			}
			if (!h)
				g_hash_table_insert(scans, g_strdup(rel), NULL);
		}
		g_free(rel);
		if (!h || h == res)
			continue;
		if (!merged)
			merged = g_hash_table_new(g_str_hash, g_str_equal);
		g_hash_table_iter_init(&it, h->timer_names);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_hash_table_add(merged, key);
	}
	return merged;
}

static bool has_work(const struct cfile *f)
{
	for (guint i = 0; i < f->scan->sites->len; i++)
		if (!g_array_index(f->scan->sites, struct site, i).compat)
			return true;
	return f->refs->len > 0;
}

/* ---- the invariants ---- */

static bool unit_plans_file(const struct unit *u, const struct cfile *f)
{
	for (guint i = 0; i < u->items->len; i++)
		if (((struct plan_item *)u->items->pdata[i])->file == f)
			return true;
	return false;
}

static void check_plan(struct conversion *cv)
{
	GHashTable *seen = g_hash_table_new(NULL, NULL);
	guint nsites = 0;

	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		nsites += f->scan ? f->scan->sites->len : 0;
	}
	/* every site of the scan once, with one outcome */
	FUZZ_ASSERT(cv->sites->len == nsites);
	for (guint i = 0; i < cv->sites->len; i++) {
		struct csite *s = cv->sites->pdata[i];

		FUZZ_ASSERT(g_hash_table_add(seen, (gpointer)s->site));
		FUZZ_ASSERT(s->outcome == OUT_CONVERTED ||
			    s->outcome == OUT_REFUSED);
		if (s->outcome == OUT_REFUSED) {
			FUZZ_ASSERT(s->reason && s->reason[0]);
			continue;
		}
		FUZZ_ASSERT(!s->reason);
		FUZZ_ASSERT(s->unit && !s->unit->reason);
		/* converted where its unit changes something */
		FUZZ_ASSERT(unit_plans_file(s->unit, s->file));
	}
	/* a unit is converted whole or not at all */
	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];

		if (u->reason) {
			FUZZ_ASSERT(u->reason[0]);
			for (guint k = 0; k < u->sites->len; k++)
				FUZZ_ASSERT(((struct csite *)
					     u->sites->pdata[k])->outcome ==
					    OUT_REFUSED);
			continue;
		}
		FUZZ_ASSERT(u->items->len > 0);
		for (guint k = 0; k < u->sites->len; k++) {
			struct csite *s = u->sites->pdata[k];

			if (s->outcome != OUT_CONVERTED)
				fprintf(stderr, "%s:%u: refused in converted unit %u: %s\n",
					s->file->path, s->site->line, u->id,
					s->reason);
			FUZZ_ASSERT(s->unit == u);
			FUZZ_ASSERT(s->outcome == OUT_CONVERTED);
		}
		for (guint k = 0; k < u->items->len; k++) {
			struct plan_item *it = u->items->pdata[k];

			FUZZ_ASSERT(it->unit == u);
			FUZZ_ASSERT(g_hash_table_contains(u->files, it->file));
			FUZZ_ASSERT(it->key && it->entry);
		}
	}
	g_hash_table_destroy(seen);
}

/* The rules name a change by its section and key: two changes of a file
 * named alike must be the same change, or one of them is lost. */
static void check_keys(struct conversion *cv, struct cfile *f)
{
	GPtrArray *items = plan_items(cv, f);
	GHashTable *by_key = g_hash_table_new_full(g_str_hash, g_str_equal,
						   g_free, g_free);

	for (guint i = 0; i < items->len; i++) {
		struct plan_item *it = items->pdata[i];
		char *key = g_strdup_printf("%s\n%s", it->section, it->key);
		char *entry = plan_canonical(it->entry);
		const char *had = g_hash_table_lookup(by_key, key);

		if (had && strcmp(had, entry))
			fprintf(stderr, "%s: %s %s: %s and %s\n", f->path,
				it->section, it->key, had, entry);
		FUZZ_ASSERT(!had || !strcmp(had, entry));
		if (had) {
			g_free(key);
			g_free(entry);
		} else {
			g_hash_table_insert(by_key, key, entry);
		}
	}
	g_hash_table_destroy(by_key);
	g_ptr_array_free(items, TRUE);
}

static gint64 member_int(JsonObject *o, const char *name)
{
	FUZZ_ASSERT(json_object_has_member(o, name));
	return json_object_get_int_member(o, name);
}

/* The report's counts are those of its own lists. */
static void check_report_json(const char *path, gint64 counts[5])
{
	JsonParser *parser = json_parser_new();
	GError *err = NULL;
	JsonObject *root, *sum, *reasons;
	JsonArray *sites, *units;
	gint64 converted = 0, refused = 0, by_reason = 0, units_ok = 0;
	GHashTable *unit_ok = g_hash_table_new(NULL, NULL);
	GList *members;

	if (!json_parser_load_from_file(parser, path, &err)) {
		fprintf(stderr, "%s: %s\n", path, err->message);
		FUZZ_ASSERT(!"the report is not JSON");
	}
	root = json_node_get_object(json_parser_get_root(parser));
	sum = json_object_get_object_member(root, "summary");
	sites = json_object_get_array_member(root, "sites");
	units = json_object_get_array_member(root, "units");
	for (guint i = 0; i < json_array_get_length(units); i++) {
		JsonObject *u = json_array_get_object_element(units, i);
		bool ok = !strcmp(json_object_get_string_member(u, "outcome"),
				  "converted");

		units_ok += ok;
		if (ok)
			g_hash_table_add(unit_ok, GINT_TO_POINTER(
				(gint)member_int(u, "id")));
	}
	for (guint i = 0; i < json_array_get_length(sites); i++) {
		JsonObject *s = json_array_get_object_element(sites, i);
		const char *out = json_object_get_string_member(s, "outcome");
		JsonNode *unit = json_object_get_member(s, "unit");

		if (!strcmp(out, "converted")) {
			converted++;
			FUZZ_ASSERT(JSON_NODE_HOLDS_NULL(
				json_object_get_member(s, "reason")));
			FUZZ_ASSERT(!JSON_NODE_HOLDS_NULL(unit));
			gint id = (gint)json_node_get_int(unit);

			FUZZ_ASSERT(g_hash_table_contains(unit_ok,
							  GINT_TO_POINTER(id)));
		} else {
			refused++;
			FUZZ_ASSERT(json_object_get_string_member(s, "reason"));
		}
	}
	reasons = json_object_get_object_member(sum, "refused_by_reason");
	members = json_object_get_members(reasons);
	for (GList *l = members; l; l = l->next)
		by_reason += json_object_get_int_member(reasons, l->data);
	g_list_free(members);
	FUZZ_ASSERT(member_int(sum, "sites") ==
		    (gint64)json_array_get_length(sites));
	FUZZ_ASSERT(member_int(sum, "converted") == converted);
	FUZZ_ASSERT(member_int(sum, "refused") == refused);
	FUZZ_ASSERT(by_reason == refused);
	FUZZ_ASSERT(member_int(sum, "units") ==
		    (gint64)json_array_get_length(units));
	FUZZ_ASSERT(member_int(sum, "units_converted") == units_ok);
	FUZZ_ASSERT(member_int(sum, "files_changed") ==
		    (gint64)json_array_get_length(
			json_object_get_array_member(root, "files_changed")));
	counts[0] = member_int(sum, "sites");
	counts[1] = converted;
	counts[2] = refused;
	counts[3] = member_int(sum, "files_changed");
	counts[4] = units_ok;
	g_hash_table_destroy(unit_ok);
	g_object_unref(parser);
}

/* What report_summary() prints, read back from a memory file. */
static char *summary_text(struct run *r)
{
	static int mfd = -1;
	int saved;
	off_t len;
	char *text;

	if (mfd < 0)
		mfd = memfd_create("summary", 0);
	FUZZ_ASSERT(mfd >= 0);
	FUZZ_ASSERT(ftruncate(mfd, 0) == 0);
	lseek(mfd, 0, SEEK_SET);
	fflush(stderr);
	saved = dup(2);
	dup2(mfd, 2);
	report_summary(r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = lseek(mfd, 0, SEEK_CUR);
	text = g_malloc0((size_t)len + 1);
	FUZZ_ASSERT(pread(mfd, text, (size_t)len, 0) == len);
	return text;
}

static void check_report(struct run *r, const char *dir)
{
	char *path = g_build_filename(dir, "report.json", NULL);
	char *text = summary_text(r);
	const char *line = strstr(text, " old-API site");
	gint64 counts[5];
	unsigned int s, c, rf, fc, uc, un;

	FUZZ_ASSERT(report_write(r, path, NULL));
	check_report_json(path, counts);
	FUZZ_ASSERT(line);
	while (line > text && line[-1] != ' ')
		line--;
	FUZZ_ASSERT(sscanf(line, "%u old-API site%*[s] found: %u converted, %u refused; %u file%*[s ]changed; %u of %u unit",
			   &s, &c, &rf, &fc, &uc, &un) == 6 ||
		    sscanf(line, "%u old-API site found: %u converted, %u refused; %u file%*[s ]changed; %u of %u unit",
			   &s, &c, &rf, &fc, &uc, &un) == 6);
	FUZZ_ASSERT(s == counts[0] && c == counts[1] && rf == counts[2] &&
		    fc == counts[3] && uc == counts[4] &&
		    un == r->cv.units->len);
	unlink(path);
	g_free(path);
	g_free(text);
}

/* The facts+patch pass plans a file with only itself known
 * (speculate.c's plan_group() with a group of one). */
static void check_alone(struct conversion *cv, struct cfile *f)
{
	struct conversion sub = {
		.tree = cv->tree, .target = cv->target,
		.structs = cv->structs, .all_files = cv->all_files, .jobs = 1,
	};
	struct cfile copy = *f;
	JsonObject *plan;

	copy.tokens = NULL;
	copy.ntok = 0;
	sub.files = g_ptr_array_new();
	sub.by_path = g_hash_table_new(g_str_hash, g_str_equal);
	g_ptr_array_add(sub.files, &copy);
	g_hash_table_insert(sub.by_path, copy.path, &copy);
	sub.sites = g_ptr_array_new();
	sub.units = g_ptr_array_new();
	plan_build(&sub);
	check_plan(&sub);
	plan = plan_for_file(&sub, &copy);
	g_free(plan_canonical(plan));
	if (plan)
		json_object_unref(plan);
	plan_free(&sub);
	g_free(copy.tokens);
	g_ptr_array_free(sub.files, TRUE);
	g_hash_table_destroy(sub.by_path);
}

static char *work_dir(void)
{
	static char *dir;

	if (!dir) {
		/* in memory where there is: the report is fsynced */
		if (g_file_test("/dev/shm", G_FILE_TEST_IS_DIR))
			dir = g_mkdtemp(g_strdup(
				"/dev/shm/timerconv-fuzz-plan-XXXXXX"));
		if (!dir)
			dir = g_dir_make_tmp("timerconv-fuzz-plan-XXXXXX",
					     NULL);
		FUZZ_ASSERT(dir);
	}
	return dir;
}

static void run_input(struct pinput *in)
{
	struct target *tg = target_of(in->level);
	struct scan_opts sopts = { tg->renames };
	/* header scans, by path (NULL: the input lacks it) */
	GHashTable *scans = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, (GDestroyNotify)scan_result_free);
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	struct cb_names names;
	GHashTable *by_file;
	GString *records = g_string_new(NULL);
	struct run r;

	memset(&r, 0, sizeof(r));
	r.tree.root = "fuzz";
	r.target = *tg;
	r.cv.tree = &r.tree;
	r.cv.target = &r.target;
	r.cv.files = g_ptr_array_new_with_free_func((GDestroyNotify)cfile_free);
	r.cv.by_path = g_hash_table_new(g_str_hash, g_str_equal);
	r.cv.sites = g_ptr_array_new();
	r.cv.units = g_ptr_array_new();
	r.cv.all_files = g_ptr_array_new();
	r.cv.jobs = 1;
	r.cv.structs = structs_new();
	for (guint i = 0; i < in->files->len; i++) {
		struct pfile *pf = in->files->pdata[i];

		if (g_hash_table_contains(seen, pf->path))
			continue;
		g_hash_table_add(seen, pf->path);
		g_ptr_array_add(r.cv.all_files, pf->path);
		structs_add_file(r.cv.structs, pf->path, pf->text->str,
				 pf->text->len);
	}
	g_hash_table_destroy(seen);
	/* the files of the conversion, resolved with their headers' timers */
	for (guint i = 0; i < in->files->len; i++) {
		struct pfile *pf = in->files->pdata[i];
		struct scan_result *res;
		GHashTable *merged;
		struct cfile *f;

		if (flag_is(pf, "idx") || conv_file(&r.cv, pf->path))
			continue;
		res = scan_file(pf->text->str, pf->text->len, &sopts);
		merged = header_names(in, pf->path, scans, res, &sopts);
		scan_resolve(res, merged);
		if (merged)
			g_hash_table_destroy(merged);
		f = cfile_new(pf->path, g_strndup(pf->text->str, pf->text->len),
			      pf->text->len);
		f->scan = res;
		f->in_scope = !flag_is(pf, "out");
		if (flag_is(pf, "failed"))
			f->spatch_error = g_strdup("spatch failed");
		g_ptr_array_add(r.cv.files, f);
		g_hash_table_insert(r.cv.by_path, f->path, f);
	}
	cb_names_init(&names);
	cb_names_collect(&names, r.cv.files);
	for (guint i = 0; i < r.cv.files->len; i++) {
		refs_find(r.cv.files->pdata[i], &names);
		cfile_forget_tokens(r.cv.files->pdata[i]);
	}
	cb_names_clear(&names);
	/* the records, to the files they name, as spatch.c's collect() */
	for (guint i = 0; i < in->recs->len; i++)
		g_string_append_printf(records, "TIMERCONV %s\n",
				       (char *)in->recs->pdata[i]);
	by_file = facts_parse_files(records->str);
	for (guint i = 0; i < r.cv.files->len; i++) {
		struct cfile *f = r.cv.files->pdata[i];
		gpointer key, val;

		if (!has_work(f))
			continue;
		if (g_hash_table_steal_extended(by_file, f->path, &key, &val)) {
			g_free(key);
			if (f->spatch_error) {
				facts_free(val);
				val = NULL;
			}
			f->facts = val;
		}
		if (!f->facts)
			f->facts = facts_parse("");
	}
	g_hash_table_destroy(by_file);
	g_string_free(records, TRUE);

	plan_build(&r.cv);
	if (in->paths)
		plan_keep_in_scope(&r.cv);
	/* spatch did as planned: every planned file changes */
	for (guint i = 0; i < r.cv.files->len; i++) {
		struct cfile *f = r.cv.files->pdata[i];
		JsonObject *plan = plan_for_file(&r.cv, f);

		if (!plan)
			continue;
		check_keys(&r.cv, f);
		g_free(plan_canonical(plan));
		json_object_unref(plan);
		f->new_text = g_strdup_printf("%s\n", f->text);
		f->new_len = f->len + 1;
	}
	plan_settle(&r.cv);
	check_plan(&r.cv);
	/* the report costs as much as the rest: one input in four, chosen
	 * by its bytes so that a finding replays */
	if (in->report)
		check_report(&r, work_dir());
	for (guint i = 0; i < r.cv.files->len; i++) {
		struct cfile *f = r.cv.files->pdata[i];

		if (f->facts) {
			check_alone(&r.cv, f);
			break;
		}
	}

	plan_free(&r.cv);
	g_ptr_array_free(r.cv.files, TRUE);
	g_hash_table_destroy(r.cv.by_path);
	g_ptr_array_free(r.cv.all_files, TRUE);
	structs_free(r.cv.structs);
	g_hash_table_destroy(scans);
}

/* A record json-glib would leak on (see fuzz.h). */
static bool json_glib_leaks(const struct pinput *in)
{
	for (guint i = 0; i < in->recs->len; i++) {
		const char *r = in->recs->pdata[i];

		if (fuzz_json_glib_leaks(r, strlen(r)))
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pinput *in;

	fuzz_init();
	in = pinput_parse(data, size);
	if (!in)
		return 0;
	in->report = size % 4 == 0;
	if (!json_glib_leaks(in))
		run_input(in);
	pinput_free(in);
	return 0;
}

/* ---- the mutator ---- */

static unsigned int rnd(unsigned int *state, unsigned int n)
{
	*state = *state * 1103515245u + 12345u;
	return n ? (*state >> 8) % n : 0;
}

/* A record as an object (NULL if it is not one); free with the parser. */
static JsonObject *rec_object(JsonParser *p, const char *text)
{
	JsonNode *root;

	if (!json_parser_load_from_data(p, text, -1, NULL))
		return NULL;
	root = json_parser_get_root(p);
	return root && JSON_NODE_HOLDS_OBJECT(root) ?
	       json_node_get_object(root) : NULL;
}

static char *rec_text(JsonObject *o)
{
	JsonNode *n = json_node_new(JSON_NODE_OBJECT);
	char *text;

	json_node_set_object(n, o);
	text = json_to_string(n, FALSE);
	json_node_unref(n);
	return text;
}

/* A member name of o, or NULL. */
static const char *pick_member(JsonObject *o, unsigned int *st,
			       bool strings_only)
{
	GList *all = json_object_get_members(o), *cand = NULL;
	const char *name = NULL;

	for (GList *l = all; l; l = l->next) {
		JsonNode *n = json_object_get_member(o, l->data);

		if (!strings_only || (JSON_NODE_HOLDS_VALUE(n) &&
				      json_node_get_value_type(n) ==
				      G_TYPE_STRING))
			cand = g_list_prepend(cand, l->data);
	}
	if (cand)
		name = g_list_nth_data(cand, rnd(st, g_list_length(cand)));
	g_list_free(cand);
	g_list_free(all);
	return name;
}

/* Cut a member chain: "& p -> a . t" loses its last or first hop. */
static char *cut_chain(const char *s, bool last)
{
	const char *arrow = last ? g_strrstr(s, "->") : strstr(s, "->");
	const char *dot = last ? strrchr(s, '.') : strchr(s, '.');
	const char *at = !arrow ? dot : !dot ? arrow :
			 last ? MAX(arrow, dot) : MIN(arrow, dot);

	if (!at)
		return NULL;
	if (last)
		return g_strndup(s, (size_t)(at - s));
	return g_strdup(at + (*at == '.' ? 1 : 2));
}

/* An identifier of some file's text, for a name to put in a record. */
static char *some_ident(struct pinput *in, unsigned int *st)
{
	struct pfile *f;
	const char *p, *start;
	size_t len;

	if (!in->files->len)
		return NULL;
	f = in->files->pdata[rnd(st, in->files->len)];
	if (!f->text->len)
		return NULL;
	p = f->text->str + rnd(st, (unsigned int)f->text->len);
	while (*p && !(g_ascii_isalpha(*p) || *p == '_'))
		p++;
	start = p;
	while (*p && (g_ascii_isalnum(*p) || *p == '_'))
		p++;
	len = (size_t)(p - start);
	return len ? g_strndup(start, len) : NULL;
}

static bool mutate_record(struct pinput *in, unsigned int *st)
{
	JsonParser *parser = json_parser_new();
	guint i = rnd(st, in->recs->len);
	JsonObject *o = rec_object(parser, in->recs->pdata[i]);
	const char *m;
	bool done = true;

	if (!o) {
		g_object_unref(parser);
		return false;
	}
	switch (rnd(st, 9)) {
	case 0:		/* drop a field */
		m = pick_member(o, st, false);
		if (m)
			json_object_remove_member(o, m);
		break;
	case 1:		/* null a field */
		m = pick_member(o, st, false);
		if (m)
			json_object_set_null_member(o, m);
		break;
	case 2:		/* point at another file */
		if (in->files->len)
			json_object_set_string_member(o, "file",
				((struct pfile *)in->files->pdata[
				 rnd(st, in->files->len)])->path);
		break;
	case 3: {	/* cut a member chain */
		char *cut;

		m = pick_member(o, st, true);
		cut = m ? cut_chain(json_object_get_string_member(o, m),
				    rnd(st, 2)) : NULL;
		if (cut)
			json_object_set_string_member(o, m, cut);
		g_free(cut);
		break;
	}
	case 4: {	/* a name from the text */
		char *id = some_ident(in, st);

		m = pick_member(o, st, true);
		if (m && id && strcmp(m, "file") && strcmp(m, "kind"))
			json_object_set_string_member(o, m, id);
		g_free(id);
		break;
	}
	case 5: {	/* move a position */
		static const char *const nums[] = { "line", "col", "fn_line",
						    "fn_col" };
		const char *k = nums[rnd(st, 4)];
		gint64 v = json_object_has_member(o, k) &&
			   JSON_NODE_HOLDS_VALUE(json_object_get_member(o, k)) ?
			   json_object_get_int_member(o, k) : 0;

		json_object_set_int_member(o, k, v + (gint64)rnd(st, 5) - 2);
		break;
	}
	case 6: {	/* a field from the same field of another record */
		JsonParser *p2 = json_parser_new();
		JsonObject *o2 = rec_object(p2, in->recs->pdata[
					    rnd(st, in->recs->len)]);

		m = pick_member(o, st, false);
		if (o2 && m && json_object_has_member(o2, m))
			json_object_set_member(o, m, json_node_copy(
				json_object_get_member(o2, m)));
		else if (o2 && m)
			json_object_remove_member(o, m);
		g_object_unref(p2);
		break;
	}
	case 7: {	/* change the kind */
		static const char *const kinds[] = {
			"setup", "init", "define", "assign", "callback",
			"cast", "icast", "proto", "call", "ref", "rename",
			"type", "init_pair", "read"
		};

		guint k = rnd(st, G_N_ELEMENTS(kinds));

		json_object_set_string_member(o, "kind", kinds[k]);
		break;
	}
	default: {	/* swap two string fields of the record */
		const char *a = pick_member(o, st, true);
		const char *b = pick_member(o, st, true);

		if (a && b && strcmp(a, b)) {
			char *va;

			va = g_strdup(json_object_get_string_member(o, a));

			json_object_set_string_member(o, a,
				json_object_get_string_member(o, b));
			json_object_set_string_member(o, b, va);
			g_free(va);
		} else {
			done = false;
		}
		break;
	}
	}
	g_free(in->recs->pdata[i]);
	in->recs->pdata[i] = rec_text(o);
	g_object_unref(parser);
	return done;
}

/* LLVMFuzzerMutate() on a string, within `room` more bytes. */
static void mutate_bytes(GString *s, size_t room)
{
	size_t old = s->len;
	size_t len;

	g_string_set_size(s, old + room);
	len = LLVMFuzzerMutate((uint8_t *)s->str, old, old + room);
	g_string_set_size(s, len);
}

static void mutate(struct pinput *in, unsigned int *st, size_t room)
{
	switch (rnd(st, 10)) {
	case 0:
	case 1:
	case 2:
		if (in->recs->len && mutate_record(in, st))
			return;
		break;
	case 3:		/* drop a record */
		if (in->recs->len) {
			g_ptr_array_remove_index(in->recs,
						 rnd(st, in->recs->len));
			return;
		}
		break;
	case 4:		/* duplicate a record */
		if (in->recs->len) {
			g_ptr_array_add(in->recs, g_strdup(in->recs->pdata[
				rnd(st, in->recs->len)]));
			return;
		}
		break;
	case 5: {	/* a file's flags, the scope, the level */
		static const char *const flags[] = { "in", "out", "idx",
						     "failed" };
		static const char *const levels[] = { "v4.15", "v4.14", "v6.2",
						      "v6.16" };

		if (in->files->len && rnd(st, 3)) {
			struct pfile *f = in->files->pdata[
				rnd(st, in->files->len)];

			g_free(f->flags);
			f->flags = g_strdup(flags[rnd(st, 4)]);
		} else if (rnd(st, 2)) {
			in->paths = !in->paths;
		} else {
			g_free(in->level);
			in->level = g_strdup(levels[rnd(st, 4)]);
		}
		return;
	}
	case 6:		/* a record's text, bytewise */
		if (in->recs->len) {
			guint i = rnd(st, in->recs->len);
			GString *s = g_string_new(in->recs->pdata[i]);

			mutate_bytes(s, 64);
			/* one line a record */
			for (size_t k = 0; k < s->len; k++)
				if (s->str[k] == '\n' || !s->str[k])
					s->str[k] = ' ';
			g_free(in->recs->pdata[i]);
			in->recs->pdata[i] = g_string_free(s, FALSE);
			return;
		}
		break;
	default:
		break;
	}
	/* a file's C text, bytewise */
	if (in->files->len) {
		struct pfile *f = in->files->pdata[rnd(st, in->files->len)];

		mutate_bytes(f->text, MIN(room, 64));
	}
}

static size_t put(GString *out, uint8_t *data, size_t max_size)
{
	size_t n = MIN(out->len, max_size);

	memcpy(data, out->str, n);
	g_string_free(out, TRUE);
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	struct pinput *in = pinput_parse(data, size);
	unsigned int st = seed;
	GString *out;

	if (!in)
		return LLVMFuzzerMutate(data, size, max_size);
	for (unsigned int n = 1 + rnd(&st, 3); n--;)
		mutate(in, &st, max_size > size ? max_size - size : 0);
	out = pinput_write(in);
	pinput_free(in);
	if (out->len > max_size) {
		g_string_free(out, TRUE);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	return put(out, data, max_size);
}

/* Another input's files and records joined to this one: units across
 * files that no seed had together. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1,
				 const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed)
{
	struct pinput *a = pinput_parse(d1, s1);
	struct pinput *b = pinput_parse(d2, s2);
	unsigned int st = seed;
	size_t n = 0;

	if (a && b) {
		GString *text;

		while (b->files->len && a->files->len < MAX_FILES) {
			g_ptr_array_add(a->files, g_ptr_array_steal_index(
				b->files, rnd(&st, b->files->len)));
			if (rnd(&st, 2))
				break;
		}
		for (guint i = 0; i < b->recs->len; i++)
			if (rnd(&st, 2))
				g_ptr_array_add(a->recs, g_strdup(
					b->recs->pdata[i]));
		text = pinput_write(a);
		if (text->len <= max_out)
			n = put(text, out, max_out);
		else
			g_string_free(text, TRUE);
	}
	if (a)
		pinput_free(a);
	if (b)
		pinput_free(b);
	return n;
}
