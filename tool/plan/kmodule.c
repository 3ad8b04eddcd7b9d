// SPDX-License-Identifier: GPL-2.0
/*
 * Staging drivers copied from one vendor source define the same
 * non-static timer callback (rtw_join_timeout_handler() in rtl8188eu and
 * rtl8723bs): one name, two functions, each driver's setups running its
 * own.  Which one a setup runs is the linker's answer: a module's objects
 * are linked together first, so a setup runs the definition in the
 * module its own object links into.  That is read from the kbuild file
 * (Kbuild, else Makefile) of the object's directory or one above it:
 *
 *	r8188eu-y := core/rtw_mlme.o os_dep/mlme_linux.o
 *	obj-$(CONFIG_R8188EU) := r8188eu.o
 *
 * Only the lists are read, as text: every branch of an ifeq counts
 * (objects that may link together are taken to), plain variables and
 * $(addprefix) are expanded, anything else in a list is not.  An object
 * no kbuild file lists (a tree without them, an out-of-tree driver) is
 * taken to link with its own directory.
 *
 * A name stays one callback for the whole tree unless it has non-static
 * definitions in two modules.  Then each module has its own, and every
 * file that names it must belong to exactly one of those modules: a
 * header two of them see, or a file of a third module, cannot be told
 * apart and the name is refused (bind.c).
 */
#include <string.h>

#include <gio/gio.h>

#include "kmodule.h"
#include "planner.h"
#include "ppcond.h"

struct kdir {
	GHashTable *member;	/* "sub/a.o" -> composite name */
	GHashTable *objs;	/* objects of the obj-* lists */
};

struct kmodules {
	GHashTable *dirs;	/* dir -> struct kdir *, NULL: no kbuild */
	GHashTable *mods;	/* .c path -> module */
	GHashTable *bases;	/* module -> the directory its files are in */
	GHashTable *defs;	/* name -> GPtrArray of modules, or NULL */
	GHashTable *unclear;	/* name -> path of a file no one module
				 * owns, or "" */
};

/* ---- reading a kbuild file ---- */

static void expand_into(GString *out, const char *s, GHashTable *vars,
			int depth);

/* $(addprefix P,LIST) */
static void addprefix(GString *out, const char *args, GHashTable *vars,
		      int depth)
{
	const char *comma = strchr(args, ',');
	GString *pre = g_string_new(NULL), *list = g_string_new(NULL);
	char **words;

	if (!comma)
		goto out;
	{
		char *p = g_strndup(args, comma - args);

		expand_into(pre, p, vars, depth + 1);
		g_free(p);
	}
	expand_into(list, comma + 1, vars, depth + 1);
	g_strstrip(pre->str);
	pre->len = strlen(pre->str);
	words = g_strsplit_set(list->str, " \t", -1);
	for (int i = 0; words[i]; i++)
		if (words[i][0])
			g_string_append_printf(out, " %s%s ", pre->str,
					       words[i]);
	g_strfreev(words);
out:
	g_string_free(pre, TRUE);
	g_string_free(list, TRUE);
}

/* A value with $(VAR) expanded; $(CONFIG_X) kept; other functions
 * dropped. */
static void expand_into(GString *out, const char *s, GHashTable *vars,
			int depth)
{
	while (*s) {
		const char *end;
		char close;
		int level = 0;
		char *inner;

		if (s[0] != '$' || (s[1] != '(' && s[1] != '{')) {
			g_string_append_c(out, *s++);
			continue;
		}
		close = s[1] == '(' ? ')' : '}';
		for (end = s + 1; *end; end++) {
			if (*end == s[1])
				level++;
			else if (*end == close && --level == 0)
				break;
		}
		if (!*end)
			return;
		inner = g_strndup(s + 2, end - s - 2);
		s = end + 1;
		if (g_str_has_prefix(inner, "CONFIG_")) {
			g_string_append_printf(out, "$(%s)", inner);
		} else if (g_str_has_prefix(inner, "addprefix ")) {
			addprefix(out, inner + 10, vars, depth);
		} else if (!strpbrk(inner, " \t,") && depth < 8) {
			const GString *v = g_hash_table_lookup(vars, inner);

			if (v)
				expand_into(out, v->str, vars, depth + 1);
		}
		g_free(inner);
	}
}

static char *expand(const char *s, GHashTable *vars)
{
	GString *out = g_string_new(NULL);

	expand_into(out, s, vars, 0);
	return g_strstrip(g_string_free(out, FALSE));
}

