// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "diff.h"
#include "gitutil.h"
#include "series_group.h"

static void add_unique(GPtrArray *arr, const char *s)
{
	for (guint i = 0; i < arr->len; i++)
		if (!strcmp(arr->pdata[i], s))
			return;
	g_ptr_array_add(arr, g_strdup(s));
}

static void remove_str(GPtrArray *arr, const char *s)
{
	for (guint i = 0; i < arr->len;)
		if (!strcmp(arr->pdata[i], s))
			g_ptr_array_remove_index(arr, i);
		else
			i++;
}

void patch_free(struct patch *p)
{
	if (!p)
		return;
	g_free(p->key);
	g_free(p->anchor);
	g_ptr_array_free(p->units, TRUE);
	g_ptr_array_free(p->files, TRUE);
	g_ptr_array_free(p->to, TRUE);
	g_ptr_array_free(p->cc, TRUE);
	g_ptr_array_free(p->callbacks, TRUE);
	g_free(p->prefix);
	g_free(p);
}

/* The file whose setup places a unit: its first setup site. */
static const char *unit_anchor(struct unit *u)
{
	const char *best = NULL;

	for (guint i = 0; i < u->sites->len; i++) {
		struct csite *s = u->sites->pdata[i];

		if (s->site->type == SITE_API &&
		    (!best || strcmp(s->file->path, best) < 0))
			best = s->file->path;
	}
	if (best)
		return best;
	for (guint i = 0; i < u->items->len; i++) {
		struct plan_item *it = u->items->pdata[i];

		if (!best || strcmp(it->file->path, best) < 0)
			best = it->file->path;
	}
	return best;
}

/* The patch text of a unit's files, for K: keywords. */
static char *unit_text(struct unit *u)
{
	GString *s = g_string_new(NULL);
	GHashTableIter it;
	gpointer f;

	g_hash_table_iter_init(&it, u->files);
	while (g_hash_table_iter_next(&it, &f, NULL)) {
		struct cfile *cf = f;

		if (cf->new_text)
			diff_unified(s, cf->path, cf->text, cf->len,
				     cf->new_text, cf->new_len);
	}
	return g_string_free(s, FALSE);
}

static char *dir_key(const char *path)
{
	char **parts = g_strsplit(path, "/", -1);
	guint n = g_strv_length(parts);
	GString *s = g_string_new(NULL);

	/* the directory, at most four levels: drivers/net/ethernet/intel */
	for (guint i = 0; i + 1 < n && i < 4; i++) {
		if (s->len)
			g_string_append_c(s, '/');
		g_string_append(s, parts[i]);
	}
	g_strfreev(parts);
	if (!s->len)
		g_string_assign(s, ".");
	return g_string_free(s, FALSE);
}

static void section_people(const struct msection *s, GPtrArray *to,
			   GPtrArray *cc, bool main)
{
	for (guint i = 0; i < s->maintainers->len; i++)
		add_unique(main ? to : cc, s->maintainers->pdata[i]);
	for (guint i = 0; i < s->reviewers->len; i++)
		add_unique(cc, s->reviewers->pdata[i]);
	for (guint i = 0; i < s->lists->len; i++) {
		/* "list@host (moderated for non-subscribers)" */
		char *l = g_strdup(s->lists->pdata[i]);
		char *sp = strchr(l, ' ');

		if (sp)
			*sp = '\0';
		add_unique(cc, l);
		g_free(l);
	}
}

static struct patch *patch_new(const char *key, const char *anchor)
{
	struct patch *p = g_new0(struct patch, 1);

	p->key = g_strdup(key);
	p->anchor = g_strdup(anchor);
	p->units = g_ptr_array_new();
	p->files = g_ptr_array_new();
	p->to = g_ptr_array_new_with_free_func(g_free);
	p->cc = g_ptr_array_new_with_free_func(g_free);
	p->callbacks = g_ptr_array_new_with_free_func(g_free);
	return p;
}

static int cmp_cfile(gconstpointer a, gconstpointer b)
{
	return strcmp((*(struct cfile *const *)a)->path,
		      (*(struct cfile *const *)b)->path);
}

static int cmp_patch(gconstpointer a, gconstpointer b)
{
	return strcmp((*(struct patch *const *)a)->anchor,
		      (*(struct patch *const *)b)->anchor);
}

static bool changes_files(struct unit *u)
{
	GHashTableIter it;
	gpointer f;

	if (u->reason)
		return false;
	g_hash_table_iter_init(&it, u->files);
	while (g_hash_table_iter_next(&it, &f, NULL))
		if (((struct cfile *)f)->new_text)
			return true;
	return false;
}

