// SPDX-License-Identifier: GPL-2.0
/*
 * Running make, and reading what it says: which object failed with
 * which error line (its output is grouped by target, -Otarget, each
 * group opening with kbuild's "  CC      path.o"), and what each compile
 * read (kbuild's .cmd files).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>

#include "kbuild_int.h"
#include "tree.h"
#include "util.h"

#define ERROR_MAX	400

double kb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- running make ---- */

struct proc {
	GSubprocess *p;
	GBytes *out;
	GError *error;
	gint done;
};

static void own_group(gpointer data)
{
	(void)data;
	setpgid(0, 0);
}

static gpointer communicate(gpointer data)
{
	struct proc *pr = data;

	g_subprocess_communicate(pr->p, NULL, NULL, &pr->out, NULL,
				 &pr->error);
	g_atomic_int_set(&pr->done, 1);
	return NULL;
}

bool kb_run_make(const char *const *argv, const char *const *env,
		 char **out, int *status, GError **error)
{
	GSubprocessLauncher *l = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE |
		G_SUBPROCESS_FLAGS_STDERR_MERGE);
	struct proc pr = { 0 };
	GThread *th;
	bool killed = false;
	gsize n;
	const char *d;

	/* English messages, plain quotes: the error lines are parsed */
	g_subprocess_launcher_setenv(l, "LANG", "C", TRUE);
	g_subprocess_launcher_setenv(l, "LC_MESSAGES", "C", TRUE);
	g_subprocess_launcher_setenv(l, "LC_CTYPE", "C", TRUE);
	g_subprocess_launcher_unsetenv(l, "LC_ALL");
	/* not a sub-make of whatever make ran timerconv */
	g_subprocess_launcher_unsetenv(l, "MAKEFLAGS");
	g_subprocess_launcher_unsetenv(l, "MFLAGS");
	g_subprocess_launcher_unsetenv(l, "MAKELEVEL");
	g_subprocess_launcher_unsetenv(l, "KBUILD_OUTPUT");
	g_subprocess_launcher_unsetenv(l, "MAKEFILES");
	g_subprocess_launcher_unsetenv(l, "TIMERCONV_PARENT");
	for (int i = 0; env && env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		char *name = g_strndup(env[i], eq - env[i]);

		g_subprocess_launcher_setenv(l, name, eq + 1, TRUE);
		g_free(name);
	}
	g_subprocess_launcher_set_child_setup(l, own_group, NULL, NULL);
	pr.p = g_subprocess_launcher_spawnv(l, argv, error);
	g_object_unref(l);
	if (!pr.p)
		return false;
	th = g_thread_new("make", communicate, &pr);
	while (!g_atomic_int_get(&pr.done)) {
		if (interrupted() && !killed) {
			const char *id = g_subprocess_get_identifier(pr.p);

			if (id)
				kill(-(pid_t)atoi(id), SIGTERM);
			killed = true;
		}
		g_usleep(20000);
	}
	g_thread_join(th);
	if (interrupted()) {
		g_clear_error(&pr.error);
		if (pr.out)
			g_bytes_unref(pr.out);
		g_object_unref(pr.p);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
			    "interrupted");
		return false;
	}
	if (pr.error) {
		g_propagate_error(error, pr.error);
		if (pr.out)
			g_bytes_unref(pr.out);
		g_object_unref(pr.p);
		return false;
	}
	*status = g_subprocess_get_if_exited(pr.p) ?
		  g_subprocess_get_exit_status(pr.p) : -1;
	d = pr.out ? g_bytes_get_data(pr.out, &n) : NULL;
	*out = d ? g_strndup(d, n) : g_strdup("");
	if (pr.out)
		g_bytes_unref(pr.out);
	g_object_unref(pr.p);
	return true;
}