/* `name += value` (every assignment adds: each branch of an ifeq). */
static void assignment(GHashTable *vars, char *line)
{
	static const char *const ops[] = { "::=", ":=", "+=", "?=", "=" };
	char *at = NULL, *lhs;
	size_t oplen = 0;
	GString *v;

	for (guint i = 0; i < G_N_ELEMENTS(ops); i++) {
		char *p = strstr(line, ops[i]);

		if (p && (!at || p < at || (p == at && strlen(ops[i]) >
							oplen))) {
			at = p;
			oplen = strlen(ops[i]);
		}
	}
	if (!at)
		return;
	lhs = g_strstrip(g_strndup(line, at - line));
	if (g_str_has_prefix(lhs, "override "))
		memmove(lhs, lhs + 9, strlen(lhs + 9) + 1);
	g_strstrip(lhs);
	if (!*lhs || strpbrk(lhs, " \t")) {
		g_free(lhs);
		return;
	}
	v = g_hash_table_lookup(vars, lhs);
	if (!v) {
		v = g_string_new(NULL);
		g_hash_table_insert(vars, g_strdup(lhs), v);
	}
	g_string_append_printf(v, " %s", at + oplen);
	g_free(lhs);
}

static void add_words(GHashTable *to, const char *list, const char *value)
{
	char **words = g_strsplit_set(list, " \t", -1);

	for (int i = 0; words[i]; i++) {
		const char *w = words[i];

		if (g_str_has_prefix(w, "./"))
			w += 2;
		if (g_str_has_suffix(w, ".o") &&
		    !g_hash_table_contains(to, w))
			g_hash_table_insert(to, g_strdup(w),
					    value ? g_strdup(value) : NULL);
	}
	g_strfreev(words);
}

/* The composite a list variable builds: foo for foo-y, foo-objs,
 * foo-$(CONFIG_BAR); NULL for anything else. */
static char *composite_name(const char *var)
{
	const char *dash = strrchr(var, '-');
	const char *cfg = g_strrstr(var, "-$(CONFIG_");

	if (cfg && g_str_has_suffix(var, ")"))
		return cfg > var ? g_strndup(var, cfg - var) : NULL;
	if (!dash || dash == var)
		return NULL;
	if (strcmp(dash + 1, "y") && strcmp(dash + 1, "m") &&
	    strcmp(dash + 1, "objs"))
		return NULL;
	return g_strndup(var, dash - var);
}

static void gstring_free(gpointer s)
{
	g_string_free(s, TRUE);
}

static struct kdir *kdir_parse(const char *text)
{
	struct kdir *kd = g_new0(struct kdir, 1);
	GHashTable *vars = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, gstring_free);
	GHashTable *lists = g_hash_table_new_full(g_str_hash, g_str_equal,
						  g_free, g_free);
	GString *joined = g_string_new(NULL);
	char **lines;
	GHashTableIter it;
	gpointer k, v;

	kd->member = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   g_free);
	kd->objs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 NULL);
	for (const char *p = text; *p; p++) {
		if (p[0] == '\\' && p[1] == '\n') {
			g_string_append_c(joined, ' ');
			p++;
		} else {
			g_string_append_c(joined, *p);
		}
	}
	lines = g_strsplit(joined->str, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char *hash = strchr(lines[i], '#');

		if (hash)
			*hash = '\0';
		/* a recipe's line has no `name op` of one word */
		assignment(vars, lines[i]);
	}
	g_strfreev(lines);
	g_string_free(joined, TRUE);
	/* the names on the left, expanded: $(MODULE_NAME)-y */
	g_hash_table_iter_init(&it, vars);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		char *name = expand(k, vars);
		char *value = expand(((GString *)v)->str, vars);
		char *old = g_hash_table_lookup(lists, name);

		if (old) {
			char *both = g_strconcat(old, " ", value, NULL);

			g_free(value);
			value = both;
		}
		g_hash_table_insert(lists, name, value);
	}
	g_hash_table_iter_init(&it, lists);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (g_str_has_prefix(k, "obj-"))
			add_words(kd->objs, v, NULL);
	g_hash_table_iter_init(&it, lists);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		char *name = composite_name(k);
		char *obj = name ? g_strconcat(name, ".o", NULL) : NULL;

		if (obj && g_hash_table_contains(kd->objs, obj))
			add_words(kd->member, v, name);
		g_free(obj);
		g_free(name);
	}
	g_hash_table_destroy(lists);
	g_hash_table_destroy(vars);
	return kd;
}

