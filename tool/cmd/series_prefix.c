// SPDX-License-Identifier: GPL-2.0
/*
 * A patch's subject prefix.  With history, the one most of the last 50
 * commits to its files used: what the subsystem's maintainer expects.
 * Without history (a tree imported in one commit, a tarball), the name
 * the path's subsystem gives itself in the kernel's own subjects, and,
 * where the subsystem is one of many parts (drivers, sound, net), the
 * part, as the 2017 conversions named them ("media: serial_ir:",
 * "net: dccp:", "block/laptop_mode:" with history):
 *
 *	arch/alpha/kernel/srmcons.c		alpha
 *	arch/x86/kernel/{apm_32,mce}.c		x86
 *	drivers/gpu/drm/msm/dsi/dsi_host.c	drm/msm/dsi
 *	drivers/block/{DAC960,amiflop}.c	block
 *	drivers/block/DAC960.c			block: DAC960
 *	drivers/input/input.c			Input
 *	drivers/input/misc/beeper.c		Input: beeper
 *	drivers/net/ethernet/intel/e1000/e1000_main.c	net: e1000
 *	net/dccp/timer.c			net: dccp
 *	kernel/irq/spurious.c			genirq
 *	kernel/workqueue.c			workqueue
 *	sound/soc/codecs/wm8350.c		ASoC: wm8350
 *
 * A patch whose files are in several subsystems (a MAINTAINERS section
 * such as NETWORKING [GENERAL] covers lib/random32.c too) takes the
 * subsystem most of its files are in, else the directory they share
 * ("drivers"), else the subsystem of the setup that placed the patch;
 * "treewide" only for --split none across subsystems (history or not: no
 * one subsystem's history names such a patch).  No word is ever
 * repeated ("Input", not "Input: input").
 */
#include <string.h>

#include "gitutil.h"
#include "series_group.h"

/* "net: e1000e: fix foo" -> "net: e1000e" */
static char *subject_prefix(const char *subject)
{
	const char *colon = g_strrstr(subject, ": ");

	if (!colon || colon == subject || g_str_has_prefix(subject, "Revert") ||
	    g_str_has_prefix(subject, "Merge "))
		return NULL;
	return g_strndup(subject, colon - subject);
}

char *series_prefix(const char *git_dir, const char *base, struct patch *p)
{
	GPtrArray *args = g_ptr_array_new();
	GHashTable *counts = g_hash_table_new_full(g_str_hash, g_str_equal,
						   g_free, NULL);
	char *best = NULL, *out = NULL;
	guint best_n = 0;

	/* --split none across subsystems: no one subsystem's history says
	 * what the patch is */
	if (p->whole_tree) {
		best = series_path_prefix(p);
		if (!strcmp(best, "treewide"))
			git_dir = NULL;
		else
			g_clear_pointer(&best, g_free);
	}
	if (git_dir) {
		g_ptr_array_add(args, "log");
		g_ptr_array_add(args, "--no-merges");
		g_ptr_array_add(args, "--format=%s");
		g_ptr_array_add(args, "-n");
		g_ptr_array_add(args, "50");
		g_ptr_array_add(args, (char *)base);
		g_ptr_array_add(args, "--");
		for (guint i = 0; i < p->files->len; i++) {
			struct cfile *f = p->files->pdata[i];

			g_ptr_array_add(args, f->path);
		}
		g_ptr_array_add(args, NULL);
		if (!git_runv(git_dir, (const char *const *)args->pdata, &out,
			      NULL))
			out = NULL;
	}
	if (out) {
		char **subjects = g_strsplit(out, "\n", -1);

		/* most common; on a tie, the most recent */
		for (int i = 0; subjects[i]; i++) {
			char *pre = subject_prefix(subjects[i]);
			guint n;

			if (!pre)
				continue;
			n = GPOINTER_TO_UINT(g_hash_table_lookup(counts,
								 pre)) + 1;
			g_hash_table_insert(counts, g_strdup(pre),
					    GUINT_TO_POINTER(n));
			if (n > best_n) {
				g_free(best);
				best = g_strdup(pre);
				best_n = n;
			}
			g_free(pre);
		}
		g_strfreev(subjects);
	}
	g_free(out);
	g_ptr_array_free(args, TRUE);
	g_hash_table_destroy(counts);
	return best ? best : series_path_prefix(p);
}

/* ---- the subsystem of a path ---- */

enum style {
	PART,		/* "net: e1000": the subsystem, then the part */
	SLASH,		/* "drm/msm/dsi": the directories below, by / */
	ALONE,		/* "alpha", "genirq": the subsystem's own name */
	STEM,		/* kernel/workqueue.c: the file's own name */
};

