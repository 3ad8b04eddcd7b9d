// SPDX-License-Identifier: GPL-2.0
/*
 * Which objects the config builds.  kbuild compiles any object it is
 * asked for, enabled or not, so the answer has to come from the way a
 * real build goes: from the top into the directories the config builds,
 * and in each of them, the objects it compiles.  Every kbuild generation
 * since 2.6 can show that with a dry run, `make -n DIR/`, but each walks
 * there differently (3.10 to 6.0 go straight into DIR and leave the top
 * directories to the top Makefile's vmlinux-dirs or build-dirs; 6.1 and
 * later go down from ./Kbuild; scripts/Makefile.lib's variables changed
 * names on the way), so nothing here reads kbuild's variables.  A small
 * makefile of ours, read by every make of the run (MAKEFILES=), has each
 * scripts/Makefile.build say which directory it builds and which one
 * descended into it; those off the way to the objects asked about build
 * nothing.  The objects are those make would compile: the `CC dir/x.o`
 * lines it prints.  kbuild lists only what is out of date, so the
 * objects asked about are removed from the build directory first (they
 * are compiled next anyway).
 *
 * Out-of-tree modules (make -C KDIR M=DIR) are asked of their own Kbuild
 * file, evaluated with the kernel's scripts/Makefile.lib.
 */
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "kbuild_int.h"
#include "util.h"

static const char dry_mk[] =
	"# Written by timerconv for a dry run (make -n) of kbuild: each\n"
	"# scripts/Makefile.build says which directory it builds and which\n"
	"# one descended into it; those off the way to the objects asked\n"
	"# about build nothing.  The top Makefile says which directories it\n"
	"# descends into, when it does (3.10 to 6.0).\n"
	"ifeq ($(obj),)\n"
	"prepare: tc-top-dirs\n"
	"tc-top-dirs: ; @echo 'tc-top: $(vmlinux-dirs) $(build-dirs)'\n"
	".PHONY: tc-top-dirs\n"
	"else\n"
	"tc-obj := $(patsubst ./%,%,$(obj))\n"
	"ifneq ($(and $(srctree),$(wildcard $(srctree)/$(tc-obj)/Kbuild $(srctree)/$(tc-obj)/Makefile)),)\n"
	"tc-prune := $(and $(TIMERCONV_PARENT),$(filter-out $(TIMERCONV_DIRS),$(tc-obj)))\n"
	"$(info tc-dir: $(tc-obj) $(or $(TIMERCONV_PARENT),-) $(if $(tc-prune),pruned,run))\n"
	"ifneq ($(tc-prune),)\n"
	".DEFAULT_GOAL := tc-pruned\n"
	"tc-pruned: ; @:\n"
	"endif\n"
	"export TIMERCONV_PARENT := $(tc-obj)\n"
	"endif\n"
	"endif\n";

struct dirinfo {
	GHashTable *subdirs;	/* the directories it descends into */
	GHashTable *objs;	/* the objects it compiles */
	bool ran;		/* its Makefile was read for building it */
	bool failed;		/* ... and make could not read it */
	char *why;		/* the error make gave */
};

static void dirinfo_free(struct dirinfo *d)
{
	g_hash_table_destroy(d->subdirs);
	g_hash_table_destroy(d->objs);
	g_free(d->why);
	g_free(d);
}

static GHashTable *dirinfo_table(void)
{
	return g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
				     (GDestroyNotify)dirinfo_free);
}

static struct dirinfo *dirinfo_get(GHashTable *dirs, const char *dir)
{
	struct dirinfo *d = g_hash_table_lookup(dirs, dir);

	if (d)
		return d;
	d = g_new0(struct dirinfo, 1);
	d->subdirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   NULL);
	d->objs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					NULL);
	g_hash_table_insert(dirs, g_strdup(dir), d);
	return d;
}

/* ---- in-tree: the dry run ---- */

struct dry {
	GHashTable *dirs;	/* dir -> struct dirinfo * */
	GHashTable *top;	/* the top Makefile's directories */
	GPtrArray *runs;	/* the dirs built, in the order make began */
	bool heard;		/* our makefile spoke */
};