static void kdir_free(struct kdir *kd)
{
	if (!kd)
		return;
	g_hash_table_destroy(kd->member);
	g_hash_table_destroy(kd->objs);
	g_free(kd);
}

char *kmodule_parse_member(const char *text, const char *obj)
{
	struct kdir *kd = kdir_parse(text);
	const char *comp = g_hash_table_lookup(kd->member, obj);
	char *res = comp ? g_strdup(comp) :
		    g_hash_table_contains(kd->objs, obj) ? g_strdup("") : NULL;

	kdir_free(kd);
	return res;
}

static struct kdir *kdir_get(struct planner *pl, const char *dir)
{
	struct kmodules *km = pl->km;
	const char *root = pl->cv->tree->root;
	struct kdir *kd = NULL;
	gpointer found;

	if (g_hash_table_lookup_extended(km->dirs, dir, NULL, &found))
		return found;
	for (int i = 0; i < 2 && !kd; i++) {
		char *path = g_build_filename(root, dir,
					      i ? "Makefile" : "Kbuild", NULL);
		char *text = NULL;

		if (g_file_get_contents(path, &text, NULL, NULL))
			kd = kdir_parse(text);
		g_free(text);
		g_free(path);
	}
	g_hash_table_insert(km->dirs, g_strdup(dir), kd);
	return kd;
}

/* ---- which module a file is in ---- */

static struct kmodules *km_get(struct planner *pl)
{
	struct kmodules *km = pl->km;

	if (km)
		return km;
	km = g_new0(struct kmodules, 1);
	km->dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 (GDestroyNotify)kdir_free);
	km->mods = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 NULL);
	km->bases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  g_free);
	km->defs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 (GDestroyNotify)g_ptr_array_unref);
	km->unclear = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    g_free);
	pl->km = km;
	return km;
}

static const char *module_new(struct kmodules *km, char *name,
			      const char *base)
{
	gpointer key;

	if (g_hash_table_lookup_extended(km->bases, name, &key, NULL)) {
		g_free(name);
		return key;
	}
	g_hash_table_insert(km->bases, name, g_strdup(base));
	return name;
}

static bool is_header(const struct cfile *f)
{
	return !g_str_has_suffix(f->path, ".c");
}

static char *dir_of(const char *path)
{
	char *dir = g_path_get_dirname(path);

	if (!strcmp(dir, ".")) {
		g_free(dir);
		return g_strdup("");
	}
	return dir;
}

/* The module the object of .c file `path` links into. */
static const char *module_of(struct planner *pl, const char *path)
{
	struct kmodules *km = km_get(pl);
	const char *m = g_hash_table_lookup(km->mods, path);
	char *dir, *obj, *a;

	if (m)
		return m;
	dir = dir_of(path);
	obj = g_strdup_printf("%.*s.o", (int)strlen(path) - 2, path);
	a = g_strdup(dir);
	for (;;) {
		struct kdir *kd = kdir_get(pl, a);
		const char *rel = obj + (*a ? strlen(a) + 1 : 0);
		const char *comp = kd ? g_hash_table_lookup(kd->member, rel) :
					NULL;
		char *up;

		if (comp) {
			m = module_new(km, *a ? g_strdup_printf("%s/%s.o", a,
								 comp) :
					g_strdup_printf("%s.o", comp), a);
			break;
		}
		if (kd && g_hash_table_contains(kd->objs, rel)) {
			m = module_new(km, g_strdup(obj), dir);
			break;
		}
		if (!*a)
			break;
		up = dir_of(a);
		g_free(a);
		a = up;
	}
	if (!m)
		m = module_new(km, g_strdup_printf("%s/", *dir ? dir : "."),
			       dir);
	g_hash_table_insert(km->mods, g_strdup(path), (gpointer)m);
	g_free(a);
	g_free(obj);
	g_free(dir);
	return m;
}

/* A non-static definition of name in f, outside #if 0? */
static bool defines(const struct cfile *f, const char *name)
{
	GArray *lists[] = { f->scan->ulong_funcs, f->scan->other_funcs };

	for (guint l = 0; l < G_N_ELEMENTS(lists); l++)
		for (guint k = 0; k < lists[l]->len; k++) {
			const struct ulong_func *u = &g_array_index(
				lists[l], struct ulong_func, k);

			if (u->is_def && !u->is_static &&
			    !strcmp(u->name, name) &&
			    !line_in_ranges(f->scan->dead_ranges, u->line))
				return true;
		}
	return false;
}

