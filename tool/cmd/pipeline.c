// SPDX-License-Identifier: GPL-2.0
/*
 *   scan (C lexer, every file)  ->  facts (spatch, candidate files and
 *   the files that define, declare or call their callbacks; each file
 *   rewritten too, with its plan among the files heard from so far:
 *   speculate.h)  ->
 *   plan (units, decided across files)  ->  rewrite (spatch, the files
 *   whose real plan is not the one they had, verified)  ->  wrap
 *   (kernel style)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blank.h"
#include "compat.h"
#include "damage.h"
#include "facts_dump.h"
#include "env.h"
#include "pipeline.h"
#include "progress.h"
#include "speculate.h"
#include "treescan.h"
#include "util.h"
#include "verify.h"
#include "wrap.h"

#define DEFAULT_TIMEOUT 120

/* The kernel's name for the machine timerconv runs on (asm/ headers). */
#if defined(__x86_64__) || defined(__i386__)
#define HOST_ARCH "x86"
#elif defined(__aarch64__)
#define HOST_ARCH "arm64"
#elif defined(__arm__)
#define HOST_ARCH "arm"
#elif defined(__powerpc__)
#define HOST_ARCH "powerpc"
#else
#define HOST_ARCH "x86"
#endif

/* The resident size of this process, in MiB (0 if unknown). */
static unsigned long rss_mib(void)
{
	char *st = NULL;
	const char *p;
	unsigned long kib = 0;

	if (g_file_get_contents("/proc/self/status", &st, NULL, NULL) &&
	    (p = strstr(st, "VmRSS:")))
		kib = strtoul(p + strlen("VmRSS:"), NULL, 10);
	g_free(st);
	return kib / 1024;
}

/* TIMERCONV_TIMINGS=1: how long each phase took, and the memory held
 * after it, on stderr. */
static void timing(const char *phase)
{
	static gint64 last;
	gint64 now = g_get_monotonic_time();

	if (!env_timings())
		return;
	if (last && phase)
		fprintf(stderr, "timerconv: timing: %-8s %7.2f s, %lu MiB\n",
			phase, (double)(now - last) / G_USEC_PER_SEC,
			rss_mib());
	last = now;
}

bool csite_counted(const struct csite *s)
{
	return s->file->in_scope || (s->unit && !s->unit->reason);
}

static struct cfile *add_file(struct run *r, const char *path,
			      struct scan_result *scan, bool in_scope,
			      GError **error)
{
	struct conversion *cv = &r->cv;
	struct cfile *f = conv_file(cv, path);
	size_t len;
	char *text;

	if (f) {
		if (scan)
			scan_result_free(scan);
		return f;
	}
	text = tree_read(&r->tree, path, &len, error);
	if (!text) {
		scan_result_free(scan);
		return NULL;
	}
	f = cfile_new(path, text, len);
	if (!scan) {
		scan = scan_file(text, len, &(struct scan_opts){
					 r->target.renames });
		scan_resolve(scan, NULL);
	}
	f->scan = scan;
	f->in_scope = in_scope;
	g_ptr_array_add(cv->files, f);
	g_hash_table_insert(cv->by_path, f->path, f);
	return f;
}

/* Does the header at path declare one of the static callbacks `names`
 * (a prototype: a member or a variable of that name is not one)? */
static bool static_prototype_in(struct run *r, const char *path,
				GHashTable *names)
{
	struct scan_result *res;
	size_t len;
	char *text = tree_read(&r->tree, path, &len, NULL);
	bool found = false;

	if (!text)
		return false;
	res = scan_file(text, len, &(struct scan_opts){ r->target.renames });
	for (guint k = 0; !found && k < res->ulong_funcs->len; k++) {
		struct ulong_func *u = &g_array_index(res->ulong_funcs,
						      struct ulong_func, k);

		found = u->is_static && !u->is_def &&
			g_hash_table_contains(names, u->name);
	}
	scan_result_free(res);
	g_free(text);
	return found;
}

/*
 * A static callback's prototype may sit in a header its file includes
 * (`static void f(unsigned long);` in foo.h, included by foo.c): the
 * header is part of the callback's unit and is read with the file.
 */