char *kb_tail(const char *out, int lines)
{
	const char *p = out + strlen(out);

	while (p > out && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	for (const char *q = p; q > out; q--)
		if (q[-1] == '\n' && --lines == 0)
			return g_strndup(q, p - q);
	return g_strndup(out, p - out);
}

GPtrArray *kb_make_argv(struct kbuild *kb)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

	g_ptr_array_add(a, g_strdup("make"));
	g_ptr_array_add(a, g_strdup("-C"));
	if (kb->kdir) {
		g_ptr_array_add(a, g_strdup(kb->kdir));
	} else {
		g_ptr_array_add(a, g_strdup(kb->view));
		g_ptr_array_add(a, g_strdup_printf("O=%s", kb->build));
	}
	/* --make-arg: ARCH=, CROSS_COMPILE=, LLVM=, CC=, HOSTCFLAGS=... */
	for (int i = 0; kb->make_args && kb->make_args[i]; i++)
		g_ptr_array_add(a, g_strdup(kb->make_args[i]));
	return a;
}



/* "./a/b/../c.o" -> "a/c.o"; the top is ".", as make names it */
char *kb_norm(const char *path)
{
	char *res = path_normalize(path);

	if (!*res) {
		g_free(res);
		res = g_strdup(".");
	}
	return res;
}

/* Relative to the tree: strip our copy's path (modules), normalise. */
char *kb_tree_rel(struct kbuild *kb, const char *path)
{
	if (kb->copy && g_str_has_prefix(path, kb->copy) &&
	    path[strlen(kb->copy)] == '/')
		return kb_norm(path + strlen(kb->copy) + 1);
	return kb_norm(path);
}

/* ---- what make said ---- */

/* The make output with our paths taken out, so that it names the
 * tree's files. */
char *kb_unprefix(struct kbuild *kb, const char *out)
{
	GString *s = g_string_new(out);
	const char *pre[] = { kb->view_real, kb->view, kb->copy, NULL };

	for (int i = 0; i < 3; i++) {
		char *p;

		if (!pre[i])
			continue;
		p = g_strconcat(pre[i], "/", NULL);
		g_string_replace(s, p, "", 0);
		g_free(p);
	}
	return g_string_free(s, FALSE);
}

const char *kb_cc_object(const char *after_cc)
{
	const char *p = after_cc;

	while (*p == ' ')
		p++;
	if (!strncmp(p, "[M]", 3))
		p += 3;
	while (*p == ' ')
		p++;
	return p;
}

/* "  CC [M]  drivers/x/y.o" -> "drivers/x/y.o" */
static const char *cc_target(const char *l, char **buf)
{
	while (*l == ' ' || *l == '\t')
		l++;
	if (strncmp(l, "CC ", 3))
		return NULL;
	*buf = g_strchomp(g_strdup(kb_cc_object(l + 3)));
	return *buf;
}

/* "make[8]: *** [scripts/Makefile.build:229: drivers/x/y.o] Error 1" */
char *kb_failed_target(const char *l)
{
	const char *p = strstr(l, "*** [");
	const char *end, *sep;

	if (!p)
		return NULL;
	p += 5;
	end = strchr(p, ']');
	if (!end)
		return NULL;
	sep = g_strrstr_len(p, end - p, ": ");
	if (sep)
		p = sep + 2;
	return g_strndup(p, end - p);
}

/* "make[1]: *** No rule to make target 'x/y.o'.  Stop." */
char *kb_no_rule(const char *l)
{
	const char *p = strstr(l, "No rule to make target '");
	const char *end;

	if (!p)
		return NULL;
	p += strlen("No rule to make target '");
	end = strchr(p, '\'');
	return end ? g_strndup(p, end - p) : NULL;
}

static bool is_error_line(const char *l)
{
	return strstr(l, ": error: ") || strstr(l, ": fatal error: ");
}

static char *clip(const char *l)
{
	char *s = g_strstrip(g_strdup(l));

	if (strlen(s) > ERROR_MAX)
		strcpy(s + ERROR_MAX - 3, "...");
	return s;
}

char *kb_first_error(const char *out)
{
	char **lines = g_strsplit(out, "\n", -1);
	char *res = NULL;

	for (int i = 0; lines[i] && !res; i++)
		if (is_error_line(lines[i]))
			res = clip(lines[i]);
	g_strfreev(lines);
	return res;
}

