// SPDX-License-Identifier: GPL-2.0
/*
 * Driving a tree's kbuild.  In-tree code is built in a build directory of
 * timerconv's own (kbuild's O=), from a source view (overlay.c) at a fixed
 * path inside it, so the tree is never written and the directory, once
 * configured and prepared, serves every later run.  kbuild compiles any
 * object it is asked for, enabled or not, so which objects the config
 * builds is asked of the directories' Makefiles (kbuild_query.c).
 * Out-of-tree modules are built with `make -C KDIR M=DIR` in a copy of
 * their tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "kbuild_int.h"
#include "overlay.h"
#include "util.h"

#define STAMP		".timerconv-stamp"
#define LOCK		".timerconv-lock"
#define VIEW		".timerconv-src"

/* make -C VIEW O=BUILD args...; an error (with make's last lines) if it
 * fails */
static bool make_step(struct kbuild *kb, const char *what, GError **error,
		      ...)
{
	GPtrArray *a = kb_make_argv(kb);
	const char *arg;
	char *out = NULL;
	int status = -1;
	va_list ap;
	bool ok;

	va_start(ap, error);
	while ((arg = va_arg(ap, const char *)))
		g_ptr_array_add(a, g_strdup(arg));
	va_end(ap);
	g_ptr_array_add(a, NULL);
	ok = kb_run_make((const char *const *)a->pdata, NULL, &out, &status,
		      error);
	if (ok && status != 0) {
		char *t = kb_tail(out, 12);
		char *first = kb_first_error(out);
		char *hint = kb_hint(kb, out);

		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "--verify: make %s failed in %s%s%s; it ended:\n%s%s%s",
			    what, kb->build, first ? ": " : "",
			    first ? first : "", t,
			    hint ? "\nlikely cause: " : "", hint ? hint : "");
		g_free(hint);
		g_free(first);
		g_free(t);
		ok = false;
	}
	g_free(out);
	g_ptr_array_free(a, TRUE);
	return ok;
}

/* ---- the build directory ---- */

static const char *const config_targets[] = {
	"defconfig", "allmodconfig", "allyesconfig", "allnoconfig",
	"tinyconfig", NULL,
};

static bool is_config_target(const char *spec)
{
	for (int i = 0; config_targets[i]; i++)
		if (!strcmp(spec, config_targets[i]))
			return true;
	return false;
}

static char *sha256_file(const char *path)
{
	char *text = NULL;
	gsize len = 0;
	char *sum;

	if (!g_file_get_contents(path, &text, &len, NULL))
		return g_strdup("");
	sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256,
					  (const guchar *)text, len);
	g_free(text);
	return sum;
}

static char *stamp_text(struct kbuild *kb)
{
	char *sum = kb->config_file ? sha256_file(kb->config_file) :
				      g_strdup("");
	char *res = g_strdup_printf("timerconv build directory\n"
				    "tree: %s\nconfig: %s\nconfig-sha256: %s\n",
				    kb->key, kb->config, sum);

	g_free(sum);
	if (kb->make_args && kb->make_args[0]) {
		/* ARCH=, CC=... make another build directory */
		char *args = g_strjoinv(" ", kb->make_args);
		char *with = g_strdup_printf("%smake-args: %s\n", res, args);

		g_free(args);
		g_free(res);
		res = with;
	}
	return res;
}

static char *default_build_dir(struct kbuild *kb)
{
	char *args = kb->make_args && kb->make_args[0] ?
		     g_strjoinv(" ", kb->make_args) : NULL;
	char *in = g_strdup_printf("%s\n%s\n%s%s%s", kb->key, kb->config,
				   kb->config_file ? kb->config_file : "",
				   args ? "\n" : "", args ? args : "");
	char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA1, in, -1);
	char *base = g_path_get_basename(kb->key);
	char *name = g_strdup_printf("%s-%.12s", base, sum);
	char *dir = g_build_filename(g_get_user_cache_dir(), "timerconv",
				     "kbuild", name, NULL);

	g_free(name);
	g_free(base);
	g_free(sum);
	g_free(in);
	g_free(args);
	return dir;
}

static bool dir_has_files(const char *path)
{
	GDir *d = g_dir_open(path, 0, NULL);
	bool res = false;
	const char *name;

	while (d && (name = g_dir_read_name(d)))
		if (strcmp(name, LOCK))
			res = true;
	if (d)
		g_dir_close(d);
	return res;
}