/*
 * Where a subsystem's files are, most specific first; "*" is the
 * directory below, which names the subsystem unless `renames` renames it.
 */
static const struct root {
	const char *dir;
	const char *name;
	enum style style;
} roots[] = {
	{ "arch/*", NULL, ALONE },
	{ "drivers/gpu/drm", "drm", SLASH },
	{ "drivers/tty/serial", "serial", PART },
	{ "drivers/*", NULL, PART },
	{ "sound/soc", "ASoC", PART },
	{ "sound", "ALSA", PART },
	{ "net", "net", PART },
	{ "kernel/*", NULL, ALONE },
	{ "kernel", "kernel", STEM },
	{ "fs/*", NULL, ALONE },
	{ "fs", "fs", PART },
	{ "mm", "mm", ALONE },
	{ "block", "block", ALONE },
	{ "lib", "lib", PART },
	{ "crypto", "crypto", PART },
	{ "security/*", NULL, ALONE },
	{ "virt/kvm", "KVM", ALONE },
};

/* How the subsystems whose name is not their directory's call themselves. */
static const char *const renames[][2] = {
	{ "arch/arc", "ARC" },
	{ "arch/arm", "ARM" },
	{ "arch/cris", "CRIS" },
	{ "arch/mips", "MIPS" },
	{ "drivers/acpi", "ACPI" },
	{ "drivers/bluetooth", "Bluetooth" },
	{ "drivers/dma", "dmaengine" },
	{ "drivers/edac", "EDAC" },
	{ "drivers/hid", "HID" },
	{ "drivers/infiniband", "IB" },
	{ "drivers/input", "Input" },
	{ "drivers/nfc", "NFC" },
	{ "drivers/pci", "PCI" },
	{ "kernel/events", "perf" },
	{ "kernel/irq", "genirq" },
	{ "kernel/power", "PM" },
	{ "kernel/time", "timers" },
	{ "kernel/trace", "tracing" },
};

/* Directories that name no part of their subsystem. */
static const char *const plain_dirs[] = { "ethernet", NULL };

/* File names that say nothing about the driver: its directory does. */
static const char *const plain_stems[] = {
	"main", "core", "common", "base", "timer", "timers", "driver",
	"drv", "dev", "device", "init", "hw", "util", "utils", "misc",
	"irq", "intr", "isr", "ops", "module", "sys", "os", "linux",
	NULL,
};

static bool in_list(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++)
		if (!g_ascii_strcasecmp(list[i], s))
			return true;
	return false;
}

/* The subsystem a file is in: its root directory and its name. */
struct place {
	char *root;		/* "drivers/input", "" for the top */
	char *name;		/* "Input", NULL at the top */
	enum style style;
};

static void place_clear(struct place *pl)
{
	g_free(pl->root);
	g_free(pl->name);
}

static void place_of(const char *path, struct place *pl)
{
	for (size_t i = 0; i < G_N_ELEMENTS(roots); i++) {
		const struct root *r = &roots[i];
		size_t n = strlen(r->dir);
		bool star = g_str_has_suffix(r->dir, "/*");
		const char *rest, *slash;

		if (star)
			n--;
		if (strncmp(path, r->dir, n) ||
		    (!star && path[n] != '/'))
			continue;
		rest = path + n + (star ? 0 : 1);
		if (!star) {
			pl->root = g_strndup(path, n);
			pl->name = g_strdup(r->name);
			pl->style = r->style;
			return;
		}
		slash = strchr(rest, '/');
		if (!slash || slash == rest)
			continue;
		pl->root = g_strndup(path, slash - path);
		pl->name = g_strndup(rest, slash - rest);
		pl->style = r->style;
		for (size_t k = 0; k < G_N_ELEMENTS(renames); k++)
			if (!strcmp(renames[k][0], pl->root)) {
				g_free(pl->name);
				pl->name = g_strdup(renames[k][1]);
			}
		return;
	}
	/* out of the kernel's layout: the top directory, or the file */
	if (strchr(path, '/')) {
		pl->root = g_strndup(path, strcspn(path, "/"));
		pl->name = g_strdup(pl->root);
		pl->style = PART;
	} else {
		pl->root = g_strdup("");
		pl->name = NULL;
		pl->style = STEM;
	}
}

/* The file's name without its extension: pcnet32.c -> pcnet32. */
static char *stem(const char *path)
{
	char *base = g_path_get_basename(path);
	char *dot = strrchr(base, '.');

	if (dot && dot != base)
		*dot = '\0';
	return base;
}

