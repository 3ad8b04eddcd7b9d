// SPDX-License-Identifier: GPL-2.0
/*
 * Which objects the config builds.  kbuild compiles any object it is
 * asked for, enabled or not, so the answer comes from the Kbuild files
 * and Makefiles of the directories from the top down to the object's,
 * evaluated by kbuild's own scripts/Makefile.lib with the config's
 * auto.conf: a small makefile of ours is run for each directory from
 * within kbuild (MAKEFILES=), so that the variables the top Makefile
 * sets (SRCARCH, ARCH_CORE, ...) are there.
 */
#include <string.h>

#include "kbuild_int.h"
#include "util.h"

static const char query_mk[] =
	"# Written by timerconv: the subdirectories and objects that the\n"
	"# Kbuild file of $(obj) builds with this config.\n"
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
	"\t@echo 'tc-dir: $(obj)'\n"
	"\t@echo 'tc-subdirs: $(subdir-ym)'\n"
	"\t@echo 'tc-objs: $(real-obj-y) $(real-obj-m) $(real-objs-y) $(real-objs-m) $(lib-y) $(extra-y)'\n";

struct dirinfo {
	GHashTable *subdirs;
	GHashTable *objs;
};

static void dirinfo_free(struct dirinfo *d)
{
	g_hash_table_destroy(d->subdirs);
	g_hash_table_destroy(d->objs);
	g_free(d);
}

static void add_words(struct kbuild *kb, GHashTable *set, const char *s)
{
	char **w = g_strsplit_set(s, " \t", -1);

	for (int i = 0; w[i]; i++)
		if (*w[i])
			g_hash_table_add(set, kb_tree_rel(kb, w[i]));
	g_strfreev(w);
}

static GHashTable *parse_query(struct kbuild *kb, const char *out)
{
	GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, (GDestroyNotify)dirinfo_free);
	char **lines = g_strsplit(out, "\n", -1);
	struct dirinfo *cur = NULL;

	for (int i = 0; lines[i]; i++) {
		const char *l = lines[i];

		if (g_str_has_prefix(l, "tc-dir: ")) {
			cur = g_new0(struct dirinfo, 1);
			cur->subdirs = g_hash_table_new_full(g_str_hash,
				g_str_equal, g_free, NULL);
			cur->objs = g_hash_table_new_full(g_str_hash,
				g_str_equal, g_free, NULL);
			g_hash_table_replace(dirs, kb_tree_rel(kb, l + 8), cur);
		} else if (cur && g_str_has_prefix(l, "tc-subdirs: ")) {
			add_words(kb, cur->subdirs, l + 12);
		} else if (cur && g_str_has_prefix(l, "tc-objs: ")) {
			add_words(kb, cur->objs, l + 9);
		}
	}
	g_strfreev(lines);
	return dirs;
}

/* The directories, from the top, whose Makefiles decide about obj. */
static void chain(const char *obj, GPtrArray *out)
{
	char *dir = g_path_get_dirname(obj);

	while (strcmp(dir, ".")) {
		char *up = g_path_get_dirname(dir);

		g_ptr_array_insert(out, 0, dir);
		dir = up;
	}
	g_ptr_array_insert(out, 0, dir);
}

static bool reached(GHashTable *dirs, const char *obj, bool *known)
{
	GPtrArray *c = g_ptr_array_new_with_free_func(g_free);
	bool ok = true;

	chain(obj, c);
	*known = true;
	for (guint i = 0; ok && i < c->len; i++) {
		struct dirinfo *d = g_hash_table_lookup(dirs, c->pdata[i]);

		if (!d) {
			*known = false;
			break;
		}
		if (i + 1 < c->len)
			ok = g_hash_table_contains(d->subdirs, c->pdata[i + 1]);
		else
			ok = g_hash_table_contains(d->objs, obj);
	}
	g_ptr_array_free(c, TRUE);
	return ok || !*known;
}