/* Two patches that change one file become one. */
static void merge_sharing(GPtrArray *patches)
{
	for (guint i = 0; i < patches->len; i++) {
		struct patch *a = patches->pdata[i];

		for (guint j = i + 1; j < patches->len;) {
			struct patch *b = patches->pdata[j];
			bool share = false;

			for (guint x = 0; x < a->files->len && !share; x++)
				for (guint y = 0; y < b->files->len; y++)
					share |= a->files->pdata[x] ==
						 b->files->pdata[y];
			if (!share) {
				j++;
				continue;
			}
			for (guint k = 0; k < b->units->len; k++)
				g_ptr_array_add(a->units, b->units->pdata[k]);
			for (guint k = 0; k < b->files->len; k++)
				if (!g_ptr_array_find(a->files,
						      b->files->pdata[k], NULL))
					g_ptr_array_add(a->files,
							b->files->pdata[k]);
			for (guint k = 0; k < b->to->len; k++)
				add_unique(a->to, b->to->pdata[k]);
			for (guint k = 0; k < b->cc->len; k++)
				add_unique(a->cc, b->cc->pdata[k]);
			if (strcmp(b->anchor, a->anchor) < 0) {
				g_free(a->anchor);
				a->anchor = g_strdup(b->anchor);
			}
			g_ptr_array_remove_index(patches, j);
			patch_free(b);
			j = i + 1;
		}
	}
}

GPtrArray *series_group(struct run *r, enum split_mode mode,
			const struct maintainers *m)
{
	GPtrArray *patches = g_ptr_array_new();
	GHashTable *by_key = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; r->cv.units && i < r->cv.units->len; i++) {
		struct unit *u = r->cv.units->pdata[i];
		const char *anchor;
		const struct msection *sec = NULL;
		char *key, *text = NULL;
		struct patch *p;
		GHashTableIter it;
		gpointer f;

		if (!changes_files(u))
			continue;
		anchor = unit_anchor(u);
		if (mode == SPLIT_MAINTAINERS && m) {
			text = unit_text(u);
			sec = maintainers_for(m, anchor, text);
			key = g_strdup(sec ? sec->title :
				       "(no MAINTAINERS section)");
		} else if (mode == SPLIT_DIRECTORY) {
			key = dir_key(anchor);
		} else {
			key = g_strdup("all");
		}
		p = g_hash_table_lookup(by_key, key);
		if (!p) {
			p = patch_new(key, anchor);
			g_ptr_array_add(patches, p);
			g_hash_table_insert(by_key, p->key, p);
		}
		g_free(key);
		g_ptr_array_add(p->units, u);
		if (strcmp(anchor, p->anchor) < 0) {
			g_free(p->anchor);
			p->anchor = g_strdup(anchor);
		}
		if (sec)
			section_people(sec, p->to, p->cc, true);
		g_hash_table_iter_init(&it, u->files);
		while (g_hash_table_iter_next(&it, &f, NULL)) {
			struct cfile *cf = f;

			if (!cf->new_text)
				continue;
			if (!g_ptr_array_find(p->files, cf, NULL))
				g_ptr_array_add(p->files, cf);
			/* the other sections a unit touches are Cc'd */
			if (mode == SPLIT_MAINTAINERS && m) {
				const struct msection *o =
					maintainers_for(m, cf->path, text);

				if (o && o != sec)
					section_people(o, p->to, p->cc, false);
			}
		}
		g_free(text);
	}
	g_hash_table_destroy(by_key);
	merge_sharing(patches);
	for (guint i = 0; i < patches->len; i++) {
		struct patch *p = patches->pdata[i];

		g_ptr_array_sort(p->files, cmp_cfile);
		for (guint k = 0; k < p->to->len; k++)
			remove_str(p->cc, p->to->pdata[k]);
		for (guint k = 0; k < p->units->len; k++) {
			struct unit *u = p->units->pdata[k];

			for (guint c = 0; c < u->cb_names->len; c++)
				add_unique(p->callbacks, u->cb_names->pdata[c]);
		}
	}
	g_ptr_array_sort(patches, cmp_patch);
	return patches;
}

/* "net: e1000e: fix foo" -> "net: e1000e" */
static char *subject_prefix(const char *subject)
{
	const char *colon = g_strrstr(subject, ": ");

	if (!colon || colon == subject || g_str_has_prefix(subject, "Revert") ||
	    g_str_has_prefix(subject, "Merge "))
		return NULL;
	return g_strndup(subject, colon - subject);
}

static char *files_prefix(struct patch *p);