/* A header of include/ (or arch's) follows its callback's patch: it does
 * not say which subsystem the patch is for. */
static bool shared_header(const char *path)
{
	return g_str_has_prefix(path, "include/") ||
	       (g_str_has_prefix(path, "arch/") &&
		strstr(path, "/include/"));
}

/* The files that say where the patch belongs. */
static GPtrArray *telling_files(struct patch *p)
{
	GPtrArray *files = g_ptr_array_new();

	for (guint i = 0; i < p->files->len; i++) {
		const char *path = ((struct cfile *)p->files->pdata[i])->path;

		if (!shared_header(path))
			g_ptr_array_add(files, (char *)path);
	}
	if (!files->len)
		for (guint i = 0; i < p->files->len; i++)
			g_ptr_array_add(files, ((struct cfile *)
						p->files->pdata[i])->path);
	return files;
}

/* The directories every path is in, whole components ("" for none). */
static char *common_dir(GPtrArray *paths)
{
	char *common = NULL;

	for (guint i = 0; i < paths->len; i++) {
		char *dir = g_path_get_dirname(paths->pdata[i]);
		size_t n = 0;

		if (!strcmp(dir, "."))
			dir[0] = '\0';
		if (!common) {
			common = dir;
			continue;
		}
		while (common[n] && common[n] == dir[n])
			n++;
		if (!((common[n] == '\0' || common[n] == '/') &&
		      (dir[n] == '\0' || dir[n] == '/')))
			while (n > 0 && common[n - 1] != '/')
				n--;
		while (n > 0 && common[n - 1] == '/')
			n--;
		common[n] = '\0';
		g_free(dir);
	}
	return common ? common : g_strdup("");
}

static guint count_c(GPtrArray *paths, const char **one)
{
	guint n = 0;

	for (guint i = 0; i < paths->len; i++)
		if (!g_str_has_suffix(paths->pdata[i], ".h")) {
			*one = paths->pdata[i];
			n++;
		}
	return n;
}

/*
 * The part of the subsystem the files are: one driver's file names it
 * (DAC960.c), unless its name says nothing (main.c) or its directory is
 * the driver (e1000/e1000_main.c); files of one directory below the root
 * are that directory's (hisax/); NULL for the root itself.
 */
static char *part_of(const struct place *pl, GPtrArray *paths)
{
	char *dir = common_dir(paths);
	const char *rel = dir + MIN(strlen(dir), strlen(pl->root));
	char **parts = g_strsplit(*rel == '/' ? rel + 1 : rel, "/", -1);
	const char *last = NULL, *one = NULL;
	char *res = NULL;

	for (int i = 0; parts[i]; i++)
		if (parts[i][0] && !in_list(plain_dirs, parts[i]))
			last = parts[i];
	if (count_c(paths, &one) == 1) {
		char *name = stem(one);

		if (in_list(plain_stems, name) ||
		    (last && g_str_has_prefix(name, last)))
			g_free(name);
		else
			res = name;
	}
	if (!res && last)
		res = g_strdup(last);
	g_strfreev(parts);
	g_free(dir);
	return res;
}

/* "drm" and msm/dsi below drivers/gpu/drm -> "drm/msm/dsi" */
static char *slash_name(const struct place *pl, GPtrArray *paths)
{
	char *dir = common_dir(paths);
	const char *rel = dir + MIN(strlen(dir), strlen(pl->root));
	char *res;

	while (*rel == '/')
		rel++;
	res = *rel ? g_strdup_printf("%s/%s", pl->name, rel) :
		     g_strdup(pl->name);
	g_free(dir);
	return res;
}

/* Does word appear in prefix, as one of its words ("Input: beeper",
 * "drm/msm/dsi")? */
static bool has_word(const char *prefix, const char *word)
{
	char **words = g_regex_split_simple("[:/ ,-]+", prefix, 0, 0);
	bool found = false;

	for (int i = 0; words[i] && !found; i++)
		found = !g_ascii_strcasecmp(words[i], word);
	g_strfreev(words);
	return found;
}

/* The prefix of files all in one subsystem. */
static char *subsystem_prefix(const struct place *pl, GPtrArray *paths)
{
	const char *one = NULL;
	char *part, *res;

	switch (pl->style) {
	case ALONE:
		return g_strdup(pl->name);
	case SLASH:
		return slash_name(pl, paths);
	case STEM:
		/* kernel/workqueue.c, or an out-of-tree module's foo.c */
		if (count_c(paths, &one) == 1)
			return stem(one);
		return pl->name ? g_strdup(pl->name) : stem(paths->pdata[0]);
	case PART:
		break;
	}
	part = part_of(pl, paths);
	if (!part || has_word(pl->name, part))
		res = g_strdup(pl->name);
	else
		res = g_strdup_printf("%s: %s", pl->name, part);
	g_free(part);
	return res;
}

