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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "util.h"
#include "version.h"

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

/*
 * Give fd the owner and group of like where they differ and we may (root
 * may; a user may give a group it belongs to), then the mode: chown
 * clears the set-id bits, so the mode comes after.
 */
static int take_owner(int fd, const struct stat *like, int mode)
{
	struct stat st;

	if (like && fstat(fd, &st) == 0 &&
	    (st.st_uid != like->st_uid || st.st_gid != like->st_gid) &&
	    fchown(fd, like->st_uid, like->st_gid) < 0 &&
	    st.st_gid != like->st_gid)
		(void)!fchown(fd, (uid_t)-1, like->st_gid);
	return fchmod(fd, like ? (mode_t)(like->st_mode & 07777) :
				 (mode_t)mode);
}

static bool fill(int fd, const char *path, const char *data, size_t len,
		 const struct stat *like, int mode, GError **error)
{
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
			return false;
		}
		off += n;
	}
	if (take_owner(fd, like, mode) < 0 || fsync(fd) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", path, g_strerror(errno));
		close(fd);
		return false;
	}
	if (close(fd) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", path, g_strerror(errno));
		return false;
	}
	return true;
}

bool write_file_new(const char *path, const char *data, size_t len,
		    const struct stat *like, int mode, GError **error)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: cannot create: %s", path, g_strerror(errno));
		return false;
	}
	track(&tmp_files, path);
	if (!fill(fd, path, data, len, like, mode, error)) {
		unlink(path);
		untrack(tmp_files, path);
		return false;
	}
	return true;
}

void write_file_forget(const char *path)
{
	untrack(tmp_files, path);
}

void write_file_track(const char *path)
{
	track(&tmp_files, path);
}

void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

bool write_file_atomic(const char *path, const char *data, size_t len,
		       int mode, GError **error)
{
	char *dir = g_path_get_dirname(path);
	char *base = g_path_get_basename(path);
	char *tmp = g_strdup_printf("%s/.%s.timerconv-XXXXXX", dir, base);
	struct stat st;
	bool exists = stat(path, &st) == 0;
	bool ok = false;
	int fd;

	if (exists && access(path, W_OK) != 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ACCES,
			    "%s: file is not writable", path);
		goto out;
	}
	if (exists && mode >= 0) {
		/* the mode asked for, the owner kept */
		st.st_mode = (st.st_mode & ~07777) | (mode & 07777);
	} else if (!exists) {
		mode = mode < 0 ? 0644 : mode;
	}
	fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: cannot create temporary file: %s", path,
			    g_strerror(errno));
		goto out;
	}
	track(&tmp_files, tmp);
	if (!fill(fd, path, data, len, exists ? &st : NULL, mode, error))
		goto fail;
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

static bool capture(const char *const *argv, const char *cwd, char **out,
		    gsize *outlen, char **err, int *status, bool quiet,
		    GError **error)
{
	GSubprocessLauncher *l;
	GSubprocess *proc;
	GBytes *bytes = NULL, *ebytes = NULL;
	GSubprocessFlags fl = G_SUBPROCESS_FLAGS_STDOUT_PIPE;
	bool ok = false;

	if (err)
		fl |= G_SUBPROCESS_FLAGS_STDERR_PIPE;
	else if (quiet)
		fl |= G_SUBPROCESS_FLAGS_STDERR_SILENCE;
	l = g_subprocess_launcher_new(fl);
	if (cwd)
		g_subprocess_launcher_set_cwd(l, cwd);
	proc = g_subprocess_launcher_spawnv(l, argv, error);
	g_object_unref(l);
	if (!proc)
		return false;
	if (!g_subprocess_communicate(proc, NULL, NULL, &bytes,
				      err ? &ebytes : NULL, error))
		goto out;
	if (status)
		*status = g_subprocess_get_if_exited(proc) ?
			  g_subprocess_get_exit_status(proc) : -1;
	if (out) {
		*out = bytes_to_string(bytes);
		if (outlen)
			*outlen = bytes ? g_bytes_get_size(bytes) : 0;
	}
	if (err) {
		gsize n;
		const char *d = g_bytes_get_data(ebytes, &n);

		*err = g_strchomp(g_strndup(d ? d : "", n));
	}
	ok = true;
out:
	if (bytes)
		g_bytes_unref(bytes);
	if (ebytes)
		g_bytes_unref(ebytes);
	g_object_unref(proc);
	return ok;
}