static bool is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strcmp(dir, ".") ||
	       (!strncmp(path, dir, n) && path[n] == '/');
}

/* "... echo '  CC [M]  drivers/x/y.o'; gcc ..." -> the objects */
static void cc_objects(const char *l, GPtrArray *out)
{
	const char *p = l;

	while ((p = strstr(p, "'  CC "))) {
		const char *e;

		p = kb_cc_object(p + 6);
		e = p;
		while (*e && *e != '\'' && *e != ' ')
			e++;
		if (e - p > 2 && !strncmp(e - 2, ".o", 2)) {
			char *o = g_strndup(p, e - p);

			g_ptr_array_add(out, kb_norm(o));
			g_free(o);
		}
		p = e;
	}
}

/* "drivers/x/Makefile:3: *** missing separator.  Stop." -> "drivers/x" */
static char *broken_makefile(const char *l)
{
	const char *stars = strstr(l, ": *** ");
	const char *c;
	char *path, *dir = NULL;

	if (stars) {
		/* PATH:LINE: *** */
		c = stars;
		while (c > l && g_ascii_isdigit(c[-1]))
			c--;
		if (c == stars || c == l || c[-1] != ':')
			return NULL;
		path = g_strndup(l, c - 1 - l);
	} else {
		path = kb_no_rule(l);
		if (!path)
			return NULL;
	}
	if (g_str_has_suffix(path, "/Makefile") ||
	    g_str_has_suffix(path, "/Kbuild")) {
		char *d = g_path_get_dirname(path);

		dir = kb_norm(d);
		g_free(d);
	}
	g_free(path);
	return dir;
}

static void parse_dry(struct kbuild *kb, const char *raw, struct dry *dr)
{
	char *out = kb_unprefix(kb, raw);
	char **lines = g_strsplit(out, "\n", -1);
	GPtrArray *objs = g_ptr_array_new_with_free_func(g_free);

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];
		const char *t;
		char *bad;

		if (g_str_has_prefix(l, "tc-dir: ")) {
			char **w = g_strsplit(l + 8, " ", 3);

			dr->heard = true;
			if (w[0] && w[1] && w[2]) {
				char *dir = kb_norm(w[0]);

				if (strcmp(w[1], "-")) {
					char *parent = kb_norm(w[1]);

					g_hash_table_add(dirinfo_get(dr->dirs,
						parent)->subdirs,
						g_strdup(dir));
					g_free(parent);
				}
				if (!strcmp(w[2], "run")) {
					dirinfo_get(dr->dirs, dir)->ran = true;
					g_ptr_array_add(dr->runs,
							g_strdup(dir));
				}
				g_free(dir);
			}
			g_strfreev(w);
		} else if ((t = strstr(l, "tc-top:"))) {
			char **w = g_strsplit_set(t + 7, " \t'", -1);

			dr->heard = true;
			for (int k = 0; w[k]; k++)
				if (*w[k] && strcmp(w[k], "."))
					g_hash_table_add(dr->top,
							 kb_norm(w[k]));
			g_strfreev(w);
		} else if ((bad = broken_makefile(l))) {
			struct dirinfo *d = dirinfo_get(dr->dirs, bad);

			d->failed = true;
			if (!d->why)
				d->why = g_strstrip(g_strdup(l));
			g_free(bad);
		}
		g_ptr_array_set_size(objs, 0);
		cc_objects(l, objs);
		for (guint k = 0; k < objs->len; k++) {
			const char *o = objs->pdata[k];

			/* the innermost directory being built that holds
			 * it: the one that compiles it */
			for (guint r = dr->runs->len; r-- > 0;) {
				if (is_under(o, dr->runs->pdata[r])) {
					g_hash_table_add(dirinfo_get(dr->dirs,
						dr->runs->pdata[r])->objs,
						g_strdup(o));
					break;
				}
			}
		}
	}
	g_ptr_array_free(objs, TRUE);
	g_strfreev(lines);
	g_free(out);
}

