// SPDX-License-Identifier: GPL-2.0
/*
 * The rule files in cocci/ are combined into one semantic patch per run
 * (spatch takes one), with their `virtual` declarations hoisted and the
 * shared Python helpers imported once.  Each input file gets its own
 * spatch process: several files on one command line would share
 * metavariable bindings.
 */
#include <gio/gio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spatch.h"
#include "util.h"

#define MIN_MAJOR 1
#define MIN_MINOR 1

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
	const char *env = g_getenv("TIMERCONV_COCCI_DIR");
	char *dir = exe_dir();
	char *cand;

	if (env)
		return has_rules(env) ? g_strdup(env) : NULL;
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

	if (!g_find_program_in_path("spatch")) {
		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT,
			    "spatch (Coccinelle) is not installed; install it with: apt-get install coccinelle");
		return false;
	}
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

static int cmp_names(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define INCLUDE_RULE "compat_include.cocci"
#define INCLUDE_PLACEHOLDER "TIMERCONV_COMPAT_HEADER"

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
	g_ptr_array_sort(names, cmp_names);
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
			"import timerconv\n");
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

bool spatch_env_init(struct spatch_env *env, GError **error)
{
	char *text;

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
	text = combine_rules(env->cocci_dir, &env->include_rule, error);
	if (!text)
		return false;
	env->sp_file = g_build_filename(env->workdir, "timerconv.cocci", NULL);
	if (!g_file_set_contents(env->sp_file, text, -1, error)) {
		g_free(text);
		return false;
	}
	g_free(text);
	return true;
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
	g_free(env->workdir);
	g_free(env->macro_file);
	memset(env, 0, sizeof(*env));
}

struct runner {
	struct spatch_env *env;
	GPtrArray *jobs;
	gint next;
	gint finished;		/* workers that have returned */
	GCancellable *cancel;
	GMutex lock;
	GPtrArray *running;	/* GSubprocess */
};

static GSubprocess *launch(struct runner *r, struct spatch_job *job,
			   GError **error)
{
	struct spatch_env *env = r->env;
	GSubprocessLauncher *l = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	GSubprocess *proc;

	g_ptr_array_add(argv, g_strdup("spatch"));
	g_ptr_array_add(argv, g_strdup("--very-quiet"));
	g_ptr_array_add(argv, g_strdup("--no-includes"));
	g_ptr_array_add(argv, g_strdup("--no-show-diff"));
	/* spatch re-lays out the statements it touches to this width: at 80
	 * it keeps their breaks and realigns them; wrap.c then lays out
	 * the statements that are wholly new the kernel's way */
	g_ptr_array_add(argv, g_strdup("--max-width"));
	g_ptr_array_add(argv, g_strdup("80"));
	g_ptr_array_add(argv, g_strdup("--timeout"));
	g_ptr_array_add(argv, g_strdup_printf("%d", env->timeout));
	if (env->macro_file) {
		g_ptr_array_add(argv, g_strdup("--macro-file"));
		g_ptr_array_add(argv, g_strdup(env->macro_file));
	}
	g_ptr_array_add(argv, g_strdup("-D"));
	g_ptr_array_add(argv, g_strdup(job->mode));
	g_ptr_array_add(argv, g_strdup("--sp-file"));
	g_ptr_array_add(argv, g_strdup(job->sp_file ? job->sp_file :
				       env->sp_file));
	g_ptr_array_add(argv, g_strdup(job->input));
	if (job->output) {
		g_ptr_array_add(argv, g_strdup("-o"));
		g_ptr_array_add(argv, g_strdup(job->output));
	}
	g_ptr_array_add(argv, NULL);

	g_subprocess_launcher_setenv(l, "TIMERCONV_COCCI_DIR", env->cocci_dir,
				     TRUE);
	g_subprocess_launcher_setenv(l, "PYTHONDONTWRITEBYTECODE", "1", TRUE);
	if (job->plan)
		g_subprocess_launcher_setenv(l, "TIMERCONV_PLAN", job->plan,
					     TRUE);
	else
		g_subprocess_launcher_unsetenv(l, "TIMERCONV_PLAN");
	if (job->callbacks)
		g_subprocess_launcher_setenv(l, "TIMERCONV_CALLBACKS",
					     job->callbacks, TRUE);
	else
		g_subprocess_launcher_unsetenv(l, "TIMERCONV_CALLBACKS");
	/* spatch writes its own temporaries; keep them in our directory. */
	g_subprocess_launcher_setenv(l, "TMPDIR", env->workdir, TRUE);
	proc = g_subprocess_launcher_spawnv(l,
		(const char *const *)argv->pdata, error);
	g_ptr_array_free(argv, TRUE);
	g_object_unref(l);
	return proc;
}