static bool add_static_headers(struct run *r, GHashTable *names,
			       GHashTable *in_scope, GError **error)
{
	guint n = r->cv.files->len;

	for (guint i = 0; i < n; i++) {
		struct cfile *f = r->cv.files->pdata[i];
		GHashTable *statics = g_hash_table_new(g_str_hash,
						       g_str_equal);

		for (guint k = 0; k < f->scan->ulong_funcs->len; k++) {
			struct ulong_func *u = &g_array_index(
				f->scan->ulong_funcs, struct ulong_func, k);

			if (u->is_static && u->is_def &&
			    g_hash_table_contains(names, u->name))
				g_hash_table_add(statics, u->name);
		}
		for (guint k = 0; g_hash_table_size(statics) &&
				  k < f->scan->includes->len; k++) {
			char *path = cfile_include_path(f,
						f->scan->includes->pdata[k]);
			bool ok = true;

			if (!conv_file(&r->cv, path) &&
			    tree_has(&r->tree, path) &&
			    static_prototype_in(r, path, statics))
				ok = add_file(r, path, NULL,
					      g_hash_table_contains(in_scope,
								    path),
					      error) != NULL;
			g_free(path);
			if (!ok) {
				g_hash_table_destroy(statics);
				return false;
			}
		}
		g_hash_table_destroy(statics);
	}
	return true;
}

/* Sites to convert (compat code is only reported), or callback uses. */
static bool has_work(const struct cfile *f)
{
	for (guint i = 0; f->scan && i < f->scan->sites->len; i++)
		if (!g_array_index(f->scan->sites, struct site, i).compat)
			return true;
	return f->refs->len > 0;
}

static char *write_callbacks(struct run *r, GHashTable *names,
			     GError **error)
{
	char *cbfile = g_build_filename(r->env.workdir, "callbacks.txt", NULL);
	GString *list = g_string_new(NULL);
	GHashTableIter it;
	gpointer key;
	bool ok;

	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &key, NULL))
		g_string_append_printf(list, "%s\n", (char *)key);
	ok = g_file_set_contents(cbfile, list->str, list->len, error);
	g_string_free(list, TRUE);
	if (!ok) {
		g_free(cbfile);
		return NULL;
	}
	return cbfile;
}

/*
 * Facts and patch in one pass (speculate.h), unless a file may need the
 * compat #include (a rule file of its own, chosen by the plan) or
 * TIMERCONV_NO_SPECULATE is set.
 */
static bool speculating(struct run *r)
{
	return !r->cv.compat_header && !env_no_speculate();
}

/* TIMERCONV_FACTS_DUMP=DIR: the planner's fuzz seeds (facts_dump.h). */
static void dump_facts(struct run *r, const struct pipeline_opts *o,
		       GPtrArray *sfiles, GPtrArray *files)
{
	GPtrArray *records = g_ptr_array_new();

	for (guint i = 0; i < sfiles->len; i++) {
		struct spatch_file *sf = sfiles->pdata[i];

		g_ptr_array_add(records, sf->records);
	}
	facts_dump(g_getenv("TIMERCONV_FACTS_DUMP"), &r->cv,
		   o->paths && o->paths[0], files, records);
	g_ptr_array_free(records, TRUE);
}

static bool run_facts(struct run *r, const struct pipeline_opts *o,
		      GHashTable *names, GError **error)
{
	GPtrArray *sfiles = g_ptr_array_new_with_free_func(
		(GDestroyNotify)spatch_file_free);
	GPtrArray *files = g_ptr_array_new();
	struct speculation *spec = NULL;
	char *cbfile = write_callbacks(r, names, error);
	bool ok = false;

	if (!cbfile)
		goto out;
	/* without the socket, facts and patch go as two passes */
	if (speculating(r))
		spec = spec_start(&r->cv, r->env.workdir,
				  r->whole && !o->follow_units, NULL);
	for (guint i = 0; i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];
		struct spatch_file *sf;
		char *input;

		if (!has_work(f) || f->damage)
			continue;
		if (spec) {
			input = spec_input(spec, f,
					   blank_wanted(r->env.macro_file),
					   error);
			if (!input)
				goto out;
		} else {
			char *abs = tree_abspath(&r->tree, f->path);

			input = g_canonicalize_filename(abs, NULL);
			g_free(abs);
			/* a name spatch cannot take goes as a copy */
			if (!spatch_path_safe(input)) {
				char *dir = g_build_filename(r->env.workdir,
							     "facts", NULL);

				g_free(input);
				input = cfile_scratch_copy(f, dir, error);
				g_free(dir);
				if (!input)
					goto out;
			}
		}
		sf = spatch_file_new(input, NULL, f->len);
		sf->names = f->cb_names;
		g_ptr_array_add(sfiles, sf);
		g_ptr_array_add(files, f);
	}
	/* what the scans freed goes back before spatch needs memory */
	release_memory();
	if (spec) {
		spec_group(spec, sfiles, files);
		spatch_run_spec(&r->env, sfiles, cbfile, spec_socket(spec));
		spec_stop(spec);
	} else {
		spatch_run_files(&r->env, "facts", sfiles, NULL, cbfile,
				 false);
	}
	for (guint i = 0; i < sfiles->len; i++) {
		struct spatch_file *sf = sfiles->pdata[i];
		struct cfile *f = files->pdata[i];

		f->timed_out = sf->timed_out;
		if (sf->error || sf->timed_out)
			f->spatch_error = g_strdup(sf->error ? sf->error :
						   "spatch timed out");
		f->facts = sf->facts ? sf->facts : facts_parse("");
		sf->facts = NULL;
		if (spec)
			spec_result(f, sf->input, f->facts,
				    !sf->error && !sf->timed_out);
	}
	if (interrupted()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
			    "interrupted");
		goto out;
	}
	if (g_getenv("TIMERCONV_FACTS_DUMP"))
		dump_facts(r, o, sfiles, files);
	ok = true;