/* make -n -k DIR/ ... with our makefile; false if make did not run. */
static bool dry_run(struct kbuild *kb, GPtrArray *goals, GHashTable *dirs,
		    struct dry *dr, char **tail, GError **error)
{
	char *mk = g_build_filename(kb->tmp, "tc-dry.mk", NULL);
	GPtrArray *a = kb_make_argv(kb);
	GPtrArray *names = g_ptr_array_new();
	GHashTableIter it;
	gpointer d;
	char *env[3], *joined, *out = NULL;
	int status;
	bool ok;

	g_hash_table_iter_init(&it, dirs);
	while (g_hash_table_iter_next(&it, &d, NULL))
		g_ptr_array_add(names, d);
	g_ptr_array_add(names, NULL);
	joined = g_strjoinv(" ", (char **)names->pdata);
	env[0] = g_strconcat("MAKEFILES=", mk, NULL);
	env[1] = g_strconcat("TIMERCONV_DIRS=", joined, NULL);
	env[2] = NULL;
	/* after --make-arg: kbuild's short CC lines, which are parsed */
	g_ptr_array_add(a, g_strdup("-n"));
	g_ptr_array_add(a, g_strdup("-k"));
	g_ptr_array_add(a, g_strdup("V=0"));
	for (guint i = 0; i < goals->len; i++)
		g_ptr_array_add(a, g_strconcat(goals->pdata[i], "/", NULL));
	g_ptr_array_add(a, NULL);
	ok = g_file_set_contents(mk, dry_mk, -1, error) &&
	     kb_run_make((const char *const *)a->pdata,
			 (const char *const *)env, &out, &status, error);
	if (ok) {
		parse_dry(kb, out, dr);
		g_free(*tail);
		*tail = kb_tail(out, 12);
	}
	g_free(out);
	g_free(env[0]);
	g_free(env[1]);
	g_free(joined);
	g_ptr_array_free(names, TRUE);
	g_ptr_array_free(a, TRUE);
	g_free(mk);
	return ok;
}

/* "." and the directories on the way to obj that have a Kbuild file or
 * a Makefile, from the top. */
static GPtrArray *chain(struct kbuild *kb, const char *obj)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *dir = g_path_get_dirname(obj);

	while (strcmp(dir, ".")) {
		char *up = g_path_get_dirname(dir);
		char *kbuild = g_build_filename(kb->view, dir, "Kbuild", NULL);
		char *mk = g_build_filename(kb->view, dir, "Makefile", NULL);

		if (g_file_test(kbuild, G_FILE_TEST_IS_REGULAR) ||
		    g_file_test(mk, G_FILE_TEST_IS_REGULAR))
			g_ptr_array_insert(out, 0, g_strdup(dir));
		g_free(kbuild);
		g_free(mk);
		g_free(dir);
		dir = up;
	}
	g_ptr_array_insert(out, 0, dir);
	return out;
}

/* The directories kbuild builds: the top, the top Makefile's, and down
 * from there. */
static GHashTable *reach(struct dry *dr)
{
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *todo = g_ptr_array_new();
	GHashTableIter it;
	gpointer k;

	g_ptr_array_add(todo, ".");
	g_hash_table_iter_init(&it, dr->top);
	while (g_hash_table_iter_next(&it, &k, NULL))
		g_ptr_array_add(todo, k);
	while (todo->len) {
		const char *d = g_ptr_array_steal_index_fast(todo,
							     todo->len - 1);
		struct dirinfo *di;

		if (g_hash_table_contains(seen, d))
			continue;
		g_hash_table_add(seen, (gpointer)d);
		di = g_hash_table_lookup(dr->dirs, d);
		if (!di)
			continue;
		g_hash_table_iter_init(&it, di->subdirs);
		while (g_hash_table_iter_next(&it, &k, NULL))
			g_ptr_array_add(todo, k);
	}
	g_ptr_array_free(todo, TRUE);
	return seen;
}

struct tree_query {
	struct kbuild *kb;
	GPtrArray *objects;
	GPtrArray *chains;	/* GPtrArray * of dirs, one an object */
	GHashTable *dirs;	/* every chain's dirs */
	struct dry dr;
	char *tail;		/* the end of make's last output */
};

