// SPDX-License-Identifier: GPL-2.0
/*
 * The rule files in cocci/ are combined into one semantic patch per run
 * (spatch takes one), with their `virtual` declarations hoisted and the
 * shared Python helpers imported once.  Files go to spatch in batches,
 * one file per group (--file-groups), so that each is matched on its own
 * while rule compilation and Python start-up are paid once per batch; a
 * batch that crashes is run again file by file, so one bad file costs
 * its own sites, never its neighbours'.
 */
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "spatch.h"
#include "util.h"

#define MIN_MAJOR 1
#define MIN_MINOR 1

/* The interpreter Debian's coccinelle is built against. */
#define SYSTEM_PYTHON "/usr/bin/python3"

/* OCaml's space_overhead for spatch: see launch() */
#define SPATCH_GC_PACE "o=1000"

/* Files bigger than this get a longer time-out, in steps of it. */
#define TIMEOUT_SCALE (128 * 1024)

static char *exe_dir(void)
{
	char *exe = g_file_read_link("/proc/self/exe", NULL);
	char *dir;

	if (!exe)
		return NULL;
	dir = g_path_get_dirname(exe);
	g_free(exe);
	return dir;
}

static bool has_rules(const char *dir)
{
	char *py = g_build_filename(dir, "timerconv.py", NULL);
	bool ok = g_file_test(py, G_FILE_TEST_IS_REGULAR);

	g_free(py);
	return ok;
}

/* $TIMERCONV_COCCI_DIR, the source tree next to build/, or DATADIR. */
static char *find_cocci_dir(void)
{
	const char *env = env_cocci_dir();
	char *dir, *cand;

	if (env)
		return has_rules(env) ? g_strdup(env) : NULL;
	dir = exe_dir();
	if (dir) {
		cand = g_build_filename(dir, "..", "cocci", NULL);
		if (has_rules(cand)) {
			g_free(dir);
			return cand;
		}
		g_free(cand);
		cand = g_build_filename(dir, "..", "share", "timerconv", NULL);
		g_free(dir);
		if (has_rules(cand))
			return cand;
		g_free(cand);
	}
#ifdef TIMERCONV_DATADIR
	if (has_rules(TIMERCONV_DATADIR))
		return g_strdup(TIMERCONV_DATADIR);
#endif
	return NULL;
}

static bool check_version(GError **error)
{
	const char *argv[] = { "spatch", "--version", NULL };
	char *out = NULL;
	int status = -1;
	int major = 0, minor = 0, micro = 0;
	const char *v;
	bool ok;

	char *found = g_find_program_in_path("spatch");

	if (!found) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
			    "spatch (Coccinelle) is not installed; install it with: apt-get install coccinelle");
		return false;
	}
	g_free(found);
	if (!run_capture(argv, NULL, &out, &status, true, error))
		return false;
	v = out ? strstr(out, "version ") : NULL;
	ok = v && sscanf(v, "version %d.%d.%d", &major, &minor, &micro) >= 2;
	if (!ok || major < MIN_MAJOR ||
	    (major == MIN_MAJOR && minor < MIN_MINOR)) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
			    "spatch %d.%d.%d is too old (need %d.%d or later); upgrade with: apt-get install coccinelle",
			    major, minor, micro, MIN_MAJOR, MIN_MINOR);
		g_free(out);
		return false;
	}
	if (!strstr(out, "Python scripting support: yes")) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
			    "spatch was built without Python scripting; install Debian's coccinelle package: apt-get install coccinelle");
		g_free(out);
		return false;
	}
	g_free(out);
	return true;
}

#define INCLUDE_RULE "compat_include.cocci"
#define INCLUDE_PLACEHOLDER "TIMERCONV_COMPAT_INCLUDE"

/* virtual lines first, then one import of the helpers, then each file;
 * the compat include rule is kept apart, for the files that need it. */