out:
	spec_free(spec);
	g_ptr_array_free(sfiles, TRUE);
	g_ptr_array_free(files, TRUE);
	g_free(cbfile);
	return ok;
}

/*
 * With PATHs, a function taking unsigned long in them may be a callback
 * that a file outside hands to a timer (mm/'s laptop_mode_timer_fn(), set
 * up in block/): the whole tree is scanned for such names, so that a
 * PATH run sees the unit a whole-tree run sees.
 */
static bool handed_elsewhere(struct run *r, struct treescan *ts,
			     const struct scan_opts *sopts, GError **error)
{
	struct treescan *all;
	GHashTable *global;

	r->whole = tree_list(&r->tree, NULL, error);
	if (!r->whole)
		return false;
	all = treescan_run(&r->tree, r->whole, sopts, r->cv.jobs);
	global = treescan_handed(all);
	for (guint i = 0; g_hash_table_size(global) && i < ts->files->len; i++)
		if (ts->results[i])
			scan_add_callbacks(ts->results[i], global);
	g_hash_table_destroy(global);
	treescan_free(all);
	return true;
}

struct look_job {
	GPtrArray *files;
	const struct cb_names *cn;
};

/* One candidate's uses of callback names and what would break spatch. */
static void look_one(size_t i, void *data)
{
	struct look_job *job = data;
	struct cfile *f = job->files->pdata[i];
	size_t n;
	const struct token *t;

	refs_find(f, job->cn);
	t = cfile_tokens(f, &n);
	f->damage = damage_find(f->text, f->len, t, n, &f->damage_line,
				&f->conflict_line);
	/* the planner lexes again the few files it looks into: spatch,
	 * meanwhile, has the memory */
	cfile_forget_tokens(f);
}

static bool gather(struct run *r, const struct pipeline_opts *o,
		   GError **error)
{
	struct scan_opts sopts = { r->target.renames };
	struct treescan *ts;
	struct cb_names cn;
	GHashTable *in_scope = g_hash_table_new(g_str_hash, g_str_equal);
	guint mentioned = 0, users = 0;
	bool ok = false;

	cb_names_init(&cn);
	progress_update("scan", 0, r->scope->len);
	ts = treescan_run(&r->tree, r->scope, &sopts, r->cv.jobs);
	progress_update("scan", r->scope->len, r->scope->len);
	if (o->paths && o->paths[0] && !handed_elsewhere(r, ts, &sopts, error))
		goto out;
	timing("scan");
	r->nfiles_scanned = r->scope->len;
	for (guint i = 0; i < r->scope->len; i++) {
		g_hash_table_add(in_scope, r->scope->pdata[i]);
		if (ts->errors[i]) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
				    "%s", ts->errors[i]);
			goto out;
		}
		if (!ts->results[i] || !ts->results[i]->sites->len)
			continue;
		if (!add_file(r, r->scope->pdata[i], ts->results[i], true,
			      error)) {
			ts->results[i] = NULL;
			goto out;
		}
		ts->results[i] = NULL;	/* the cfile owns it now */
	}
	/* the scans of files without sites are not needed again */
	treescan_free(ts);
	ts = NULL;
	release_memory();
	cb_names_collect(&cn, r->cv.files);
	if (!add_static_headers(r, cn.all, in_scope, error))
		goto out;
	/* PATHs limit what changes, not what is known: structs, callbacks
	 * and their uses are looked up in the whole tree */
	if (o->paths && o->paths[0]) {
		/* the planner knows which files it may add are in scope */
		r->cv.scope = g_hash_table_ref(in_scope);
	}
	if (g_hash_table_size(cn.global)) {
		GPtrArray *hits;

		hits = refs_files(&r->tree, r->whole ? r->whole : r->scope,
				  cn.global, r->cv.jobs, &mentioned);
		users = hits->len;
		for (guint i = 0; i < hits->len; i++) {
			const char *p = hits->pdata[i];

			if (!add_file(r, p, NULL,
				      g_hash_table_contains(in_scope, p),
				      error)) {
				g_ptr_array_free(hits, TRUE);
				goto out;
			}
		}
		g_ptr_array_free(hits, TRUE);
	}
	r->cv.all_files = r->whole ? r->whole : r->scope;
	parallel_for(r->cv.files->len, r->cv.jobs, look_one,
		     &(struct look_job){ r->cv.files, &cn });
	release_memory();
	timing("refs");
	if (env_timings()) {
		guint n = 0;

		for (guint i = 0; i < r->cv.files->len; i++)
			n += has_work(r->cv.files->pdata[i]);
		fprintf(stderr,
			"timerconv: timing: refs: %u callback names (%u static, %u external); %u files spell an external one, %u may use it; %u of %u files are candidates\n",
			g_hash_table_size(cn.all),
			g_hash_table_size(cn.homes),
			g_hash_table_size(cn.global), mentioned, users, n,
			r->nfiles_scanned);
	}
	ok = o->scan_only || run_facts(r, o, cn.all, error);
	timing("facts");
