// SPDX-License-Identifier: GPL-2.0
/*
 * The struct index of a tree's headers, saved between runs: a maintainer
 * converting one subsystem after another should not re-read include/
 * each time.  One line a record, fields separated by tabs (no name, tag
 * or path holds a tab or a newline; a record that would is not saved):
 *
 *	timerconv-structs 1
 *	I file spec...		#include lines
 *	S tag file line		a definition, its members follow
 *	M name tag ptr array text
 *	T name file value	a typedef
 *
 * A file that does not start with the version line, or that is cut
 * short, is ignored: the index is then built anew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structs_cache.h"
#include "structs_priv.h"
#include "util.h"

#define MAGIC "timerconv-structs 1"

static bool clean(const char *s)
{
	return s && !strpbrk(s, "\t\n");
}

static void save_def(GString *out, const struct sdef *d)
{
	if (!clean(d->tag) || !clean(d->file))
		return;
	g_string_append_printf(out, "S\t%s\t%s\t%u\n", d->tag, d->file,
			       d->line);
	for (guint i = 0; i < d->members->len; i++) {
		const struct member *m = d->members->pdata[i];

		if (!clean(m->name) || !clean(m->type.tag) ||
		    !clean(m->type.text))
			continue;
		g_string_append_printf(out, "M\t%s\t%s\t%d\t%d\t%s\n",
				       m->name, m->type.tag, m->type.ptr,
				       m->type.array, m->type.text);
	}
}

bool structs_cache_save(struct struct_index *si, const char *path,
			GError **error)
{
	GString *out = g_string_new(MAGIC "\n");
	GHashTableIter it;
	gpointer key, val;
	bool ok;

	g_mutex_lock(&si->lock);
	g_hash_table_iter_init(&it, si->includes);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		GPtrArray *specs = val;

		if (!clean(key))
			continue;
		g_string_append_printf(out, "I\t%s", (char *)key);
		for (guint i = 0; i < specs->len; i++)
			if (clean(specs->pdata[i]))
				g_string_append_printf(out, "\t%s",
						       (char *)specs->pdata[i]);
		g_string_append_c(out, '\n');
	}
	g_hash_table_iter_init(&it, si->defs);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		GPtrArray *list = val;

		for (guint i = 0; i < list->len; i++)
			save_def(out, list->pdata[i]);
	}
	g_hash_table_iter_init(&it, si->typedefs);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		GPtrArray *list = val;

		for (guint i = 0; i < list->len; i++) {
			struct tdef *t = list->pdata[i];

			if (clean(key) && clean(t->file) && clean(t->value))
				g_string_append_printf(out, "T\t%s\t%s\t%s\n",
						       (char *)key, t->file,
						       t->value);
		}
	}
	g_mutex_unlock(&si->lock);
	ok = write_file_atomic(path, out->str, out->len, 0644, error);
	g_string_free(out, TRUE);
	return ok;
}

static void add_def(struct struct_index *si, struct sdef *d)
{
	GPtrArray *list = g_hash_table_lookup(si->defs, d->tag);

	if (!list) {
		list = g_ptr_array_new_with_free_func(free_sdef);
		g_hash_table_insert(si->defs, g_strdup(d->tag), list);
	}
	g_ptr_array_add(list, d);
}

static void add_typedef(struct struct_index *si, char **f)
{
	GPtrArray *list = g_hash_table_lookup(si->typedefs, f[1]);
	struct tdef *t = g_new0(struct tdef, 1);

	if (!list) {
		list = g_ptr_array_new_with_free_func(free_tdef);
		g_hash_table_insert(si->typedefs, g_strdup(f[1]), list);
	}
	t->file = g_strdup(f[2]);
	t->value = g_strdup(f[3]);
	g_ptr_array_add(list, t);
}

/* One record; false if the line is not one. */
static bool load_line(struct struct_index *si, char *line,
		      struct sdef **cur)
{
	char **f = g_strsplit(line, "\t", -1);
	guint n = g_strv_length(f);
	bool ok = true;

	if (n >= 2 && !strcmp(f[0], "I")) {
		GPtrArray *specs = g_ptr_array_new_with_free_func(g_free);

		for (guint i = 2; i < n; i++)
			g_ptr_array_add(specs, g_strdup(f[i]));
		g_hash_table_replace(si->includes, g_strdup(f[1]), specs);
	} else if (n == 4 && !strcmp(f[0], "S")) {
		struct sdef *d = g_new0(struct sdef, 1);

		d->tag = g_strdup(f[1]);
		d->file = g_strdup(f[2]);
		d->line = (unsigned int)strtoul(f[3], NULL, 10);
		d->members = g_ptr_array_new_with_free_func(free_member);
		add_def(si, d);
		*cur = d;
	} else if (n == 6 && !strcmp(f[0], "M") && *cur) {
		struct member *m = g_new0(struct member, 1);

		m->name = g_strdup(f[1]);
		m->type.tag = g_strdup(f[2]);
		m->type.ptr = atoi(f[3]);
		m->type.array = atoi(f[4]) != 0;
		m->type.text = g_strdup(f[5]);
		g_ptr_array_add((*cur)->members, m);
	} else if (n == 4 && !strcmp(f[0], "T")) {
		add_typedef(si, f);
	} else {
		ok = false;
	}
	g_strfreev(f);
	return ok;
}

bool structs_cache_load(struct struct_index *si, const char *path)
{
	char *text = NULL;
	gsize len;
	struct sdef *cur = NULL;
	bool ok = true;
	char *line, *next;

	if (!g_file_get_contents(path, &text, &len, NULL))
		return false;
	if (strlen(text) != len || !g_str_has_prefix(text, MAGIC "\n")) {
		g_free(text);
		return false;
	}
	g_mutex_lock(&si->lock);
	for (line = text + strlen(MAGIC) + 1; ok && *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			ok = false;	/* cut short */
			break;
		}
		*next++ = '\0';
		ok = load_line(si, line, &cur);
	}
	g_mutex_unlock(&si->lock);
	g_free(text);
	return ok;
}