static char *combine_rules(const char *dir, char **include_rule,
			   GError **error)
{
	GDir *d = g_dir_open(dir, 0, error);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	GHashTable *virtuals = g_hash_table_new_full(g_str_hash, g_str_equal,
						     g_free, NULL);
	GString *head = g_string_new(NULL);
	GString *body = g_string_new(NULL);
	const char *name;

	if (!d) {
		g_ptr_array_free(names, TRUE);
		g_hash_table_destroy(virtuals);
		g_string_free(head, TRUE);
		g_string_free(body, TRUE);
		return NULL;
	}
	while ((name = g_dir_read_name(d)))
		if (g_str_has_suffix(name, ".cocci"))
			g_ptr_array_add(names, g_strdup(name));
	g_dir_close(d);
	g_ptr_array_sort(names, cmp_strings);
	for (guint i = 0; i < names->len; i++) {
		char *path = g_build_filename(dir, names->pdata[i], NULL);
		char *text = NULL;
		char **lines;

		if (!g_file_get_contents(path, &text, NULL, error)) {
			g_free(path);
			goto fail;
		}
		g_free(path);
		lines = g_strsplit(text, "\n", -1);
		if (!strcmp(names->pdata[i], INCLUDE_RULE)) {
			GString *rule = g_string_new("\n// ---- "
						     INCLUDE_RULE "\n");

			for (int k = 0; lines[k]; k++)
				if (!g_str_has_prefix(lines[k], "virtual "))
					g_string_append_printf(rule, "%s\n",
							       lines[k]);
			*include_rule = g_string_free(rule, FALSE);
			g_strfreev(lines);
			g_free(text);
			continue;
		}
		g_string_append_printf(body, "\n// ---- %s\n",
				       (char *)names->pdata[i]);
		for (int k = 0; lines[k]; k++) {
			if (g_str_has_prefix(lines[k], "virtual ")) {
				if (!g_hash_table_contains(virtuals, lines[k])) {
					g_hash_table_add(virtuals,
							 g_strdup(lines[k]));
					g_string_append_printf(head, "%s\n",
							       lines[k]);
				}
				continue;
			}
			g_string_append_printf(body, "%s\n", lines[k]);
		}
		g_strfreev(lines);
		g_free(text);
	}
	g_string_append(head,
			"\n@initialize:python@\n@@\n\n"
			"import os\nimport sys\n"
			"sys.path.insert(0, os.environ[\"TIMERCONV_COCCI_DIR\"])\n"
			"import timerconv\n"
			"timerconv.init(cocci)\n");
	g_string_append(head, body->str);
	g_string_free(body, TRUE);
	g_ptr_array_free(names, TRUE);
	g_hash_table_destroy(virtuals);
	return g_string_free(head, FALSE);
fail:
	g_string_free(head, TRUE);
	g_string_free(body, TRUE);
	g_ptr_array_free(names, TRUE);
	g_hash_table_destroy(virtuals);
	return NULL;
}

/*
 * The same rules with every facts rule moved ahead of the others, for a
 * pass that gathers facts and rewrites at once: the patch rules of a
 * file then run once all its facts are out, and nothing the patch rules
 * change is seen by a facts rule.  A rule's script follows it.
 */
static char *facts_first(const char *text)
{
	GString *head = g_string_new(NULL);
	GString *facts = g_string_new(NULL);
	GString *rest = g_string_new(NULL);
	GString *to = head;
	char **lines = g_strsplit(text, "\n", -1);

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (l[0] == '@' && l[1] != '@') {
			if (g_str_has_prefix(l, "@initialize:"))
				to = head;
			else if (strstr(l, " depends on facts"))
				to = facts;
			else
				to = rest;
		}
		g_string_append(to, l);
		if (lines[i + 1])
			g_string_append_c(to, '\n');
	}
	g_strfreev(lines);
	g_string_append(head, facts->str);
	g_string_append(head, rest->str);
	g_string_free(facts, TRUE);
	g_string_free(rest, TRUE);
	return g_string_free(head, FALSE);
}

#define KERNEL_MACROS "kernel_macros.h"

/*
 * What spatch's --macro-file gets: our kernel macros (kernel_macros.h
 * says which and why), and after them the user's --macro-file, in one
 * file: spatch reads only the last --macro-file it is given, and of two
 * definitions of a name in one file, the later one.  Ours never name the
 * timer API, so blanking stays on with them (blank.h): only the user's
 * turns it off.
 */
static bool write_macros(struct spatch_env *env, GError **error)
{
	char *ours = g_build_filename(env->cocci_dir, KERNEL_MACROS, NULL);
	char *text = NULL, *theirs = NULL;
	GError *err = NULL;
	GString *both;
	bool ok;

	if (!g_file_test(ours, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s is missing from %s", KERNEL_MACROS,
			    env->cocci_dir);
		g_free(ours);
		return false;
	}
	if (!env->macro_file) {
		env->macros = ours;
		return true;
	}
	if (!g_file_get_contents(env->macro_file, &theirs, NULL, &err)) {
		g_set_error(error, G_FILE_ERROR, err->code,
			    "cannot read --macro-file: %s", err->message);
		g_error_free(err);
		g_free(ours);
		return false;
	}
	ok = g_file_get_contents(ours, &text, NULL, error);
	g_free(ours);
	if (!ok) {
		g_free(theirs);
		return false;
	}
	both = g_string_new(text);
	g_string_append_printf(both, "\n// ---- --macro-file %s\n%s\n",
			       env->macro_file, theirs);
	env->macros = g_build_filename(env->workdir, "macros.h", NULL);
	ok = g_file_set_contents(env->macros, both->str, both->len, error);
	g_string_free(both, TRUE);
	g_free(text);
	g_free(theirs);
	return ok;
}