static void run_job(struct runner *r, struct spatch_job *job)
{
	GError *error = NULL;
	char *out = NULL, *err = NULL;
	GSubprocess *proc = launch(r, job, &error);

	if (!proc) {
		job->failed = true;
		job->err_text = g_strdup(error->message);
		g_error_free(error);
		return;
	}
	g_mutex_lock(&r->lock);
	g_ptr_array_add(r->running, proc);
	g_mutex_unlock(&r->lock);
	if (!g_subprocess_communicate_utf8(proc, NULL, r->cancel, &out, &err,
					   &error)) {
		g_subprocess_force_exit(proc);
		g_subprocess_wait(proc, NULL, NULL);
		job->failed = true;
		job->err_text = g_strdup(error->message);
		g_clear_error(&error);
	} else {
		job->out_text = out;
		job->err_text = err;
		job->status = g_subprocess_get_if_exited(proc) ?
			      g_subprocess_get_exit_status(proc) : -1;
		if (!g_subprocess_get_if_exited(proc))
			job->failed = true;
		/* spatch --timeout: "timeout (we abort): FILE", then the
		 * exception Common.Timeout, exit status 2 */
		if ((err && strstr(err, "Common.Timeout")) ||
		    (out && strstr(out, "timeout (we abort)")))
			job->timed_out = true;
	}
	g_mutex_lock(&r->lock);
	g_ptr_array_remove_fast(r->running, proc);
	g_mutex_unlock(&r->lock);
	g_object_unref(proc);
}

static gpointer worker(gpointer data)
{
	struct runner *r = data;

	for (;;) {
		guint i = (guint)g_atomic_int_add(&r->next, 1);

		if (i >= r->jobs->len || g_cancellable_is_cancelled(r->cancel))
			break;
		run_job(r, r->jobs->pdata[i]);
	}
	g_atomic_int_inc(&r->finished);
	return NULL;
}

void spatch_run_all(struct spatch_env *env, GPtrArray *jobs)
{
	struct runner r = { .env = env, .jobs = jobs };
	GPtrArray *threads = g_ptr_array_new();
	int n = env->jobs > 0 ? env->jobs : cpu_count();

	if (!jobs->len)
		return;
	if ((guint)n > jobs->len)
		n = (int)jobs->len;
	r.cancel = g_cancellable_new();
	r.running = g_ptr_array_new();
	g_mutex_init(&r.lock);
	for (int i = 0; i < n; i++)
		g_ptr_array_add(threads, g_thread_new("spatch", worker, &r));
	/* Watch for Ctrl-C while the workers wait on their children. */
	for (;;) {
		bool all_done = g_atomic_int_get(&r.finished) >= n;

		if (interrupted() && !g_cancellable_is_cancelled(r.cancel)) {
			g_cancellable_cancel(r.cancel);
			g_mutex_lock(&r.lock);
			for (guint i = 0; i < r.running->len; i++)
				g_subprocess_force_exit(r.running->pdata[i]);
			g_mutex_unlock(&r.lock);
		}
		if (all_done)
			break;
		g_usleep(20000);
	}
	for (guint i = 0; i < threads->len; i++)
		g_thread_join(threads->pdata[i]);
	g_ptr_array_free(threads, TRUE);
	g_ptr_array_free(r.running, TRUE);
	g_mutex_clear(&r.lock);
	g_object_unref(r.cancel);
}

void spatch_job_free(struct spatch_job *job)
{
	if (!job)
		return;
	g_free(job->input);
	g_free(job->output);
	g_free(job->plan);
	g_free(job->callbacks);
	g_free(job->out_text);
	g_free(job->err_text);
	g_free(job);
}