static bool write_query_files(struct kbuild *kb, GPtrArray *dirs,
			      char **top, GError **error)
{
	char *q = g_build_filename(kb->tmp, "tc-query.mk", NULL);
	GString *t = g_string_new("tc-query-all:\n");
	bool ok;

	for (guint i = 0; i < dirs->len; i++) {
		const char *d = dirs->pdata[i];
		char *obj = kb->copy ? g_build_filename(kb->copy, d, NULL) :
				       g_strdup(d);
		char *src = kb->copy ? g_strdup(obj) :
				       g_build_filename(kb->view, d, NULL);

		g_string_append_printf(t,
			"\t-@$(MAKE) -s -f %s obj=%s src=%s tc-query\n",
			q, obj, src);
		g_free(obj);
		g_free(src);
	}
	*top = g_build_filename(kb->tmp, "tc-top.mk", NULL);
	ok = g_file_set_contents(q, query_mk, -1, error) &&
	     g_file_set_contents(*top, t->str, t->len, error);
	g_string_free(t, TRUE);
	g_free(q);
	return ok;
}

static char *query_run(struct kbuild *kb, GPtrArray *dirs, const char *mod)
{
	GPtrArray *a = kb_make_argv(kb);
	char *top = NULL, *out = NULL;
	int status;

	if (!write_query_files(kb, dirs, &top, NULL)) {
		g_ptr_array_free(a, TRUE);
		return NULL;
	}
	if (mod)
		g_ptr_array_add(a, g_strdup_printf("M=%s", mod));
	g_ptr_array_add(a, g_strdup("tc-query-all"));
	g_ptr_array_add(a, NULL);
	if (!kb_run_make((const char *const *)a->pdata, top, &out, &status,
		      NULL))
		out = NULL;
	g_ptr_array_free(a, TRUE);
	g_free(top);
	return out;
}

bool kbuild_query(struct kbuild *kb, GPtrArray *objects, bool *in_config)
{
	GHashTable *want = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, NULL);
	GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, (GDestroyNotify)dirinfo_free);
	double t0 = kb_now();
	bool all_known = true;

	if (!kb->kdir && !kb_view_build(kb, NULL, NULL))
		return false;
	for (guint i = 0; i < objects->len; i++) {
		GPtrArray *c = g_ptr_array_new_with_free_func(g_free);

		if (kb->kdir) {
			char *m = kb_module_dir(kb, objects->pdata[i]);

			if (m)
				g_ptr_array_add(c, m);
		} else {
			chain(objects->pdata[i], c);
		}
		for (guint k = 0; k < c->len; k++)
			g_hash_table_add(want, g_strdup(c->pdata[k]));
		g_ptr_array_free(c, TRUE);
	}
	if (kb->kdir) {
		/* one make -C KDIR M=DIR per module directory */
		GHashTableIter it;
		gpointer d;

		g_hash_table_iter_init(&it, want);
		while (g_hash_table_iter_next(&it, &d, NULL)) {
			GPtrArray *one = g_ptr_array_new();
			char *mod = g_build_filename(kb->copy, d, NULL);
			char *out;

			g_ptr_array_add(one, d);
			out = query_run(kb, one, mod);
			if (out) {
				GHashTable *got = parse_query(kb, out);
				GHashTableIter gi;
				gpointer k, v;

				g_hash_table_iter_init(&gi, got);
				while (g_hash_table_iter_next(&gi, &k, &v)) {
					g_hash_table_iter_steal(&gi);
					g_hash_table_replace(dirs, k, v);
				}
				g_hash_table_destroy(got);
			}
			g_free(out);
			g_free(mod);
			g_ptr_array_free(one, TRUE);
		}
	} else {
		GPtrArray *list = g_ptr_array_new();
		GHashTableIter it;
		gpointer d;
		char *out;

		g_hash_table_iter_init(&it, want);
		while (g_hash_table_iter_next(&it, &d, NULL))
			g_ptr_array_add(list, d);
		out = query_run(kb, list, NULL);

		if (out) {
			g_hash_table_destroy(dirs);
			dirs = parse_query(kb, out);
		}
		g_free(out);
		g_ptr_array_free(list, TRUE);
	}
	for (guint i = 0; i < objects->len; i++) {
		const char *obj = objects->pdata[i];
		bool known = true;

		if (kb->kdir) {
			char *m = kb_module_dir(kb, obj);
			struct dirinfo *d = m ? g_hash_table_lookup(dirs, m) :
						NULL;

			known = d != NULL || !m;
			in_config[i] = m && (!d || g_hash_table_contains(
							d->objs, obj));
			g_free(m);
		} else {
			in_config[i] = reached(dirs, obj, &known);
		}
		all_known &= known;
	}
	g_hash_table_destroy(dirs);
	g_hash_table_destroy(want);
	kb->stats.query_s += kb_now() - t0;
	return all_known;
}