bool spatch_env_init(struct spatch_env *env, GError **error)
{
	char *text, *spec;
	bool ok;

	if (!check_version(error))
		return false;
	env->cocci_dir = find_cocci_dir();
	if (!env->cocci_dir) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "cannot find timerconv's semantic patches (set TIMERCONV_COCCI_DIR or reinstall)");
		return false;
	}
	if (!env->workdir) {
		env->workdir = tmpdir_create("run", error);
		if (!env->workdir)
			return false;
	}
	/* every file spatch reads or writes is in it (spatch_path_safe()) */
	if (!spatch_path_safe(env->workdir)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: spatch cannot work in a directory with this name; set TMPDIR to one whose path has only letters, digits and / . _ - + , =",
			    env->workdir);
		return false;
	}
	if (!write_macros(env, error))
		return false;
	text = combine_rules(env->cocci_dir, &env->include_rule, error);
	if (!text)
		return false;
	env->sp_file = g_build_filename(env->workdir, "timerconv.cocci", NULL);
	env->spec_sp_file = g_build_filename(env->workdir,
					     "timerconv-spec.cocci", NULL);
	spec = facts_first(text);
	ok = g_file_set_contents(env->sp_file, text, -1, error) &&
	     g_file_set_contents(env->spec_sp_file, spec, -1, error);
	g_free(text);
	g_free(spec);
	return ok;
}

const char *spatch_sp_with_include(struct spatch_env *env,
				   const char *include, GError **error)
{
	const char *path = env->variants ?
		g_hash_table_lookup(env->variants, include) : NULL;
	GString *rule;
	char *base = NULL, *file;

	if (path)
		return path;
	if (!env->include_rule) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s is missing from %s", INCLUDE_RULE,
			    env->cocci_dir);
		return NULL;
	}
	if (!env->variants)
		env->variants = g_hash_table_new_full(g_str_hash, g_str_equal,
						      g_free, g_free);
	if (!g_file_get_contents(env->sp_file, &base, NULL, error))
		return NULL;
	rule = g_string_new(env->include_rule);
	g_string_replace(rule, INCLUDE_PLACEHOLDER, include, 0);
	file = g_strdup_printf("%s/timerconv-include-%u.cocci", env->workdir,
			       g_hash_table_size(env->variants));
	g_string_prepend(rule, base);
	if (!g_file_set_contents(file, rule->str, rule->len, error)) {
		g_string_free(rule, TRUE);
		g_free(base);
		g_free(file);
		return NULL;
	}
	g_string_free(rule, TRUE);
	g_free(base);
	g_hash_table_insert(env->variants, g_strdup(include), file);
	return file;
}

void spatch_env_clear(struct spatch_env *env)
{
	g_free(env->include_rule);
	if (env->variants)
		g_hash_table_destroy(env->variants);
	g_free(env->cocci_dir);
	g_free(env->sp_file);
	g_free(env->spec_sp_file);
	g_free(env->workdir);
	g_free(env->macro_file);
	g_free(env->macros);
	memset(env, 0, sizeof(*env));
}

/* A batch of files for one spatch process. */
struct batch {
	GPtrArray *files;	/* struct spatch_file * */
	const char *sp_file;
	char *own_sp;		/* sp_file narrowed to its files' names */
	char *list;		/* the --file-groups file */
	int timeout;		/* spatch's --timeout for each of its files */
	int limit;		/* seconds before the watchdog kills it */
	/* out */
	char *out_text;
	char *err_text;
	int status;
	bool failed;		/* could not run, crashed or was killed */
	bool killed;		/* by the watchdog: it took too long */
};

struct runner {
	struct spatch_env *env;
	const char *mode;
	const char *plan;
	const char *callbacks;
	bool in_place;
	const char *spec;	/* the speculation socket: facts and patch */
	GPtrArray *batches;
	gint next;
	gint finished;		/* workers that have returned */
	gint files_done;
	GMutex lock;
	GPtrArray *running;	/* struct live * */
	gint64 started;		/* monotonic, when the first batch did */
};

struct live {
	GSubprocess *proc;
	gint64 deadline;	/* monotonic, microseconds */
	struct batch *batch;
};

static void batch_free(struct batch *b)
{
	g_ptr_array_free(b->files, TRUE);
	g_free(b->own_sp);
	g_free(b->list);
	g_free(b->out_text);
	g_free(b->err_text);
	g_free(b);
}

/* The rules a batch without its own runs. */
static const char *base_rules(const struct runner *r)
{
	return r->spec ? r->env->spec_sp_file : r->env->sp_file;
}