out:
	treescan_free(ts);
	cb_names_clear(&cn);
	g_hash_table_unref(in_scope);
	return ok;
}

static void wrap_all(struct run *r)
{
	for (guint i = 0; i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];
		size_t len;
		char *text;

		if (!f->new_text)
			continue;
		text = wrap_changed(f->text, f->len, f->new_text, f->new_len,
				    &len);
		if (!text)
			continue;
		g_free(f->new_text);
		f->new_text = text;
		f->new_len = len;
	}
}

/* The compat header, as a file of the run, when a file includes it. */
static bool add_compat_header(struct run *r, GError **error)
{
	struct conversion *cv = &r->cv;
	const char *path = cv->compat_header;
	struct cfile *f = NULL;
	bool wanted = false;
	char *text;

	for (guint i = 0; i < cv->files->len; i++)
		wanted |= ((struct cfile *)cv->files->pdata[i])->compat_include;
	if (!wanted)
		return true;
	text = compat_header_text(r->target.level);
	f = conv_file(cv, path);
	if (!f) {
		char *old = tree_read(&r->tree, path, NULL, NULL);
		size_t len = old ? strlen(old) : 0;

		if (old && !compat_header_ours(old)) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
				    "--compat-header %s: the file exists and timerconv did not write it",
				    path);
			g_free(old);
			g_free(text);
			return false;
		}
		f = cfile_new(path, old ? old : g_strdup(""), len);
		f->is_new = !old;
		g_ptr_array_add(cv->files, f);
		g_hash_table_insert(cv->by_path, f->path, f);
	}
	if (f->len == strlen(text) && !memcmp(f->text, text, f->len)) {
		g_free(text);
		return true;
	}
	g_free(f->new_text);
	f->new_text = text;
	f->new_len = strlen(text);
	return true;
}

/* Where the struct index looks beyond the tree: -I DIR, and the include
 * directories of --kernel-headers. */
static bool include_dirs(struct run *r, const struct pipeline_opts *o,
			 GError **error)
{
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);

	r->cv.include_dirs = dirs;
	for (int i = 0; o->include_dirs && o->include_dirs[i]; i++) {
		const char *d = o->include_dirs[i];

		if (!g_file_test(d, G_FILE_TEST_IS_DIR)) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "-I %s: not a directory", d);
			return false;
		}
		g_ptr_array_add(dirs, g_canonicalize_filename(d, NULL));
	}
	if (o->kernel_headers) {
		static const char *const subdirs[] = {
			"include", "include/uapi", "arch/" HOST_ARCH "/include",
			"arch/" HOST_ARCH "/include/generated", NULL
		};

		for (int i = 0; subdirs[i]; i++) {
			char *d = g_build_filename(o->kernel_headers,
						   subdirs[i], NULL);

			if (g_file_test(d, G_FILE_TEST_IS_DIR))
				g_ptr_array_add(dirs,
					g_canonicalize_filename(d, NULL));
			g_free(d);
		}
	}
	return true;
}