bool run_capture(const char *const *argv, const char *cwd, char **out,
		 int *status, bool quiet, GError **error)
{
	return capture(argv, cwd, out, NULL, NULL, status, quiet, error);
}

bool run_capture_err(const char *const *argv, const char *cwd, char **out,
		     char **err, int *status, GError **error)
{
	return capture(argv, cwd, out, NULL, err, status, false, error);
}

bool run_capture_len(const char *const *argv, const char *cwd, char **out,
		     gsize *len, int *status, GError **error)
{
	return capture(argv, cwd, out, len, NULL, status, true, error);
}

bool output_file_ok(const char *opt, const char *path, GError **error)
{
	char *dir = g_path_get_dirname(path);
	const char *fault = NULL;

	if (g_file_test(path, G_FILE_TEST_IS_DIR))
		fault = "is a directory";
	else if (!g_file_test(dir, G_FILE_TEST_EXISTS))
		fault = "its directory does not exist";
	else if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
		fault = "its directory is not a directory";
	else if (access(dir, W_OK | X_OK) != 0)
		fault = "its directory is not writable";
	else if (g_file_test(path, G_FILE_TEST_EXISTS) &&
		 access(path, W_OK) != 0)
		fault = "not writable";
	g_free(dir);
	if (!fault)
		return true;
	g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "%s %s: %s",
		    opt, path, fault);
	return false;
}

bool output_dir_ok(const char *opt, const char *path, GError **error)
{
	char *p = g_strdup(path);
	const char *fault = NULL;

	/* the first part of the path that exists must be a directory we
	 * may write in (or, for path itself, one we may add files to) */
	while (!g_file_test(p, G_FILE_TEST_EXISTS)) {
		char *up = g_path_get_dirname(p);

		if (!strcmp(up, p)) {
			g_free(up);
			break;
		}
		g_free(p);
		p = up;
	}
	if (!g_file_test(p, G_FILE_TEST_IS_DIR))
		fault = strcmp(p, path) ? "a part of the path is not a directory" :
					"not a directory";
	else if (access(p, W_OK | X_OK) != 0)
		fault = "not writable";
	g_free(p);
	if (!fault)
		return true;
	g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "%s %s: %s",
		    opt, path, fault);
	return false;
}

/*
 * GLib's help is UTF-8 ("[OPTION…]"), and g_print() turns what the
 * locale's charset lacks into '?': "[OPTION?]" under LC_ALL=C.  Where
 * the charset is not UTF-8, say it in ASCII instead.
 */
static void print_help(GOptionContext *ctx)
{
	static const char *const ascii[][2] = {
		{ "\u2026", "..." }, { "\u2018", "'" }, { "\u2019", "'" },
		{ "\u201c", "\"" }, { "\u201d", "\"" },
	};
	char *text = g_option_context_get_help(ctx, TRUE, NULL);

	/* "Usage: timerconv check [OPTION…] [PATH…]" on one line, as
	 * timerconv --help has it (and help2man reads it) */
	if (g_str_has_prefix(text, "Usage:\n  ")) {
		text[6] = ' ';
		memmove(text + 7, text + 9, strlen(text + 9) + 1);
	}
	if (!g_get_charset(NULL)) {
		for (size_t i = 0; i < G_N_ELEMENTS(ascii); i++) {
			char **parts = g_strsplit(text, ascii[i][0], -1);

			g_free(text);
			text = g_strjoinv(ascii[i][1], parts);
			g_strfreev(parts);
		}
	}
	fputs(text, stdout);
	fflush(stdout);
	g_free(text);
}