static GSubprocess *launch(struct runner *r, struct batch *b, GError **error)
{
	struct spatch_env *env = r->env;
	GSubprocessLauncher *l = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	GSubprocess *proc;
	char **modes;

	g_ptr_array_add(argv, g_strdup("spatch"));
	/* spatch asks the python3 on PATH for its version at start-up: a
	 * version manager's shim there (pyenv) costs a second a process */
	if (g_file_test(SYSTEM_PYTHON, G_FILE_TEST_IS_EXECUTABLE)) {
		g_ptr_array_add(argv, g_strdup("--python"));
		g_ptr_array_add(argv, g_strdup(SYSTEM_PYTHON));
	}
	g_ptr_array_add(argv, g_strdup("--very-quiet"));
	/* spatch 1.1.1 writes its cocci-output-* files to /tmp whatever
	 * TMPDIR says, and leaves them when interrupted: --temp-files puts
	 * them in our directory, removed at exit */
	g_ptr_array_add(argv, g_strdup("--temp-files"));
	g_ptr_array_add(argv, g_strdup(env->workdir));
	g_ptr_array_add(argv, g_strdup("--no-includes"));
	g_ptr_array_add(argv, g_strdup("--no-show-diff"));
	/* spatch re-lays out the statements it touches to this width: at 80
	 * it keeps their breaks and realigns them; wrap.c then lays out
	 * the statements that are wholly new the kernel's way */
	g_ptr_array_add(argv, g_strdup("--max-width"));
	g_ptr_array_add(argv, g_strdup("80"));
	g_ptr_array_add(argv, g_strdup("--timeout"));
	g_ptr_array_add(argv, g_strdup_printf("%d", b->timeout));
	if (env->macros) {
		g_ptr_array_add(argv, g_strdup("--macro-file"));
		g_ptr_array_add(argv, g_strdup(env->macros));
	}
	if (r->in_place)
		g_ptr_array_add(argv, g_strdup("--in-place"));
	/* the result beside the input, which a retry must read unchanged */
	if (r->spec)
		g_ptr_array_add(argv, g_strdup("--out-place"));
	/* "facts+patch" is both modes */
	modes = g_strsplit(r->mode, "+", -1);
	for (int i = 0; modes[i]; i++) {
		g_ptr_array_add(argv, g_strdup("-D"));
		g_ptr_array_add(argv, g_strdup(modes[i]));
	}
	g_strfreev(modes);
	g_ptr_array_add(argv, g_strdup("--sp-file"));
	g_ptr_array_add(argv, g_strdup(b->own_sp ? b->own_sp :
				       b->sp_file ? b->sp_file :
				       base_rules(r)));
	g_ptr_array_add(argv, g_strdup("--file-groups"));
	g_ptr_array_add(argv, g_strdup(b->list));
	g_ptr_array_add(argv, NULL);

	g_subprocess_launcher_setenv(l, "TIMERCONV_COCCI_DIR", env->cocci_dir,
				     TRUE);
	g_subprocess_launcher_setenv(l, "PYTHONDONTWRITEBYTECODE", "1", TRUE);
	if (r->plan)
		g_subprocess_launcher_setenv(l, "TIMERCONV_PLAN", r->plan,
					     TRUE);
	else
		g_subprocess_launcher_unsetenv(l, "TIMERCONV_PLAN");
	if (r->callbacks)
		g_subprocess_launcher_setenv(l, "TIMERCONV_CALLBACKS",
					     r->callbacks, TRUE);
	else
		g_subprocess_launcher_unsetenv(l, "TIMERCONV_CALLBACKS");
	if (r->spec)
		g_subprocess_launcher_setenv(l, "TIMERCONV_SPEC", r->spec,
					     TRUE);
	else
		g_subprocess_launcher_unsetenv(l, "TIMERCONV_SPEC");
	/* spatch's OCaml runtime spends a fifth of its time collecting the
	 * major heap at the default pace; trading memory for it (about
	 * 130 MiB a process, twice the default) is the better bargain
	 * here.  A pace the user set is theirs. */
	if (!g_getenv("OCAMLRUNPARAM") && !g_getenv("CAMLRUNPARAM"))
		g_subprocess_launcher_setenv(l, "OCAMLRUNPARAM",
					     SPATCH_GC_PACE, TRUE);
	/* and its Python's, for good measure */
	g_subprocess_launcher_setenv(l, "TMPDIR", env->workdir, TRUE);
	proc = g_subprocess_launcher_spawnv(l,
		(const char *const *)argv->pdata, error);
	g_ptr_array_free(argv, TRUE);
	g_object_unref(l);
	return proc;
}

/* TIMERCONV_TIMINGS=1: when each batch ran, for finding idle cores. */
static void batch_timing(const struct runner *r, const struct batch *b,
			 gint64 start)
{
	gint64 now = g_get_monotonic_time();
	size_t bytes = 0;

	if (!env_timings())
		return;
	for (guint i = 0; i < b->files->len; i++)
		bytes += ((struct spatch_file *)b->files->pdata[i])->size;
	fprintf(stderr, "timerconv: timing: batch %s %u files %zu KiB: %.2f-%.2f s\n",
		r->mode, b->files->len, bytes / 1024,
		(double)(start - r->started) / G_USEC_PER_SEC,
		(double)(now - r->started) / G_USEC_PER_SEC);
}

/*
 * --out-place writes a result only for a file it changed: one left by an
 * earlier run of the file (a batch that crashed) must not pass for this
 * run's.
 */
