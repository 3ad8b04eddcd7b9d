// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers: diagnostics, threads, atomic writes, temporary
 * directories and interruption.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "util.h"

void tc_error(const char *fmt, ...)
{
	va_list ap;

	fputs("timerconv: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void tc_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("timerconv: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void release_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

struct pfor {
	size_t n;
	gint next;
	void (*fn)(size_t i, void *data);
	void *data;
};

static gpointer pfor_worker(gpointer arg)
{
	struct pfor *pf = arg;

	for (;;) {
		size_t i = (size_t)g_atomic_int_add(&pf->next, 1);

		if (i >= pf->n || interrupted())
			break;
		pf->fn(i, pf->data);
	}
	return NULL;
}

void parallel_for(size_t n, int jobs, void (*fn)(size_t i, void *data),
		  void *data)
{
	struct pfor pf = { .n = n, .next = 0, .fn = fn, .data = data };
	GPtrArray *threads;

	if (jobs < 1)
		jobs = 1;
	if ((size_t)jobs > n)
		jobs = n ? (int)n : 1;
	if (jobs == 1) {
		pfor_worker(&pf);
		return;
	}
	threads = g_ptr_array_new();
	for (int j = 0; j < jobs; j++)
		g_ptr_array_add(threads,
				g_thread_new("worker", pfor_worker, &pf));
	for (guint j = 0; j < threads->len; j++)
		g_thread_join(threads->pdata[j]);
	g_ptr_array_free(threads, TRUE);
}

/* ---- temporary files and interruption ---- */

static GMutex tmp_lock;
static GPtrArray *tmp_dirs;
static GPtrArray *tmp_files;
static volatile sig_atomic_t got_signal;

static void track(GPtrArray **arr, const char *path)
{
	g_mutex_lock(&tmp_lock);
	if (!*arr)
		*arr = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(*arr, g_strdup(path));
	g_mutex_unlock(&tmp_lock);
}

static void untrack(GPtrArray *arr, const char *path)
{
	g_mutex_lock(&tmp_lock);
	for (guint i = 0; arr && i < arr->len; i++) {
		if (!strcmp(arr->pdata[i], path)) {
			g_ptr_array_remove_index_fast(arr, i);
			break;
		}
	}
	g_mutex_unlock(&tmp_lock);
}

bool write_file_atomic(const char *path, const char *data, size_t len,
		       int mode, GError **error)
{
	char *dir = g_path_get_dirname(path);
	char *base = g_path_get_basename(path);
	char *tmp = g_strdup_printf("%s/.%s.timerconv-XXXXXX", dir, base);
	struct stat st;
	bool ok = false;
	int fd;

	if (mode < 0)
		mode = stat(path, &st) == 0 ? (int)(st.st_mode & 07777) : 0644;
	if (access(path, F_OK) == 0 && access(path, W_OK) != 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ACCES,
			    "%s: file is not writable", path);
		goto out;
	}
	fd = g_mkstemp_full(tmp, O_WRONLY, 0600);
	if (fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: cannot create temporary file: %s", path,
			    g_strerror(errno));
		goto out;
	}
	track(&tmp_files, tmp);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, G_FILE_ERROR,
				    g_file_error_from_errno(errno),
				    "%s: write failed: %s", path,
				    g_strerror(errno));
			close(fd);
			goto fail;
		}
		off += n;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0 || close(fd) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", path, g_strerror(errno));
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: rename failed: %s", path, g_strerror(errno));
		goto fail;
	}
	untrack(tmp_files, tmp);
	ok = true;
	goto out;
fail:
	unlink(tmp);
	untrack(tmp_files, tmp);
out:
	g_free(tmp);
	g_free(base);
	g_free(dir);
	return ok;
}

bool write_json_atomic(const char *path, JsonBuilder *b, int mode,
		       GError **error)
{
	JsonGenerator *gen = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	char *text;
	gsize len;
	bool ok;

	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	text = json_generator_to_data(gen, &len);
	ok = write_file_atomic(path, text, len, mode, error);
	g_free(text);
	json_node_unref(root);
	g_object_unref(gen);
	return ok;
}