/* The modules that define name; empty when fewer than two do. */
static GPtrArray *defs_of(struct planner *pl, const char *name)
{
	struct kmodules *km = km_get(pl);
	GPtrArray *mods = g_hash_table_lookup(km->defs, name);
	GPtrArray *files;

	if (mods)
		return mods;
	mods = g_ptr_array_new();
	files = g_ptr_array_new();
	for (guint i = 0; i < pl->cv->files->len; i++) {
		struct cfile *f = pl->cv->files->pdata[i];

		if (!is_header(f) && f->scan && defines(f, name))
			g_ptr_array_add(files, f);
	}
	for (guint i = 0; files->len > 1 && i < files->len; i++) {
		const char *m = module_of(pl, ((struct cfile *)
					       files->pdata[i])->path);

		if (!g_ptr_array_find_with_equal_func(mods, m, g_str_equal,
						      NULL))
			g_ptr_array_add(mods, (gpointer)m);
	}
	if (mods->len < 2)
		g_ptr_array_set_size(mods, 0);
	g_ptr_array_free(files, TRUE);
	g_hash_table_insert(km->defs, g_strdup(name), mods);
	return mods;
}

bool kmodule_sees(struct planner *pl, const char *m, const struct cfile *f)
{
	struct kmodules *km = km_get(pl);
	const char *base;
	size_t n;

	if (!is_header(f))
		return !strcmp(module_of(pl, f->path), m);
	base = g_hash_table_lookup(km->bases, m);
	if (!base)
		return false;
	n = strlen(base);
	if (!n || (!strncmp(f->path, base, n) && f->path[n] == '/'))
		return true;
	for (guint i = 0; i < pl->cv->files->len; i++) {
		struct cfile *g = pl->cv->files->pdata[i];

		if (!is_header(g) && !strcmp(module_of(pl, g->path), m) &&
		    cfile_includes(g, f->path))
			return true;
	}
	return false;
}

/* The one module of mods that sees f, or NULL. */
static const char *owner(struct planner *pl, GPtrArray *mods,
			 const struct cfile *f)
{
	const char *one = NULL;

	for (guint i = 0; i < mods->len; i++) {
		if (!kmodule_sees(pl, mods->pdata[i], f))
			continue;
		if (one)
			return NULL;
		one = mods->pdata[i];
	}
	return one;
}

const char *kmodule_scope(struct planner *pl, const struct cfile *f,
			  const char *name)
{
	GPtrArray *mods = defs_of(pl, name);
	const char *one;

	if (!mods->len)
		return NULL;
	if (!is_header(f))
		return module_of(pl, f->path);
	one = owner(pl, mods, f);
	return one ? one : "?";
}

static bool names(const struct cfile *f, const char *name)
{
	for (guint k = 0; f->refs && k < f->refs->len; k++) {
		const struct cb_ref *r = f->refs->pdata[k];

		if (!strcmp(r->name, name) &&
		    !(f->scan && line_in_ranges(f->scan->dead_ranges,
						r->line)))
			return true;
	}
	return false;
}

const char *kmodule_unclear(struct planner *pl, const char *name)
{
	struct kmodules *km = km_get(pl);
	GPtrArray *mods = defs_of(pl, name);
	const char *path = g_hash_table_lookup(km->unclear, name);

	if (path)
		return *path ? path : NULL;
	path = "";
	for (guint i = 0; mods->len && i < pl->cv->files->len; i++) {
		struct cfile *f = pl->cv->files->pdata[i];

		if (static_in(f, name) || !names(f, name))
			continue;
		if (!owner(pl, mods, f)) {
			path = f->path;
			break;
		}
	}
	g_hash_table_insert(km->unclear, g_strdup(name), g_strdup(path));
	return *path ? path : NULL;
}

void kmodule_free(struct planner *pl)
{
	struct kmodules *km = pl->km;

	if (!km)
		return;
	g_hash_table_destroy(km->dirs);
	g_hash_table_destroy(km->mods);
	g_hash_table_destroy(km->defs);
	g_hash_table_destroy(km->unclear);
	g_hash_table_destroy(km->bases);
	g_free(km);
	pl->km = NULL;
}