static void drop_results(const struct batch *b)
{
	for (guint i = 0; i < b->files->len; i++) {
		const struct spatch_file *f = b->files->pdata[i];
		char *res = g_strconcat(f->input, SPATCH_RESULT, NULL);

		unlink(res);
		g_free(res);
	}
}

static void run_batch(struct runner *r, struct batch *b)
{
	GError *error = NULL;
	char *out = NULL, *err = NULL;
	struct live lv = { 0 };
	gint64 start = g_get_monotonic_time();
	GSubprocess *proc;

	if (r->spec)
		drop_results(b);
	proc = launch(r, b, &error);

	if (!proc) {
		b->failed = true;
		b->err_text = g_strdup(error->message);
		g_error_free(error);
		return;
	}
	lv.proc = proc;
	lv.batch = b;
	lv.deadline = g_get_monotonic_time() +
		      (gint64)b->limit * G_USEC_PER_SEC;
	g_mutex_lock(&r->lock);
	g_ptr_array_add(r->running, &lv);
	g_mutex_unlock(&r->lock);
	/* No cancellable: GLib 2.74 can deadlock freeing communicate()'s
	 * cancellable source on a worker thread (seen: a run idle for good
	 * in g_source_unref).  Ctrl-C and the watchdog end the process
	 * instead, which ends communicate(). */
	if (!g_subprocess_communicate_utf8(proc, NULL, NULL, &out, &err,
					   &error)) {
		g_subprocess_force_exit(proc);
		g_subprocess_wait(proc, NULL, NULL);
		b->failed = true;
		b->err_text = g_strdup(error->message);
		g_clear_error(&error);
	} else {
		b->out_text = out;
		b->err_text = err;
		b->status = g_subprocess_get_if_exited(proc) ?
			    g_subprocess_get_exit_status(proc) : -1;
		if (!g_subprocess_get_if_exited(proc) || b->status != 0)
			b->failed = true;
	}
	g_mutex_lock(&r->lock);
	g_ptr_array_remove_fast(r->running, &lv);
	g_mutex_unlock(&r->lock);
	g_object_unref(proc);
	batch_timing(r, b, start);
}

static gpointer worker(gpointer data)
{
	struct runner *r = data;

	for (;;) {
		guint i = (guint)g_atomic_int_add(&r->next, 1);
		struct batch *b;

		if (i >= r->batches->len || interrupted())
			break;
		b = r->batches->pdata[i];
		run_batch(r, b);
		g_atomic_int_add(&r->files_done, (gint)b->files->len);
	}
	g_atomic_int_inc(&r->finished);
	return NULL;
}

/* Run every batch, env->jobs at a time; Ctrl-C and the watchdog end
 * the processes. */
static void run_batches(struct runner *r, guint total, guint done_before)
{
	struct spatch_env *env = r->env;
	GPtrArray *threads = g_ptr_array_new();
	int n = env->jobs > 0 ? env->jobs : cpu_count();

	if (!r->batches->len)
		return;
	if ((guint)n > r->batches->len)
		n = (int)r->batches->len;
	r->next = 0;
	r->finished = 0;
	r->files_done = 0;
	for (int i = 0; i < n; i++)
		g_ptr_array_add(threads, g_thread_new("spatch", worker, r));
	for (;;) {
		bool all_done = g_atomic_int_get(&r->finished) >= n;
		gint64 now = g_get_monotonic_time();

		g_mutex_lock(&r->lock);
		for (guint i = 0; i < r->running->len; i++) {
			struct live *lv = r->running->pdata[i];

			if ((interrupted() || now > lv->deadline) &&
			    lv->proc) {
				lv->batch->killed = !interrupted();
				g_subprocess_force_exit(lv->proc);
				lv->proc = NULL;
			}
		}
		g_mutex_unlock(&r->lock);
		if (env->progress)
			env->progress(env->progress_ctx, r->mode, done_before +
				      (guint)g_atomic_int_get(&r->files_done),
				      total);
		if (all_done)
			break;
		g_usleep(20000);
	}
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	g_ptr_array_free(threads, TRUE);
}

static int cmp_files(gconstpointer a, gconstpointer b)
{
	const struct spatch_file *x = *(struct spatch_file *const *)a;
	const struct spatch_file *y = *(struct spatch_file *const *)b;
	int c = g_strcmp0(x->sp_file, y->sp_file);
	size_t kx = x->group ? x->group_size : x->size;
	size_t ky = y->group ? y->group_size : y->size;

	if (c)
		return c;
	/* the biggest first: a long file started last would be waited on */
	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	/* in a group the smallest first: the last to ask for its plan gets
	 * the whole of it, the others are parsed again */
	if (x->group)
		return x->size < y->size ? -1 : x->size > y->size ? 1 : 0;
	return 0;
}

/* Files per batch: enough batches to keep every job busy to the end
 * and the progress line moving, few enough to pay start-up rarely. */