static bool take_lock(struct kbuild *kb, GError **error)
{
	char *path = g_build_filename(kb->build, LOCK, NULL);

	kb->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	g_free(path);
	if (kb->lock_fd < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "--verify: %s: %s", kb->build, g_strerror(errno));
		return false;
	}
	if (flock(kb->lock_fd, LOCK_EX | LOCK_NB) == 0)
		return true;
	tc_warn("waiting for another timerconv run that uses %s", kb->build);
	if (flock(kb->lock_fd, LOCK_EX) == 0)
		return true;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		    "interrupted while waiting for %s", kb->build);
	return false;
}

/* Paths kbuild would take for an in-tree build (and refuse O= for). */
static void hide_build_output(struct kbuild *kb)
{
	static const char *const fixed[] = {
		".git", ".config", ".config.old", "include/config",
		"include/generated", NULL
	};
	char *arch = g_build_filename(kb->src, "arch", NULL);
	GDir *d = g_dir_open(arch, 0, NULL);
	const char *name;

	for (int i = 0; fixed[i]; i++)
		g_ptr_array_add(kb->hide, g_strdup(fixed[i]));
	while (d && (name = g_dir_read_name(d))) {
		char *gen = g_build_filename(arch, name, "include",
					     "generated", NULL);

		if (g_file_test(gen, G_FILE_TEST_IS_DIR))
			g_ptr_array_add(kb->hide, g_strdup_printf(
				"arch/%s/include/generated", name));
		g_free(gen);
	}
	if (d)
		g_dir_close(d);
	g_free(arch);
	/* a build directory inside the tree is not part of the sources */
	if (g_str_has_prefix(kb->build, kb->src) &&
	    kb->build[strlen(kb->src)] == '/')
		g_ptr_array_add(kb->hide,
				g_strdup(kb->build + strlen(kb->src) + 1));
}

static bool open_in_tree(struct kbuild *kb, const struct kbuild_opts *o,
			 GError **error)
{
	char *mk = g_build_filename(kb->src, "Makefile", NULL);
	char *tree_config = g_build_filename(kb->src, ".config", NULL);
	bool ok = false;

	if (!g_file_test(mk, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--verify: %s has no Makefile: not a kernel tree (for an out-of-tree module, give --kernel-headers KDIR)",
			    kb->src);
		goto out;
	}
	if (o->config && is_config_target(o->config)) {
		kb->config = g_strdup(o->config);
	} else if (o->config) {
		char *real = realpath(o->config, NULL);

		if (!real || !g_file_test(real, G_FILE_TEST_IS_REGULAR)) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "--config %s: expected defconfig, allmodconfig, allyesconfig or a .config file",
				    o->config);
			free(real);
			goto out;
		}
		kb->config = g_strdup(o->config);
		kb->config_file = g_strdup(real);
		free(real);
	} else if (g_file_test(tree_config, G_FILE_TEST_IS_REGULAR)) {
		kb->config = g_strdup("the tree's .config");
		kb->config_file = g_strdup(tree_config);
	} else {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--verify: %s has no .config: give --config defconfig|allmodconfig|allyesconfig|FILE",
			    kb->src);
		goto out;
	}
	if (o->build_dir) {
		char *stamp;	/* the lock file, the mark of ours */

		g_mkdir_with_parents(o->build_dir, 0755);
		kb->build = realpath(o->build_dir, NULL);
		if (!kb->build) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "--build-dir %s: %s", o->build_dir,
				    g_strerror(errno));
			goto out;
		}
		/* timerconv takes the lock before it writes anything */
		stamp = g_build_filename(kb->build, LOCK, NULL);
		if (!g_file_test(stamp, G_FILE_TEST_EXISTS) &&
		    dir_has_files(kb->build)) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
				    "--build-dir %s: the directory has files and timerconv did not make it; give a new or empty directory",
				    o->build_dir);
			g_free(stamp);
			goto out;
		}
		g_free(stamp);
	} else {
		char *dir = default_build_dir(kb);

		g_mkdir_with_parents(dir, 0755);
		kb->build = realpath(dir, NULL);
		if (!kb->build) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
				    "--verify: %s: %s", dir, g_strerror(errno));
			g_free(dir);
			goto out;
		}
		g_free(dir);
	}
	if (!strcmp(kb->build, kb->src)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "--build-dir %s: that is the tree itself",
			    o->build_dir);
		goto out;
	}
	kb->view = g_build_filename(kb->build, VIEW, NULL);
	hide_build_output(kb);
	g_ptr_array_add(kb->hide, NULL);
	kb->describe = g_strdup_printf("%s in %s", kb->config, kb->build);
	ok = take_lock(kb, error);
