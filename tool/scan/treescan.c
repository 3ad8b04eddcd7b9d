// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "lexer.h"
#include "treescan.h"
#include "util.h"

struct job {
	struct treescan *ts;
	const struct scan_opts *opts;
	gssize bytes;
	GAsyncQueue *scratch;	/* token arrays, one a worker at a time */
};

static void scan_one(size_t i, void *data)
{
	struct job *job = data;
	struct treescan *ts = job->ts;
	GError *error = NULL;
	size_t len;
	char *text;

	text = tree_read(ts->tree, ts->files->pdata[i], &len, &error);
	if (!text) {
		ts->errors[i] = g_strdup(error->message);
		g_error_free(error);
		return;
	}
	g_atomic_pointer_add(&job->bytes, (gssize)len);
	/* The tree's own timer.h defines the API; it does not use it. */
	if (scan_prefilter(text, len) &&
	    strcmp(ts->files->pdata[i], "include/linux/timer.h")) {
		GArray *scratch = g_async_queue_try_pop(job->scratch);

		if (!scratch)
			scratch = g_array_new(FALSE, FALSE,
					      sizeof(struct token));
		ts->results[i] = scan_file_reuse(text, len, job->opts,
						 scratch);
		g_async_queue_push(job->scratch, scratch);
	}
	g_free(text);
}

/* The timer names of the header `inc` included by `file`. */
static GHashTable *header_timers(struct treescan *ts, const char *file,
				 const char *inc, GHashTable *cache,
				 const struct scan_opts *opts)
{
	char *dir = g_path_get_dirname(file);
	char *joined = g_build_filename(dir, inc, NULL);
	char *rel = path_normalize(joined);
	gpointer hit = g_hash_table_lookup(ts->index, rel);
	struct scan_result *res = NULL;

	g_free(dir);
	g_free(joined);
	if (hit) {
		res = ts->results[GPOINTER_TO_SIZE(hit) - 1];
		g_free(rel);
		return res ? res->timer_names : NULL;
	}
	if (g_hash_table_contains(cache, rel)) {
		res = g_hash_table_lookup(cache, rel);
		g_free(rel);
		return res ? res->timer_names : NULL;
	}
	{
		size_t len;
		char *text = tree_read(ts->tree, rel, &len, NULL);

		if (text && scan_prefilter(text, len))
			res = scan_file(text, len, opts);
		g_free(text);
	}
	g_hash_table_insert(cache, rel, res);
	return res ? res->timer_names : NULL;
}

static void resolve_all(struct treescan *ts, const struct scan_opts *opts)
{
	GHashTable *cache = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, (GDestroyNotify)scan_result_free);

	for (guint i = 0; i < ts->files->len; i++) {
		struct scan_result *res = ts->results[i];
		GHashTable *merged = NULL;

		if (!res)
			continue;
		for (guint k = 0; k < res->includes->len; k++) {
			GHashTable *names = header_timers(ts,
				ts->files->pdata[i], res->includes->pdata[k],
				cache, opts);
			GHashTableIter it;
			gpointer key;

			if (!names || !g_hash_table_size(names))
				continue;
			if (!merged)
				merged = g_hash_table_new(g_str_hash,
							  g_str_equal);
			g_hash_table_iter_init(&it, names);
			while (g_hash_table_iter_next(&it, &key, NULL))
				g_hash_table_add(merged, key);
		}
		scan_resolve(res, merged);
		if (merged)
			g_hash_table_destroy(merged);
	}
	g_hash_table_destroy(cache);
}

struct treescan *treescan_run(const struct tree *tree, GPtrArray *files,
			      const struct scan_opts *opts, int jobs)
{
	struct treescan *ts = g_new0(struct treescan, 1);
	struct job job = { ts, opts, 0, g_async_queue_new_full(
		(GDestroyNotify)g_array_unref) };

	ts->tree = tree;
	ts->files = files;
	ts->results = g_new0(struct scan_result *, files->len + 1);
	ts->errors = g_new0(char *, files->len + 1);
	ts->index = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < files->len; i++)
		g_hash_table_insert(ts->index, files->pdata[i],
				    GSIZE_TO_POINTER(i + 1));
	parallel_for(files->len, jobs, scan_one, &job);
	g_async_queue_unref(job.scratch);
	for (guint i = 0; i < files->len; i++)
		if (ts->errors[i])
			ts->nerrors++;
	ts->bytes = (size_t)job.bytes;
	resolve_all(ts, opts);
	return ts;
}

void treescan_free(struct treescan *ts)
{
	if (!ts)
		return;
	for (guint i = 0; i < ts->files->len; i++) {
		scan_result_free(ts->results[i]);
		g_free(ts->errors[i]);
	}
	g_free(ts->results);
	g_free(ts->errors);
	g_hash_table_destroy(ts->index);
	g_free(ts);
}

GHashTable *treescan_handed(const struct treescan *ts)
{
	GHashTable *global = g_hash_table_new(g_str_hash, g_str_equal);

	for (guint i = 0; i < ts->files->len; i++) {
		struct scan_result *res = ts->results[i];
		GHashTableIter it;
		gpointer name;

		if (!res || !res->handed)
			continue;
		g_hash_table_iter_init(&it, res->handed);
		while (g_hash_table_iter_next(&it, &name, NULL)) {
			bool local = false;

			for (guint k = 0; k < res->ulong_funcs->len; k++) {
				struct ulong_func *f = &g_array_index(
					res->ulong_funcs, struct ulong_func, k);

				local |= f->is_static && !strcmp(f->name, name);
			}
			if (!local)
				g_hash_table_add(global, name);
		}
	}
	return global;
}