bool cli_parse(GOptionContext *ctx, const char *cmd, int *argc,
	       char ***argv)
{
	gboolean help = FALSE, version = FALSE;
	GOptionEntry common[] = {
		{ "help", 'h', 0, G_OPTION_ARG_NONE, &help,
		  "Show this help and exit", NULL },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &version,
		  "Print the version and exit", NULL },
		{ NULL }
	};
	GError *error = NULL;
	bool ok;

	g_option_context_set_help_enabled(ctx, FALSE);
	g_option_context_add_main_entries(ctx, common, NULL);
	ok = g_option_context_parse(ctx, argc, argv, &error);
	if (!ok) {
		tc_error("%s (see timerconv %s --help)", error->message, cmd);
		g_error_free(error);
	} else if (help || version) {
		if (help)
			print_help(ctx);
		else
			printf("timerconv %s\n", TIMERCONV_VERSION);
		g_option_context_free(ctx);
		exit(EXIT_OK);
	}
	g_option_context_free(ctx);
	return ok;
}

/* prefix/rel with "." and ".." resolved as far as they go; "." for
 * nothing. */
static char *join_rel(const char *prefix, const char *rel)
{
	char *whole = g_strconcat(prefix, "/", rel, NULL);
	char **parts = g_strsplit(whole, "/", -1);
	GPtrArray *out = g_ptr_array_new();
	char *joined;

	for (int i = 0; parts[i]; i++) {
		const char *c = parts[i];

		if (!*c || !strcmp(c, "."))
			continue;
		if (!strcmp(c, "..") && out->len &&
		    strcmp(out->pdata[out->len - 1], ".."))
			g_ptr_array_remove_index(out, out->len - 1);
		else
			g_ptr_array_add(out, (char *)c);
	}
	g_ptr_array_add(out, NULL);
	joined = g_strjoinv("/", (char **)out->pdata);
	g_ptr_array_free(out, TRUE);
	g_strfreev(parts);
	g_free(whole);
	if (!*joined) {
		g_free(joined);
		joined = g_strdup(".");
	}
	return joined;
}

bool cli_tree(const char *given, bool own_root, char ***paths, char **root)
{
	const char *argv[] = { "git", "rev-parse", "--show-toplevel",
			       "--show-prefix", NULL };
	char *out = NULL;
	char **lines = NULL;
	int status = -1;
	GPtrArray *np;

	if (given || own_root ||
	    !run_capture(argv, NULL, &out, &status, true, NULL) ||
	    status != 0 || !(lines = g_strsplit(out, "\n", 3))[0] ||
	    !lines[1] || !*lines[1]) {
		*root = g_strdup(given ? given : ".");
		g_strfreev(lines);
		g_free(out);
		return false;
	}
	/* lines: the top, then the way from it to here ("drivers/net/") */
	*root = g_strdup(lines[0]);
	np = g_ptr_array_new();
	for (int i = 0; *paths && (*paths)[i]; i++)
		g_ptr_array_add(np, g_path_is_absolute((*paths)[i]) ?
				    g_strdup((*paths)[i]) :
				    join_rel(lines[1], (*paths)[i]));
	if (!np->len)
		g_ptr_array_add(np, join_rel(lines[1], "."));
	g_ptr_array_add(np, NULL);
	g_strfreev(*paths);
	*paths = (char **)g_ptr_array_free(np, FALSE);
	g_strfreev(lines);
	g_free(out);
	return true;
}

static bool positive(const char *opt, int *v, const char *what)
{
	if (*v == CLI_UNSET) {
		*v = 0;
		return true;
	}
	if (*v > 0)
		return true;
	tc_error("%s %d: expected %s, 1 or more", opt, *v, what);
	return false;
}

bool cli_jobs(int *jobs)
{
	int cap = cpu_count() * CLI_JOBS_PER_CPU;

	if (!positive("--jobs", jobs, "a number of jobs"))
		return false;
	if (*jobs > cap) {
		tc_warn("--jobs %d: capped at %d (%d times the %d CPU%s)",
			*jobs, cap, CLI_JOBS_PER_CPU, cpu_count(),
			cpu_count() == 1 ? "" : "s");
		*jobs = cap;
	}
	return true;
}

bool cli_timeout(int *timeout)
{
	return positive("--timeout", timeout, "seconds");
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