out:
	g_free(tree_config);
	g_free(mk);
	return ok;
}

static bool copy_tree(const char *from, const char *to, GError **error)
{
	GDir *d = g_dir_open(from, 0, error);
	const char *name;
	bool ok = d != NULL;

	if (ok && g_mkdir_with_parents(to, 0755) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", to, g_strerror(errno));
		ok = false;
	}
	while (ok && (name = g_dir_read_name(d))) {
		char *a = g_build_filename(from, name, NULL);
		char *b = g_build_filename(to, name, NULL);
		struct stat st;

		if (!strcmp(name, ".git") || lstat(a, &st) < 0) {
			/* not sources */
		} else if (S_ISDIR(st.st_mode)) {
			ok = copy_tree(a, b, error);
		} else if (S_ISLNK(st.st_mode)) {
			char *target = g_file_read_link(a, NULL);

			if (target && symlink(target, b) < 0)
				ok = false;
			g_free(target);
		} else if (S_ISREG(st.st_mode)) {
			char *text = NULL;
			gsize len;

			ok = g_file_get_contents(a, &text, &len, error) &&
			     g_file_set_contents(b, text, len, error);
			g_free(text);
		}
		g_free(a);
		g_free(b);
	}
	if (d)
		g_dir_close(d);
	return ok;
}

static bool open_module(struct kbuild *kb, const struct kbuild_opts *o,
			GError **error)
{
	char *mk = g_build_filename(o->kernel_headers, "Makefile", NULL);
	bool ok = g_file_test(mk, G_FILE_TEST_IS_REGULAR);

	g_free(mk);
	if (!ok) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--kernel-headers %s: no Makefile there: not a kernel build directory (/lib/modules/$(uname -r)/build is one)",
			    o->kernel_headers);
		return false;
	}
	kb->kdir = realpath(o->kernel_headers, NULL);
	kb->config = g_strdup("the kernel's");
	kb->describe = g_strdup_printf("modules for %s", kb->kdir);
	kb->copy = g_build_filename(kb->tmp, "tree", NULL);
	kb->dirty = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  NULL);
	g_ptr_array_add(kb->hide, NULL);
	if (!copy_tree(kb->src, kb->copy, error))
		return false;
	for (guint i = 0; kb->base && i < kb->base->len; i++) {
		const struct overlay_file *f = kb->base->pdata[i];
		char *abs = g_build_filename(kb->copy, f->path, NULL);

		if (f->text)
			ok = g_file_set_contents(abs, f->text, f->len, error);
		else
			unlink(abs);
		g_free(abs);
		if (f->text && !ok)
			return false;
	}
	return true;
}

/* VAR=VALUE, as make takes a variable on its command line; not one
 * that timerconv sets itself. */
static bool make_args_ok(const char *const *args, GError **error)
{
	static const char *const ours[] = {
		"O", "M", "KBUILD_OUTPUT", "KBUILD_EXTMOD", "MAKEFILES", NULL,
	};

	for (int i = 0; args && args[i]; i++) {
		const char *a = args[i];
		const char *eq = strchr(a, '=');
		bool name_ok = eq && eq > a && !g_ascii_isdigit(a[0]);

		for (const char *p = a; name_ok && p < eq; p++)
			name_ok = g_ascii_isalnum(*p) || *p == '_';
		if (!name_ok) {
			g_set_error(error, G_OPTION_ERROR,
				    G_OPTION_ERROR_BAD_VALUE,
				    "--make-arg %s: expected VAR=VALUE, as in ARCH=arm64, CROSS_COMPILE=aarch64-linux-gnu-, LLVM=1, CC=gcc-12, HOSTCFLAGS=-fcommon",
				    a);
			return false;
		}
		for (int k = 0; ours[k]; k++) {
			if (strlen(ours[k]) == (size_t)(eq - a) &&
			    !strncmp(a, ours[k], eq - a)) {
				g_set_error(error, G_OPTION_ERROR,
					    G_OPTION_ERROR_BAD_VALUE,
					    "--make-arg %s: timerconv sets %s itself (the build directory is --build-dir)",
					    a, ours[k]);
				return false;
			}
		}
	}
	return true;
}

struct kbuild *kbuild_open(const struct kbuild_opts *o, GError **error)
{
	struct kbuild *kb;
	bool ok;