char *tmpdir_create(const char *tag, GError **error)
{
	char *tmpl = g_strdup_printf("timerconv-%s-XXXXXX", tag);
	char *dir = g_dir_make_tmp(tmpl, error);

	g_free(tmpl);
	if (dir)
		track(&tmp_dirs, dir);
	return dir;
}

void remove_tree(const char *path)
{
	struct stat st;
	GDir *d;
	const char *name;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = g_dir_open(path, 0, NULL);
	while (d && (name = g_dir_read_name(d))) {
		char *sub = g_build_filename(path, name, NULL);

		remove_tree(sub);
		g_free(sub);
	}
	if (d)
		g_dir_close(d);
	rmdir(path);
}

void tmpdir_remove_all(void)
{
	/* For debugging the rules: keep what spatch was given. */
	if (env_keep_tmp()) {
		for (guint i = 0; tmp_dirs && i < tmp_dirs->len; i++)
			fprintf(stderr, "timerconv: kept %s\n",
				(char *)tmp_dirs->pdata[i]);
		return;
	}
	g_mutex_lock(&tmp_lock);
	for (guint i = 0; tmp_files && i < tmp_files->len; i++)
		unlink(tmp_files->pdata[i]);
	for (guint i = 0; tmp_dirs && i < tmp_dirs->len; i++)
		remove_tree(tmp_dirs->pdata[i]);
	if (tmp_files)
		g_ptr_array_set_size(tmp_files, 0);
	if (tmp_dirs)
		g_ptr_array_set_size(tmp_dirs, 0);
	g_mutex_unlock(&tmp_lock);
}

static void on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

void interrupt_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	atexit(tmpdir_remove_all);
}

bool interrupted(void)
{
	return got_signal != 0;
}

char *bytes_to_string(GBytes *bytes)
{
	gsize n = 0;
	const char *d = bytes ? g_bytes_get_data(bytes, &n) : NULL;
	char *s = g_malloc(n + 1);

	/* Not g_strndup(): NUL-separated output must survive. */
	if (n)
		memcpy(s, d, n);
	s[n] = '\0';
	return s;
}

bool run_capture(const char *const *argv, const char *cwd, char **out,
		 int *status, bool quiet, GError **error)
{
	GSubprocessLauncher *l;
	GSubprocess *proc;
	GBytes *bytes = NULL;
	bool ok = false;

	l = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE |
				      (quiet ? G_SUBPROCESS_FLAGS_STDERR_SILENCE :
					       0));
	if (cwd)
		g_subprocess_launcher_set_cwd(l, cwd);
	proc = g_subprocess_launcher_spawnv(l, argv, error);
	g_object_unref(l);
	if (!proc)
		return false;
	if (!g_subprocess_communicate(proc, NULL, NULL, &bytes, NULL, error))
		goto out;
	if (status)
		*status = g_subprocess_get_if_exited(proc) ?
			  g_subprocess_get_exit_status(proc) : -1;
	if (out)
		*out = bytes_to_string(bytes);
	ok = true;
out:
	if (bytes)
		g_bytes_unref(bytes);
	g_object_unref(proc);
	return ok;
}

bool cli_parse(GOptionContext *ctx, const char *cmd, int *argc,
	       char ***argv)
{
	GError *error = NULL;
	bool ok = g_option_context_parse(ctx, argc, argv, &error);

	if (!ok) {
		tc_error("%s (see timerconv %s --help)", error->message, cmd);
		g_error_free(error);
	}
	g_option_context_free(ctx);
	return ok;
}

char *text_normalize(const char *p, size_t len)
{
	GString *s = g_string_sized_new(len);
	bool space = false;

	for (size_t i = 0; i < len; i++) {
		char c = p[i];

		/* C's blanks, as the lexer skips them (and as
		 * cocci/timerconv.py's name() folds them) */
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			space = s->len > 0;
			continue;
		}
		if (space)
			g_string_append_c(s, ' ');
		space = false;
		g_string_append_c(s, c);
	}
	return g_string_free(s, FALSE);
}

int cmp_strings(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