static guint batch_size(guint n, int jobs)
{
	guint size = (n + (guint)jobs * 4 - 1) / ((guint)jobs * 4);

	/* a few files: one batch a job, of four at most */
	if (size < 4)
		size = MIN((n + (guint)jobs - 1) / (guint)jobs, 4);
	return CLAMP(size, 1, 64);
}

static struct batch *batch_new(struct runner *r, const char *sp_file)
{
	struct batch *b = g_new0(struct batch, 1);

	b->files = g_ptr_array_new();
	b->sp_file = sp_file;
	b->list = g_strdup_printf("%s/batch-%s-%u.txt", r->env->workdir,
				  r->mode, r->env->nbatches++);
	g_ptr_array_add(r->batches, b);
	return b;
}

/*
 * The rules' callback-name constraints ask Python about every identifier
 * spatch meets.  Each batch gets them behind the set of callback names
 * its files contain, which spatch checks first: Python, which still
 * decides, is asked about those names only.
 */
#define CB_CONSTRAINT \
	"(: script:python \\(\\) \\{ " \
	"timerconv\\.(?:is_callback|called|plans)\\(\\w+\\) \\})"
/* a set cannot be empty: a name no driver defines stands for none */
#define NO_CALLBACK "__timerconv_no_callback__"

/* Words SmPL reads as its own in a metavariable declaration. */
static const char *const smpl_words[] = {
	"analysis", "any", "assignment", "binary", "comments", "constant",
	"context", "declaration", "declarer", "error", "expression",
	"field", "format", "fresh", "function", "global", "identifier",
	"idexpression", "initialiser", "initializer", "iterator", "list",
	"local", "merge", "metavariable", "name", "operator", "parameter",
	"position", "pure", "script", "statement", "symbol", "type",
	"typedef", "virtual", "words", "complex", "size_t", "ssize_t",
	"ptrdiff_t", "decimal", "EXEC", NULL
};

/*
 * A name SmPL could read as something else there (a keyword, a rule, a
 * metavariable or type of the rules: any word of their text), or not as
 * a name at all (a GNU `$` in it), keeps the batch on the rules as
 * written.
 */