char *series_path_prefix(struct patch *p)
{
	GPtrArray *paths = telling_files(p);
	GHashTable *votes = g_hash_table_new(g_str_hash, g_str_equal);
	struct place *pls = g_new0(struct place, paths->len);
	const char *top = NULL;
	guint top_n = 0;
	bool one_root = true;
	char *res = NULL, *dir;

	for (guint i = 0; i < paths->len; i++) {
		const char *key;
		guint n;

		place_of(paths->pdata[i], &pls[i]);
		one_root &= !strcmp(pls[i].root, pls[0].root) &&
			    !g_strcmp0(pls[i].name, pls[0].name);
		key = pls[i].name ? pls[i].name : "";
		n = GPOINTER_TO_UINT(g_hash_table_lookup(votes, key)) + 1;
		g_hash_table_insert(votes, (char *)key, GUINT_TO_POINTER(n));
		if (n > top_n) {
			top = key;
			top_n = n;
		}
	}
	dir = common_dir(paths);
	if (one_root)
		res = subsystem_prefix(&pls[0], paths);
	else if (*top && 2 * top_n > paths->len)
		res = g_strdup(top);	/* most files are in it */
	else if (*dir)
		res = g_path_get_basename(dir);
	else if (p->whole_tree)
		res = g_strdup("treewide");
	if (!res) {
		/* one section's subsystems: the setup that placed it */
		struct place a = { 0 };
		GPtrArray *one = g_ptr_array_new();

		g_ptr_array_add(one, p->anchor ? p->anchor :
				(char *)paths->pdata[0]);
		place_of(one->pdata[0], &a);
		res = a.name && a.style != STEM ? g_strdup(a.name) :
			subsystem_prefix(&a, one);
		place_clear(&a);
		g_ptr_array_free(one, TRUE);
	}
	for (guint i = 0; i < paths->len; i++)
		place_clear(&pls[i]);
	g_free(pls);
	g_free(dir);
	g_hash_table_destroy(votes);
	g_ptr_array_free(paths, TRUE);
	return res;
}

/* ---- telling patches apart ---- */

/* What tells this patch's files apart: their names, three at most, none
 * that the prefix already says. */
static char *driver_names(struct patch *p)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < p->files->len; i++) {
		const char *path = ((struct cfile *)p->files->pdata[i])->path;
		char *name = g_str_has_suffix(path, ".h") ? NULL : stem(path);
		bool seen = name && has_word(p->prefix, name);

		for (guint k = 0; name && k < names->len; k++)
			seen |= !strcmp(names->pdata[k], name);
		if (name && !seen)
			g_ptr_array_add(names, name);
		else
			g_free(name);
	}
	for (guint i = 0; i < names->len && i < 3; i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "",
				       (char *)names->pdata[i]);
	if (names->len > 3)
		g_string_append(s, " and others");
	g_ptr_array_free(names, TRUE);
	return g_string_free(s, FALSE);
}

static void add_names(struct patch *p)
{
	char *names = driver_names(p);

	if (*names) {
		char *pre = g_strdup_printf("%s: %s", p->prefix, names);

		g_free(p->prefix);
		p->prefix = pre;
	}
	g_free(names);
}

void series_unique_prefixes(GPtrArray *patches)
{
	for (guint i = 0; i < patches->len; i++) {
		struct patch *p = patches->pdata[i];
		guint same = 0;

		for (guint k = 0; k < patches->len; k++)
			same += !strcmp(((struct patch *)
					 patches->pdata[k])->prefix, p->prefix);
		if (same < 2)
			continue;
		/* every patch that shares it gets its driver names */
		for (guint k = patches->len; k-- > 0;) {
			struct patch *q = patches->pdata[k];

			if (k != i && !strcmp(q->prefix, p->prefix))
				add_names(q);
		}
		add_names(p);
	}
	/* still the same (same file names): number them */
	for (guint i = 0; i < patches->len; i++) {
		struct patch *p = patches->pdata[i];
		guint n = 1;

		for (guint k = i + 1; k < patches->len; k++) {
			struct patch *q = patches->pdata[k];
			char *pre;

			if (strcmp(q->prefix, p->prefix))
				continue;
			pre = g_strdup_printf("%s (%u)", q->prefix, ++n);
			g_free(q->prefix);
			q->prefix = pre;
		}
	}
}