	if (!make_args_ok(o->make_args, error))
		return NULL;
	kb = g_new0(struct kbuild, 1);
	kb->make_args = g_strdupv((char **)o->make_args);
	kb->lock_fd = -1;
	kb->jobs = o->jobs > 0 ? o->jobs : cpu_count();
	kb->src = realpath(o->src, NULL);
	kb->key = realpath(o->key ? o->key : o->src, NULL);
	kb->base = o->base;
	kb->hide = g_ptr_array_new_with_free_func(g_free);
	if (!kb->src || !kb->key) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--verify: %s: %s", o->src, g_strerror(errno));
		kbuild_close(kb);
		return NULL;
	}
	kb->tmp = tmpdir_create("kbuild", error);
	if (!kb->tmp) {
		kbuild_close(kb);
		return NULL;
	}
	ok = o->kernel_headers ? open_module(kb, o, error) :
				 open_in_tree(kb, o, error);
	if (!ok) {
		kbuild_close(kb);
		return NULL;
	}
	return kb;
}

void kbuild_close(struct kbuild *kb)
{
	if (!kb)
		return;
	if (kb->lock_fd >= 0)
		close(kb->lock_fd);
	free(kb->src);
	free(kb->key);
	free(kb->build);
	free(kb->kdir);
	g_free(kb->view_real);
	g_free(kb->config);
	g_free(kb->config_file);
	g_free(kb->view);
	g_free(kb->copy);
	g_free(kb->describe);
	g_free(kb->tmp);
	g_strfreev(kb->make_args);
	if (kb->dirty)
		g_hash_table_destroy(kb->dirty);
	g_ptr_array_free(kb->hide, TRUE);
	g_free(kb);
}

const char *kbuild_describe(const struct kbuild *kb)
{
	return kb->describe;
}

const char *kbuild_config(const struct kbuild *kb)
{
	return kb->config;
}

const char *kbuild_dir(const struct kbuild *kb)
{
	return kb->kdir ? kb->kdir : kb->build;
}

const struct kbuild_stats *kbuild_stats(const struct kbuild *kb)
{
	return &kb->stats;
}

/* Make the source view: the tree as of base, with state on top. */
bool kb_view_build(struct kbuild *kb, GPtrArray *state, GError **error)
{
	GPtrArray *files = g_ptr_array_new();
	bool ok;

	for (guint i = 0; kb->base && i < kb->base->len; i++)
		g_ptr_array_add(files, kb->base->pdata[i]);
	for (guint i = 0; state && i < state->len; i++)
		g_ptr_array_add(files, state->pdata[i]);
	ok = overlay_build(kb->view, kb->src, files,
			   (const char *const *)kb->hide->pdata, error);
	g_ptr_array_free(files, TRUE);
	if (ok && !kb->view_real)
		kb->view_real = realpath(kb->view, NULL);
	return ok;
}

bool kbuild_prepare(struct kbuild *kb, GError **error)
{
	char *stamp_path, *want, *have = NULL;
	double t0 = kb_now();
	bool ok = false;

	if (kb->kdir)
		return true;
	stamp_path = g_build_filename(kb->build, STAMP, NULL);
	want = stamp_text(kb);
	if (!kb_view_build(kb, NULL, error))
		goto out;
	if (g_file_get_contents(stamp_path, &have, NULL, NULL) &&
	    !strcmp(have, want)) {
		ok = true;
		goto out;
	}
	unlink(stamp_path);
	fprintf(stderr, "timerconv: verify: configuring %s (%s) and running make prepare; later runs reuse it\n",
		kb->build, kb->config);
	if (kb->config_file) {
		char *text = NULL, *dst = g_build_filename(kb->build,
							   ".config", NULL);
		gsize len;

		ok = g_file_get_contents(kb->config_file, &text, &len,
					 error) &&
		     g_file_set_contents(dst, text, len, error) &&
		     make_step(kb, "olddefconfig", error, "olddefconfig",
			       NULL);
		g_free(text);
		g_free(dst);
	} else {
		ok = make_step(kb, kb->config, error, kb->config, NULL);
	}
	if (ok) {
		char *j = g_strdup_printf("-j%d", kb->jobs);

		ok = make_step(kb, "prepare", error, j, "prepare", NULL);
		g_free(j);
	}
	if (ok)
		ok = g_file_set_contents(stamp_path, want, -1, error);
	kb->stats.prepared = ok;
out:
	kb->stats.prepare_s += kb_now() - t0;
	g_free(have);
	g_free(want);
	g_free(stamp_path);
	return ok;
}