/* Dry-run the chain directories kbuild builds that it did not go into
 * on its way (3.10 to 6.0: a top directory inside another, as
 * arch/x86/pci inside arch/x86). */
static bool run_missed(struct tree_query *q, GError **error)
{
	for (int round = 0; round < 3; round++) {
		GHashTable *r = reach(&q->dr);
		GPtrArray *more = g_ptr_array_new_with_free_func(g_free);
		GHashTableIter it;
		gpointer k;
		bool ok = true;

		g_hash_table_iter_init(&it, q->dirs);
		while (g_hash_table_iter_next(&it, &k, NULL)) {
			struct dirinfo *d = g_hash_table_lookup(q->dr.dirs,
								k);

			if (strcmp(k, ".") && g_hash_table_contains(r, k) &&
			    (!d || (!d->ran && !d->failed)))
				g_ptr_array_add(more, g_strdup(k));
		}
		g_hash_table_destroy(r);
		if (more->len)
			ok = dry_run(q->kb, more, q->dirs, &q->dr, &q->tail,
				     error);
		if (!more->len || !ok) {
			g_ptr_array_free(more, TRUE);
			return ok;
		}
		/* a directory it still did not go into is unknown */
		for (guint i = 0; i < more->len; i++) {
			struct dirinfo *d = dirinfo_get(q->dr.dirs,
							more->pdata[i]);

			if (!d->ran && !d->failed) {
				d->failed = true;
				d->why = g_strdup("make -n did not go into it");
			}
		}
		g_ptr_array_free(more, TRUE);
	}
	return true;
}

/* The answer for one object, from its chain. */
static void answer(struct tree_query *q, GHashTable *reached, guint i,
		   struct kbuild_answer *a)
{
	const char *obj = q->objects->pdata[i];
	GPtrArray *c = q->chains->pdata[i];
	const char *last = NULL;	/* deepest dir kbuild builds */
	const char *stop = NULL;	/* the first one it does not */

	a->in = KB_NOT_BUILT;
	for (guint k = 0; k < c->len; k++) {
		const char *d = c->pdata[k];
		struct dirinfo *di = g_hash_table_lookup(q->dr.dirs, d);

		if (!g_hash_table_contains(reached, d)) {
			if (!stop)
				stop = d;
			continue;
		}
		if (di && g_hash_table_contains(di->objs, obj)) {
			a->in = KB_BUILT;
			return;
		}
		if (strcmp(d, ".") && (!di || di->failed)) {
			a->in = KB_UNKNOWN;
			a->why = g_strdup_printf("%s: %s", d,
				di && di->why ? di->why :
				"kbuild's dry run did not go into it");
			return;
		}
		if (!stop)
			last = d;
	}
	if (stop)
		a->why = g_strdup_printf("%s does not build %s/",
			strcmp(last, ".") ? last : "the top Makefile", stop);
	else
		a->why = g_strdup_printf("%s does not build %s", last,
			obj + (strcmp(last, ".") ? strlen(last) + 1 : 0));
}

/* Whether kbuild, building an object's directory, compiled anything
 * there at all. */
static bool dir_compiles(struct tree_query *q, GHashTable *reached,
			 const char *obj)
{
	char *dir = g_path_get_dirname(obj);
	struct dirinfo *d = g_hash_table_lookup(q->dr.dirs, dir);
	bool res = !g_hash_table_contains(reached, dir) || !d ||
		   g_hash_table_size(d->objs);

	g_free(dir);
	return res;
}

static bool query_tree(struct kbuild *kb, GPtrArray *objects,
		       struct kbuild_answer *ans, GError **error)
{
	struct tree_query q = { .kb = kb, .objects = objects };
	GPtrArray *goals = g_ptr_array_new();
	GHashTable *reached = NULL;
	guint built = 0, empty = 0;
	bool ok = false;