char *series_prefix(const char *git_dir, const char *base, struct patch *p)
{
	GPtrArray *args = g_ptr_array_new();
	GHashTable *counts = g_hash_table_new_full(g_str_hash, g_str_equal,
						   g_free, NULL);
	char *best = NULL, *out = NULL;
	guint best_n = 0;

	if (git_dir) {
		g_ptr_array_add(args, "log");
		g_ptr_array_add(args, "--no-merges");
		g_ptr_array_add(args, "--format=%s");
		g_ptr_array_add(args, "-n");
		g_ptr_array_add(args, "50");
		g_ptr_array_add(args, (char *)base);
		g_ptr_array_add(args, "--");
		for (guint i = 0; i < p->files->len; i++)
			g_ptr_array_add(args,
					((struct cfile *)p->files->pdata[i])->path);
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
			n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, pre)) + 1;
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
	if (!best)
		best = files_prefix(p);
	return best;
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

/* The longest directory every file of the patch is in ("" for none). */
static char *common_dir(struct patch *p)
{
	char *common = NULL;

	for (guint i = 0; i < p->files->len; i++) {
		const char *path = ((struct cfile *)p->files->pdata[i])->path;
		char *dir = g_path_get_dirname(path);
		size_t n = 0;

		if (!strcmp(dir, "."))
			dir[0] = '\0';
		if (!common) {
			common = dir;
			continue;
		}
		/* the longest prefix of whole components */
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

/* A driver of its own directory: e1000/e1000_main.c, e1000/e1000_hw.c */
static bool named_after_dir(struct patch *p, const char *dir)
{
	for (guint i = 0; i < p->files->len; i++) {
		char *name = stem(((struct cfile *)p->files->pdata[i])->path);
		bool ok = g_str_has_prefix(name, dir);

		g_free(name);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * Without history: the driver's name for a patch of one file or of one
 * driver's directory (pcnet32:, e1000:), else the subsystem and the
 * common directory, as maintainers write them (drivers/net/ethernet/amd
 * -> net: amd:); for files with no directory in common, the directory
 * of the setup that placed the patch (block/ and mm/ -> block:).
 */
static char *files_prefix(struct patch *p)
{
	char *dir = common_dir(p);
	char **parts;
	GPtrArray *keep = g_ptr_array_new();
	char *res;
	bool one_dir = true;

	if (p->files->len == 1) {
		g_free(dir);
		g_ptr_array_free(keep, TRUE);
		return stem(((struct cfile *)p->files->pdata[0])->path);
	}
	for (guint i = 0; i < p->files->len; i++) {
		char *d = g_path_get_dirname(
			((struct cfile *)p->files->pdata[i])->path);

		one_dir &= !strcmp(d, *dir ? dir : ".");
		g_free(d);
	}
	/* block/ and mm/: the directory of the setup that placed it */
	if (!*dir && p->anchor) {
		g_free(dir);
		dir = g_path_get_dirname(p->anchor);
		if (!strcmp(dir, "."))
			dir[0] = '\0';
		one_dir = false;
	}
	parts = g_strsplit(dir, "/", -1);
	for (int i = 0; parts[i]; i++)
		if (parts[i][0] && !(i == 0 && !strcmp(parts[i], "drivers")) &&
		    strcmp(parts[i], "ethernet"))
			g_ptr_array_add(keep, parts[i]);
	if (!keep->len)
		res = g_strdup("treewide");
	else if ((one_dir && named_after_dir(p, keep->pdata[keep->len - 1])) ||
		 keep->len == 1)
		res = g_strdup(keep->pdata[keep->len - 1]);
	else
		res = g_strdup_printf("%s: %s", (char *)keep->pdata[0],
				      (char *)keep->pdata[keep->len - 1]);
	g_strfreev(parts);
	g_ptr_array_free(keep, TRUE);
	g_free(dir);
	return res;
}

/* What tells this patch's files apart: their names, three at most. */
static char *driver_names(struct patch *p)
{
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < p->files->len; i++) {
		const char *path = ((struct cfile *)p->files->pdata[i])->path;
		char *name = g_str_has_suffix(path, ".h") ? NULL : stem(path);
		bool seen = false;

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
			char *names, *pre;

			if (k == i || strcmp(q->prefix, p->prefix))
				continue;
			names = driver_names(q);
			pre = g_strdup_printf("%s: %s", q->prefix, names);
			g_free(q->prefix);
			q->prefix = pre;
			g_free(names);
		}
		{
			char *names = driver_names(p);
			char *pre = g_strdup_printf("%s: %s", p->prefix, names);

			g_free(p->prefix);
			p->prefix = pre;
			g_free(names);
		}
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