static bool any_work(struct run *r)
{
	for (guint i = 0; i < r->cv.files->len; i++)
		if (has_work(r->cv.files->pdata[i]))
			return true;
	return false;
}

bool pipeline_run(struct run *r, const struct pipeline_opts *o,
		  GError **error)
{
	memset(r, 0, sizeof(*r));
	if (!tree_open(&r->tree, o->tree ? o->tree : ".", error))
		return false;
	if (!target_resolve(&r->target, o->target, r->tree.root,
			    o->kernel_headers, o->api_header, error))
		return false;
	r->cv.tree = &r->tree;
	r->cv.target = &r->target;
	r->cv.files = g_ptr_array_new_with_free_func(
		(GDestroyNotify)cfile_free);
	r->cv.by_path = g_hash_table_new(g_str_hash, g_str_equal);
	r->cv.sites = g_ptr_array_new();
	r->cv.units = g_ptr_array_new();
	r->cv.jobs = o->jobs > 0 ? o->jobs : cpu_count();
	r->cv.keep_data = o->keep_data;
	r->cv.may_add_files = true;
	if (!include_dirs(r, o, error))
		return false;
	if (o->compat_header) {
		target_use_compat(&r->target);
		r->cv.compat_header = path_normalize(o->compat_header);
		if (g_path_is_absolute(o->compat_header) ||
		    g_str_has_prefix(r->cv.compat_header, "..")) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--compat-header %s: give a path inside the tree, relative to it",
				    o->compat_header);
			return false;
		}
	}
	if (o->verify && !o->scan_only) {
		r->cv.verify = verify_new(&r->tree, o->verify, r->cv.jobs,
					  error);
		if (!r->cv.verify)
			return false;
	}
	r->env.jobs = r->cv.jobs;
	r->env.timeout = o->timeout > 0 ? o->timeout : DEFAULT_TIMEOUT;
	if (o->macro_file && !g_file_test(o->macro_file,
					   G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--macro-file %s: no such file", o->macro_file);
		return false;
	}
	r->env.macro_file = g_strdup(o->macro_file);
	r->env.progress = progress_cb;
	/* spatch is needed even when there is nothing to do: say so early */
	timing(NULL);
	if (!o->scan_only && !spatch_env_init(&r->env, error))
		return false;
	r->scope = tree_list(&r->tree, (const char *const *)o->paths, error);
	if (!r->scope)
		return false;
	timing("setup");
	if (!gather(r, o, error))
		return false;
	timing("gather");
	if (o->scan_only)
		return true;
	/* compat code alone still gets its sites reported */
	plan_build(&r->cv);
	if (r->whole && !o->follow_units)
		plan_keep_in_scope(&r->cv);
	timing("plan");
	if (!any_work(r)) {
		plan_settle(&r->cv);
		return true;
	}
	if (o->after_plan)
		o->after_plan(&r->cv, o->ctx);
	if (!rewrite_run(&r->cv, &r->env, error))
		return false;
	timing("rewrite");
	plan_settle(&r->cv);
	wrap_all(r);
	return add_compat_header(r, error);
}

GPtrArray *pipeline_candidates(struct run *r)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; r->cv.files && i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];

		if (has_work(f))
			g_ptr_array_add(out, f);
	}
	g_ptr_array_sort(out, cfile_cmp_path);
	return out;
}

GPtrArray *pipeline_changed(struct run *r)
{
	GPtrArray *out = g_ptr_array_new();

	for (guint i = 0; r->cv.files && i < r->cv.files->len; i++) {
		struct cfile *f = r->cv.files->pdata[i];

		if (f->new_text)
			g_ptr_array_add(out, f);
	}
	g_ptr_array_sort(out, cfile_cmp_path);
	return out;
}

void pipeline_free(struct run *r)
{
	plan_free(&r->cv);
	if (r->cv.include_dirs)
		g_ptr_array_free(r->cv.include_dirs, TRUE);
	if (r->cv.files)
		g_ptr_array_free(r->cv.files, TRUE);
	if (r->cv.by_path)
		g_hash_table_destroy(r->cv.by_path);
	structs_free(r->cv.structs);
	g_free(r->cv.compat_header);
	if (r->cv.scope)
		g_hash_table_unref(r->cv.scope);
	if (r->scope)
		g_ptr_array_free(r->scope, TRUE);
	if (r->whole)
		g_ptr_array_free(r->whole, TRUE);
	verify_free(r->cv.verify);
	spatch_env_clear(&r->env);
	target_free(&r->target);
	tree_close(&r->tree);
}