static bool smpl_plain(const char *name, const char *rules)
{
	size_t len = strlen(name);

	if (!len || g_ascii_isdigit(name[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(g_ascii_isalnum(name[i]) || name[i] == '_'))
			return false;
	for (int i = 0; smpl_words[i]; i++)
		if (!strcmp(name, smpl_words[i]))
			return false;
	for (const char *p = strstr(rules, name); p; p = strstr(p + 1, name))
		if ((p == rules || !(g_ascii_isalnum(p[-1]) || p[-1] == '_')) &&
		    !(g_ascii_isalnum(p[len]) || p[len] == '_'))
			return false;
	return true;
}

static char *narrowed_set(const struct batch *b, const char *rules)
{
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *names = g_ptr_array_new();
	GString *set = NULL;
	bool plain = true;

	for (guint i = 0; i < b->files->len; i++) {
		const struct spatch_file *f = b->files->pdata[i];

		for (guint k = 0; plain && k < f->names->len; k++) {
			char *name = f->names->pdata[k];

			if (!g_hash_table_add(seen, name))
				continue;
			g_ptr_array_add(names, name);
			plain = smpl_plain(name, rules);
		}
	}
	if (plain) {
		g_ptr_array_sort(names, cmp_strings);
		set = g_string_new("= {");
		for (guint i = 0; i < names->len; i++)
			g_string_append_printf(set, "%s%s", i ? ", " : "",
					       (char *)names->pdata[i]);
		g_string_append(set, names->len ? "}" : NO_CALLBACK "}");
	}
	g_ptr_array_free(names, TRUE);
	g_hash_table_destroy(seen);
	return set ? g_string_free(set, FALSE) : NULL;
}

/* The batch's own rule file, when every file of it names its callbacks. */
static bool batch_narrow(struct runner *r, struct batch *b)
{
	const char *base = b->sp_file ? b->sp_file : base_rules(r);
	GRegex *re;
	char *text = NULL, *set, *repl, *out;
	bool ok;

	for (guint i = 0; i < b->files->len; i++)
		if (!((struct spatch_file *)b->files->pdata[i])->names)
			return true;
	if (!g_file_get_contents(base, &text, NULL, NULL))
		return false;
	set = narrowed_set(b, text);
	if (!set) {
		g_free(text);
		return true;
	}
	re = g_regex_new(CB_CONSTRAINT, 0, 0, NULL);
	repl = g_strconcat(set, " && \\1", NULL);
	out = g_regex_replace(re, text, -1, 0, repl, 0, NULL);
	g_regex_unref(re);
	g_free(repl);
	g_free(set);
	g_free(text);
	if (!out)
		return false;
	b->own_sp = g_strdup_printf("%.*s.cocci",
				    (int)(strlen(b->list) - strlen(".txt")),
				    b->list);
	ok = g_file_set_contents(b->own_sp, out, -1, NULL);
	g_free(out);
	return ok;
}

static bool batch_write(struct runner *r, struct batch *b)
{
	GString *list = g_string_new(NULL);
	size_t largest = 0;
	bool ok;

	for (guint i = 0; i < b->files->len; i++) {
		struct spatch_file *f = b->files->pdata[i];

		g_string_append_printf(list, "%s\n\n", f->input);
		largest = MAX(largest, f->size);
	}
	ok = g_file_set_contents(b->list, list->str, (gssize)list->len, NULL) &&
	     batch_narrow(r, b);
	g_string_free(list, TRUE);
	/* a big file may take longer: the time-out grows with the largest
	 * of the batch (they go by size), beyond TIMEOUT_SCALE bytes */
	b->timeout = r->env->timeout *
		     (int)MIN(1 + largest / TIMEOUT_SCALE, 8);
	/* spatch's --timeout bounds each file; this bounds the process */
	b->limit = b->timeout * (int)b->files->len + 60;
	return ok;
}

/* "EXN: Coccinelle_modules.Common.Timeout in FILE" on stderr. */
static void read_exceptions(struct batch *b, GHashTable *by_input)
{
	char **lines = g_strsplit(b->err_text ? b->err_text : "", "\n", -1);

	for (int i = 0; lines[i]; i++) {
		const char *in = g_strrstr(lines[i], " in ");
		struct spatch_file *f;

		if (!g_str_has_prefix(lines[i], "EXN: ") || !in)
			continue;
		f = g_hash_table_lookup(by_input, in + 4);
		if (!f)
			continue;
		if (strstr(lines[i], "Common.Timeout"))
			f->timed_out = true;
		else if (!f->error)
			f->error = g_strdup(lines[i] + 5);
	}
	g_strfreev(lines);
}

/*
 * TIMERCONV_FACTS_DUMP: each file's record lines as spatch printed them,
 * for the planner's fuzz seeds (facts_dump.h).  Only then: it parses the
 * output twice.
 */
static void keep_records(const char *out, GHashTable *by_input)
{
	JsonParser *parser = json_parser_new();

	for (const char *line = out; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		const char *file = NULL;
		struct spatch_file *f;
		JsonNode *root, *n = NULL;

		if (g_str_has_prefix(line, "TIMERCONV ") &&
		    json_parser_load_from_data(parser, line + 10,
					       (gssize)len - 10, NULL) &&
		    (root = json_parser_get_root(parser)) &&
		    JSON_NODE_HOLDS_OBJECT(root))
			n = json_object_get_member(json_node_get_object(root),
						   "file");
		if (n && JSON_NODE_HOLDS_VALUE(n) &&
		    json_node_get_value_type(n) == G_TYPE_STRING)
			file = json_node_get_string(n);
		f = file ? g_hash_table_lookup(by_input, file) : NULL;
		if (f) {
			char *more = g_strdup_printf("%s%.*s",
				f->records ? f->records : "", (int)len, line);

			g_free(f->records);
			f->records = more;
		}
		line += len;
	}
	g_object_unref(parser);
}

/* Hand each file its records; a batch that failed is retried alone. */
static GPtrArray *collect(struct runner *r, GHashTable *by_input)
{
	GPtrArray *retry = g_ptr_array_new();

	for (guint i = 0; i < r->batches->len; i++) {
		struct batch *b = r->batches->pdata[i];
		GHashTable *facts;

		if (b->failed && b->files->len > 1 && !interrupted()) {
			g_ptr_array_extend(retry, b->files, NULL, NULL);
			continue;
		}
		read_exceptions(b, by_input);
		if (g_getenv("TIMERCONV_FACTS_DUMP"))
			keep_records(b->out_text, by_input);
		facts = facts_parse_files(b->out_text ? b->out_text : "");
		for (guint k = 0; k < b->files->len; k++) {
			struct spatch_file *f = b->files->pdata[k];
			gpointer key, val;

			if (b->failed) {
				f->timed_out |= b->killed;
				if (!f->error)
					f->error = g_strdup(b->err_text &&
						*b->err_text ?
						g_strchomp(b->err_text) :
						"spatch failed");
			}
			if (g_hash_table_steal_extended(facts, f->input, &key,
							&val)) {
				g_free(key);
				f->facts = val;
			}
			/* what a file that timed out said is not all */
			if (f->timed_out || f->error) {
				facts_free(f->facts);
				f->facts = NULL;
			}
		}
		g_hash_table_destroy(facts);
	}
	return retry;
}

/* Below this many bytes a batch of files costs more to start than it
 * gains by keeping jobs busy to the end. */
#define SMALL_BATCH_BYTES (2u << 20)

/*
 * Files that are few bytes in all (the files of a patch pass rewritten
 * again, say) go in fewer batches than batch_size() makes, each file, the
 * largest first, to the lightest batch: a spatch started costs half a
 * second before it reads any C.  Not for files of a group, whose order
 * counts (speculate.h), nor for files of more than one rule file.
 */
static bool balanced_batches(struct runner *r, GPtrArray *todo, guint size,
			     int jobs)
{
	const char *sp_file = ((struct spatch_file *)todo->pdata[0])->sp_file;
	size_t total = 0, *bytes;
	guint count = (todo->len + size - 1) / size, nb;

	for (guint i = 0; i < todo->len; i++) {
		struct spatch_file *f = todo->pdata[i];

		if (f->group || g_strcmp0(f->sp_file, sp_file))
			return false;
		total += f->size;
	}
	nb = MAX((guint)jobs, (guint)(total / SMALL_BATCH_BYTES) + 1);
	if (nb >= count)
		return false;
	bytes = g_new0(size_t, nb);
	for (guint i = 0; i < nb; i++)
		batch_new(r, sp_file);
	for (guint i = 0; i < todo->len; i++) {
		struct spatch_file *f = todo->pdata[i];
		struct batch *b;
		guint light = 0;

		for (guint k = 1; k < nb; k++)
			if (bytes[k] < bytes[light])
				light = k;
		bytes[light] += f->size;
		b = r->batches->pdata[light];
		g_ptr_array_add(b->files, f);
	}
	g_free(bytes);
	return true;
}

static void run_files(struct runner *r, GPtrArray *files)
{
	struct spatch_env *env = r->env;
	GHashTable *by_input = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *todo = g_ptr_array_new();
	int jobs = env->jobs > 0 ? env->jobs : cpu_count();
	guint done = 0;

	if (!files->len) {
		g_hash_table_destroy(by_input);
		g_ptr_array_free(todo, TRUE);
		return;
	}
	g_ptr_array_extend(todo, files, NULL, NULL);
	g_ptr_array_sort(todo, cmp_files);
	for (guint i = 0; i < files->len; i++) {
		struct spatch_file *f = files->pdata[i];

		g_hash_table_insert(by_input, f->input, f);
	}
	r->running = g_ptr_array_new();
	r->started = g_get_monotonic_time();
	g_mutex_init(&r->lock);
	/* a first round in batches, a second file by file for the files
	 * of batches that crashed */
	for (int round = 0; round < 2 && todo->len && !interrupted();
	     round++) {
		guint size = round ? 1 : batch_size(todo->len, jobs);
		struct batch *b = NULL;
		GPtrArray *retry;

		r->batches = g_ptr_array_new_with_free_func(
			(GDestroyNotify)batch_free);
		if (!round && balanced_batches(r, todo, size, jobs))
			size = 0;
		for (guint i = 0; size && i < todo->len; i++) {
			struct spatch_file *f = todo->pdata[i];

			if (!b || b->files->len >= size ||
			    g_strcmp0(b->sp_file, f->sp_file))
				b = batch_new(r, f->sp_file);
			g_ptr_array_add(b->files, f);
		}
		for (guint i = 0; i < r->batches->len; i++)
			if (!batch_write(r, r->batches->pdata[i]))
				((struct batch *)r->batches->pdata[i])->failed =
					true;
		run_batches(r, files->len, done);
		retry = collect(r, by_input);
		done += todo->len - retry->len;
		g_ptr_array_free(r->batches, TRUE);
		g_ptr_array_free(todo, TRUE);
		todo = retry;
	}
	g_ptr_array_free(todo, TRUE);
	g_ptr_array_free(r->running, TRUE);
	g_mutex_clear(&r->lock);
	g_hash_table_destroy(by_input);
}

void spatch_run_files(struct spatch_env *env, const char *mode,
		      GPtrArray *files, const char *plan,
		      const char *callbacks, bool in_place)
{
	struct runner r = {
		.env = env, .mode = mode, .plan = plan,
		.callbacks = callbacks, .in_place = in_place,
	};

	run_files(&r, files);
}

void spatch_run_spec(struct spatch_env *env, GPtrArray *files,
		     const char *callbacks, const char *socket)
{
	struct runner r = {
		.env = env, .mode = "facts+patch", .callbacks = callbacks,
		.spec = socket,
	};

	run_files(&r, files);
}

bool spatch_path_safe(const char *path)
{
	if (!*path)
		return false;
	for (const char *p = path; *p; p++) {
		if (!g_ascii_isalnum(*p) && !strchr("/._-+,=", *p))
			return false;
		/* a word starting with - is an option to diff */
		if (*p == '-' && (p == path || p[-1] == '/'))
			return false;
	}
	return true;
}

struct spatch_file *spatch_file_new(char *input, const char *sp_file,
				    size_t size)
{
	struct spatch_file *f = g_new0(struct spatch_file, 1);

	f->input = input;
	f->sp_file = sp_file;
	f->size = size;
	return f;
}

void spatch_file_free(struct spatch_file *f)
{
	if (!f)
		return;
	g_free(f->input);
	facts_free(f->facts);
	g_free(f->error);
	g_free(f->records);
	g_free(f);
}
