// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "diff.h"
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
			p->whole_tree = mode == SPLIT_NONE;
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

		g_ptr_array_sort(p->files, cfile_cmp_path);
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