static gint lookup(GHashTable *index, const char *target, const char *mod)
{
	gpointer v;
	char *n = kb_norm(target);
	bool found = g_hash_table_lookup_extended(index, n, NULL, &v);

	g_free(n);
	if (!found && mod) {
		char *full = g_build_filename(mod, target, NULL);

		n = kb_norm(full);
		found = g_hash_table_lookup_extended(index, n, NULL, &v);
		g_free(n);
		g_free(full);
	}
	return found ? GPOINTER_TO_INT(v) : -1;
}

/* Give each failed object the first error line of its compile. */
void kb_parse_errors(struct kbuild *kb, const char *raw, GPtrArray *objects,
		     const char *mod, struct kbuild_result *res, guint *ccs,
		     guint *ours, guint *named)
{
	char *out = kb_unprefix(kb, raw);
	char **lines = g_strsplit(out, "\n", -1);
	GHashTable *index = g_hash_table_new(g_str_hash, g_str_equal);
	gint cur = -1;
	char *pending = NULL;	/* first error since the last CC line */

	for (guint i = 0; i < objects->len; i++)
		g_hash_table_insert(index, objects->pdata[i],
				    GINT_TO_POINTER(i));
	for (int i = 0; lines[i]; i++) {
		char *buf = NULL, *t;
		const char *cc = cc_target(lines[i], &buf);

		if (cc) {
			cur = lookup(index, cc, mod);
			(*ccs)++;
			if (cur >= 0)
				(*ours)++;
			g_clear_pointer(&pending, g_free);
		} else if (is_error_line(lines[i])) {
			if (cur >= 0 && !res[cur].error)
				res[cur].error = clip(lines[i]);
			if (!pending)
				pending = clip(lines[i]);
		} else if ((t = kb_failed_target(lines[i])) ||
			   (t = kb_no_rule(lines[i]))) {
			gint k = lookup(index, t, mod);

			if (k >= 0 && !res[k].error)
				res[k].error = pending ? g_strdup(pending) :
					       clip(lines[i]);
			if (k >= 0)
				(*named)++;
			g_free(t);
		}
		g_free(buf);
	}
	g_free(pending);
	g_hash_table_destroy(index);
	g_strfreev(lines);
	g_free(out);
}

/* What the compile of obj read, from the .cmd file kbuild writes next to
 * it ("deps_OBJ := \" and a path a line), as paths in the tree. */
GHashTable *kb_read_deps(struct kbuild *kb, const char *obj)
{
	char *dir = g_path_get_dirname(obj);
	char *base = g_path_get_basename(obj);
	char *cmd = g_strdup_printf("%s/%s/.%s.cmd",
				    kb->copy ? kb->copy : kb->build, dir,
				    base);
	const char *pre[] = { kb->view_real, kb->view, kb->copy };
	GHashTable *deps = NULL;
	char *text = NULL;
	char **lines;
	bool in = false;

	if (!g_file_get_contents(cmd, &text, NULL, NULL))
		goto out;
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char **w;

		if (!in && !g_str_has_prefix(lines[i], "deps_"))
			continue;
		if (!in) {
			in = true;
			deps = g_hash_table_new_full(g_str_hash, g_str_equal,
						     g_free, NULL);
		}
		w = g_strsplit_set(lines[i], " \t", -1);
		for (int k = 0; w[k]; k++) {
			for (int p = 0; p < 3; p++) {
				size_t n = pre[p] ? strlen(pre[p]) : 0;

				if (n && !strncmp(w[k], pre[p], n) &&
				    w[k][n] == '/') {
					g_hash_table_add(deps,
							 kb_norm(w[k] + n + 1));
					break;
				}
			}
		}
		g_strfreev(w);
		if (!g_str_has_suffix(g_strchomp(lines[i]), "\\"))
			break;
	}
	g_strfreev(lines);
out:
	g_free(text);
	g_free(cmd);
	g_free(base);
	g_free(dir);
	return deps;
}