	q.chains = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_ptr_array_unref);
	q.dirs = g_hash_table_new(g_str_hash, g_str_equal);
	q.dr.dirs = dirinfo_table();
	q.dr.top = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 NULL);
	q.dr.runs = g_ptr_array_new_with_free_func(g_free);
	if (!kb_view_build(kb, NULL, error))
		goto out;
	for (guint i = 0; i < objects->len; i++) {
		GPtrArray *c = chain(kb, objects->pdata[i]);
		char *at = g_build_filename(kb->build, objects->pdata[i],
					    NULL);

		/* kbuild lists only what is out of date */
		unlink(at);
		g_free(at);
		g_ptr_array_add(q.chains, c);
		for (guint k = 0; k < c->len; k++)
			g_hash_table_add(q.dirs, c->pdata[k]);
		/* the first directory below the top: kbuild goes down
		 * from it to the others (nested goals would not build
		 * a whole directory on 5.x) */
		if (c->len > 1 && !g_ptr_array_find_with_equal_func(goals,
					c->pdata[1], g_str_equal, NULL))
			g_ptr_array_add(goals, c->pdata[1]);
	}
	if (goals->len &&
	    !dry_run(kb, goals, q.dirs, &q.dr, &q.tail, error))
		goto out;
	if (goals->len && !q.dr.heard) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "--verify: kbuild's dry run in %s did not say which directories it builds (make -n did not read timerconv's MAKEFILES); it ended:\n%s",
			    kb->build, q.tail ? q.tail : "");
		goto out;
	}
	if (!run_missed(&q, error))
		goto out;
	reached = reach(&q.dr);
	if (goals->len && g_hash_table_size(reached) < 2) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "--verify: kbuild names no directory it builds from the top (neither the top Makefile's vmlinux-dirs or build-dirs nor ./Kbuild's obj-y): timerconv cannot tell what this config builds in %s; make ended:\n%s",
			    kb->build, q.tail ? q.tail : "");
		goto out;
	}
	for (guint i = 0; i < objects->len; i++) {
		answer(&q, reached, i, &ans[i]);
		built += ans[i].in != KB_NOT_BUILT;
		empty += !dir_compiles(&q, reached, objects->pdata[i]);
	}
	if (objects->len && !built && empty == objects->len) {
		/* kbuild goes into every object's directory and compiles
		 * nothing in any: its dry run is not read right */
		char *dir = g_path_get_dirname(objects->pdata[0]);

		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "--verify: kbuild builds %s (and the directories of all %u changed files) but its dry run lists no object compiled there: timerconv cannot read what this kbuild builds",
			    dir, objects->len);
		g_free(dir);
		for (guint i = 0; i < objects->len; i++)
			kbuild_answer_clear(&ans[i]);
		goto out;
	}
	ok = true;
out:
	if (reached)
		g_hash_table_destroy(reached);
	g_free(q.tail);
	g_ptr_array_free(goals, TRUE);
	g_hash_table_destroy(q.dirs);
	g_ptr_array_free(q.chains, TRUE);
	g_hash_table_destroy(q.dr.dirs);
	g_hash_table_destroy(q.dr.top);
	g_ptr_array_free(q.dr.runs, TRUE);
	return ok;
}

/* ---- out of tree: the module's Kbuild file ---- */

static const char query_mk[] =
	"# Written by timerconv: the objects that the Kbuild file of $(obj)\n"
	"# builds with this config.\n"
	"obj-y :=\nobj-m :=\nlib-y :=\nlib-m :=\nextra-y :=\n"
	"subdir-y :=\nsubdir-m :=\n"
	"-include include/config/auto.conf\n"
	"include $(srctree)/scripts/Kbuild.include\n"
	"-include $(srctree)/scripts/Makefile.compiler\n"
	"tc-kbuild-dir := $(if $(filter /%,$(src)),$(src),$(srctree)/$(src))\n"
	"include $(or $(wildcard $(tc-kbuild-dir)/Kbuild),$(tc-kbuild-dir)/Makefile)\n"
	"include $(srctree)/scripts/Makefile.lib\n"
	"$(MAKEFILE_LIST): ;\n"
	"tc-query:\n"
	"\t@echo 'tc-objs: $(real-obj-y) $(real-obj-m) $(real-objs-y) $(real-objs-m) $(lib-y) $(extra-y)'\n";