char *kbuild_object(const char *c_path)
{
	size_t n = strlen(c_path);

	if (n < 2 || strcmp(c_path + n - 2, ".c"))
		return NULL;
	return g_strdup_printf("%.*s.o", (int)(n - 2), c_path);
}


/* The directory of the module an object belongs to: the nearest one up
 * with a Kbuild file or a Makefile. */
char *kb_module_dir(struct kbuild *kb, const char *obj)
{
	char *dir = g_path_get_dirname(obj);

	for (;;) {
		char *kbuild = g_build_filename(kb->copy, dir, "Kbuild", NULL);
		char *mk = g_build_filename(kb->copy, dir, "Makefile", NULL);
		bool found = g_file_test(kbuild, G_FILE_TEST_EXISTS) ||
			     g_file_test(mk, G_FILE_TEST_EXISTS);
		char *up;

		g_free(kbuild);
		g_free(mk);
		if (found)
			return dir;
		if (!strcmp(dir, "."))
			break;
		up = g_path_get_dirname(dir);
		g_free(dir);
		dir = up;
	}
	g_free(dir);
	return NULL;
}


/* ---- compiling ---- */

/* Out-of-tree: make the copy hold the state (and only it). */
static bool copy_state(struct kbuild *kb, GPtrArray *state, GError **error)
{
	GHashTable *now_dirty = g_hash_table_new_full(g_str_hash,
		g_str_equal, g_free, NULL);
	GHashTableIter it;
	gpointer k;
	bool ok = true;

	for (guint i = 0; state && i < state->len; i++) {
		const struct overlay_file *f = state->pdata[i];

		g_hash_table_add(now_dirty, g_strdup(f->path));
	}
	/* put back what the last state changed */
	g_hash_table_iter_init(&it, kb->dirty);
	while (g_hash_table_iter_next(&it, &k, NULL)) {
		const char *path = k;
		const struct overlay_file *b = NULL;
		char *dst = g_build_filename(kb->copy, path, NULL);
		char *orig = g_build_filename(kb->src, path, NULL);
		char *text = NULL;
		gsize len = 0;

		for (guint i = 0; kb->base && i < kb->base->len; i++)
			if (!strcmp(((struct overlay_file *)
				     kb->base->pdata[i])->path, path))
				b = kb->base->pdata[i];
		if (g_hash_table_contains(now_dirty, path)) {
			/* rewritten below */
		} else if (b ? b->text != NULL :
			   g_file_get_contents(orig, &text, &len, NULL)) {
			ok &= g_file_set_contents(dst, b ? b->text : text,
						  b ? (gssize)b->len :
						      (gssize)len, NULL);
		} else {
			unlink(dst);
		}
		g_free(text);
		g_free(orig);
		g_free(dst);
	}
	for (guint i = 0; ok && state && i < state->len; i++) {
		const struct overlay_file *f = state->pdata[i];
		char *dst = g_build_filename(kb->copy, f->path, NULL);
		char *dir = g_path_get_dirname(dst);

		g_mkdir_with_parents(dir, 0755);
		if (f->text)
			ok = g_file_set_contents(dst, f->text, f->len, error);
		else
			unlink(dst);
		g_free(dir);
		g_free(dst);
	}
	g_hash_table_destroy(kb->dirty);
	kb->dirty = now_dirty;
	if (!ok && error && !*error)
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "--verify: cannot write %s", kb->copy);
	return ok;
}