/* The objects the module directory mod's Kbuild file builds, or NULL
 * if make could not say. */
static GHashTable *module_objs(struct kbuild *kb, const char *mod)
{
	char *q = g_build_filename(kb->tmp, "tc-query.mk", NULL);
	char *top = g_build_filename(kb->tmp, "tc-top.mk", NULL);
	char *abs = g_build_filename(kb->copy, mod, NULL);
	char *text = g_strdup_printf(
		"tc-query-all:\n\t-@$(MAKE) -s -f %s obj=%s src=%s tc-query\n",
		q, abs, abs);
	char *env[2] = { g_strconcat("MAKEFILES=", top, NULL), NULL };
	GPtrArray *a = kb_make_argv(kb);
	GHashTable *objs = NULL;
	char *out = NULL;
	int status;

	g_ptr_array_add(a, g_strdup_printf("M=%s", abs));
	g_ptr_array_add(a, g_strdup("tc-query-all"));
	g_ptr_array_add(a, NULL);
	if (g_file_set_contents(q, query_mk, -1, NULL) &&
	    g_file_set_contents(top, text, -1, NULL) &&
	    kb_run_make((const char *const *)a->pdata,
			(const char *const *)env, &out, &status, NULL)) {
		char **lines = g_strsplit(out, "\n", -1);

		for (int i = 0; lines[i]; i++) {
			char **w;

			if (!g_str_has_prefix(lines[i], "tc-objs: "))
				continue;
			objs = g_hash_table_new_full(g_str_hash, g_str_equal,
						     g_free, NULL);
			w = g_strsplit_set(lines[i] + 9, " \t", -1);
			for (int k = 0; w[k]; k++)
				if (*w[k])
					g_hash_table_add(objs,
						kb_tree_rel(kb, w[k]));
			g_strfreev(w);
		}
		g_strfreev(lines);
	}
	g_free(out);
	g_ptr_array_free(a, TRUE);
	g_free(env[0]);
	g_free(text);
	g_free(abs);
	g_free(top);
	g_free(q);
	return objs;
}

static void objs_free(gpointer objs)
{
	if (objs)
		g_hash_table_destroy(objs);
}

static bool query_modules(struct kbuild *kb, GPtrArray *objects,
			  struct kbuild_answer *ans)
{
	GHashTable *mods = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, objs_free);

	for (guint i = 0; i < objects->len; i++) {
		char *m = kb_module_dir(kb, objects->pdata[i]);
		GHashTable *objs;

		if (!m) {
			ans[i].in = KB_NOT_BUILT;
			ans[i].why = g_strdup("no Kbuild file or Makefile");
			continue;
		}
		if (!g_hash_table_lookup_extended(mods, m, NULL,
						  (gpointer *)&objs)) {
			objs = module_objs(kb, m);
			g_hash_table_insert(mods, g_strdup(m), objs);
		}
		if (!objs) {
			ans[i].in = KB_UNKNOWN;
			ans[i].why = g_strdup_printf(
				"%s: make could not read its Kbuild file", m);
		} else if (g_hash_table_contains(objs, objects->pdata[i])) {
			ans[i].in = KB_BUILT;
		} else {
			ans[i].in = KB_NOT_BUILT;
			ans[i].why = g_strdup_printf("%s does not build %s",
				!strcmp(m, ".") ? "the module's Kbuild file" :
				m, (char *)objects->pdata[i]);
		}
		g_free(m);
	}
	g_hash_table_destroy(mods);
	return true;
}

bool kbuild_query(struct kbuild *kb, GPtrArray *objects,
		  struct kbuild_answer *ans, GError **error)
{
	double t0 = kb_now();
	bool ok;

	memset(ans, 0, sizeof(*ans) * objects->len);
	ok = kb->kdir ? query_modules(kb, objects, ans) :
			query_tree(kb, objects, ans, error);
	kb->stats.query_s += kb_now() - t0;
	return ok;
}

void kbuild_answer_clear(struct kbuild_answer *a)
{
	g_clear_pointer(&a->why, g_free);
}