/* One make run for objects (all in one module directory, out of tree). */
static bool compile_batch(struct kbuild *kb, GPtrArray *objects,
			  const char *mod, struct kbuild_result *res,
			  GError **error)
{
	GPtrArray *a = kb_make_argv(kb);
	char *out = NULL, *moddir = NULL;
	int status = -1;
	guint ccs = 0, ours = 0, named = 0;
	bool ok;

	if (mod) {
		moddir = g_build_filename(kb->copy, mod, NULL);
		g_ptr_array_add(a, g_strdup_printf("M=%s", moddir));
	}
	g_ptr_array_add(a, g_strdup("-k"));
	g_ptr_array_add(a, g_strdup_printf("-j%d", kb->jobs));
	g_ptr_array_add(a, g_strdup("-Otarget"));
	g_ptr_array_add(a, g_strdup("V=0"));
	for (guint i = 0; i < objects->len; i++) {
		const char *o = objects->pdata[i];
		char *at = g_build_filename(kb->copy ? kb->copy : kb->build,
					    o, NULL);

		unlink(at);
		g_free(at);
		if (mod && strcmp(mod, "."))
			o += strlen(mod) + 1;
		g_ptr_array_add(a, g_strdup(o));
	}
	g_ptr_array_add(a, NULL);
	ok = kb_run_make((const char *const *)a->pdata, NULL, &out, &status,
		      error);
	g_ptr_array_free(a, TRUE);
	kb->stats.makes++;
	if (!ok) {
		g_free(moddir);
		return false;
	}
	kb_parse_errors(kb, out, objects, mod, res, &ccs, &ours, &named);
	for (guint i = 0; i < objects->len; i++) {
		char *at = g_build_filename(kb->copy ? kb->copy : kb->build,
					    objects->pdata[i], NULL);

		res[i].built = g_file_test(at, G_FILE_TEST_EXISTS);
		if (res[i].built) {
			g_clear_pointer(&res[i].error, g_free);
			res[i].deps = kb_read_deps(kb, objects->pdata[i]);
		}
		else if (!res[i].error)
			res[i].error = g_strdup_printf(
				"make produced no %s (exit status %d)",
				(char *)objects->pdata[i], status);
		g_free(at);
	}
	kb->stats.compiled += ours;
	if (status != 0 && !ccs && !named) {
		/* nothing was compiled: kbuild itself is broken */
		char *t = kb_tail(out, 12);
		char *hint = kb_hint(kb, out);

		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "--verify: make failed before compiling anything in %s:\n%s%s%s",
			    kbuild_dir(kb), t, hint ? "\nlikely cause: " : "",
			    hint ? hint : "");
		g_free(hint);
		g_free(t);
		ok = false;
	}
	g_free(out);
	g_free(moddir);
	return ok;
}

bool kbuild_compile(struct kbuild *kb, GPtrArray *objects, GPtrArray *state,
		    struct kbuild_result *res, GError **error)
{
	double t0 = kb_now();
	bool ok = true;

	if (!objects->len)
		return true;
	memset(res, 0, sizeof(*res) * objects->len);
	if (!kb->kdir) {
		ok = kb_view_build(kb, state, error) &&
		     compile_batch(kb, objects, NULL, res, error);
		kb->stats.compile_s += kb_now() - t0;
		return ok;
	}
	if (!copy_state(kb, state, error))
		return false;
	{
		/* group by module directory */
		GHashTable *groups = g_hash_table_new_full(g_str_hash,
			g_str_equal, g_free, (GDestroyNotify)g_array_unref);
		GHashTableIter it;
		gpointer k, v;

		for (guint i = 0; i < objects->len; i++) {
			char *m = kb_module_dir(kb, objects->pdata[i]);
			GArray *idx;

			if (!m) {
				res[i].error = g_strdup_printf(
					"no Kbuild file or Makefile for %s",
					(char *)objects->pdata[i]);
				continue;
			}
			idx = g_hash_table_lookup(groups, m);
			if (!idx) {
				idx = g_array_new(FALSE, FALSE, sizeof(guint));
				g_hash_table_insert(groups, g_strdup(m), idx);
			}
			g_array_append_val(idx, i);
			g_free(m);
		}
		g_hash_table_iter_init(&it, groups);
		while (ok && g_hash_table_iter_next(&it, &k, &v)) {
			GArray *idx = v;
			GPtrArray *objs = g_ptr_array_new();
			struct kbuild_result *r = g_new0(struct kbuild_result,
							 idx->len);

			for (guint i = 0; i < idx->len; i++)
				g_ptr_array_add(objs, objects->pdata[
					g_array_index(idx, guint, i)]);
			ok = compile_batch(kb, objs, k, r, error);
			for (guint i = 0; i < idx->len; i++) {
				if (ok)
					res[g_array_index(idx, guint, i)] =
						r[i];
				else
					kbuild_result_clear(&r[i]);
			}
			g_free(r);
			g_ptr_array_free(objs, TRUE);
		}
		g_hash_table_destroy(groups);
	}
	kb->stats.compile_s += kb_now() - t0;
	return ok;
}

void kbuild_result_clear(struct kbuild_result *r)
{
	g_clear_pointer(&r->error, g_free);
	g_clear_pointer(&r->deps, g_hash_table_destroy);
}
