// SPDX-License-Identifier: GPL-2.0
/*
 * The files of a conversion, and the struct index built over the tree on
 * first use (only runs that have something to convert pay for it).
 */
#include <string.h>

#include "conv.h"
#include "util.h"

struct cfile *cfile_new(const char *path, char *text, size_t len)
{
	struct cfile *f = g_new0(struct cfile, 1);

	f->path = g_strdup(path);
	f->text = text;
	f->len = len;
	f->refs = g_ptr_array_new();
	return f;
}

static void free_ref(struct cb_ref *r)
{
	g_free(r->name);
	g_free(r);
}

void cfile_free(struct cfile *f)
{
	if (!f)
		return;
	g_free(f->path);
	g_free(f->text);
	scan_result_free(f->scan);
	g_free(f->tokens);
	facts_free(f->facts);
	facts_free(f->done);
	g_free(f->spatch_error);
	for (guint i = 0; i < f->refs->len; i++)
		free_ref(f->refs->pdata[i]);
	g_ptr_array_free(f->refs, TRUE);
	g_free(f->new_text);
	g_free(f->rewrite_error);
	g_free(f);
}

const struct token *cfile_tokens(struct cfile *f, size_t *n)
{
	if (!f->tokens)
		f->tokens = lex_all(f->text, f->len, &f->ntok);
	*n = f->ntok;
	return f->tokens;
}

struct cfile *conv_file(struct conversion *cv, const char *path)
{
	return g_hash_table_lookup(cv->by_path, path);
}

struct index_job {
	struct conversion *cv;
	GPtrArray *paths;
};

static void index_one(size_t i, void *data)
{
	struct index_job *job = data;
	const char *path = job->paths->pdata[i];
	struct cfile *f = conv_file(job->cv, path);
	size_t len;
	char *text;

	if (f) {
		structs_add_file(job->cv->structs, f->path, f->text, f->len);
		return;
	}
	text = tree_read(job->cv->tree, path, &len, NULL);
	if (text)
		structs_add_file(job->cv->structs, path, text, len);
	g_free(text);
}

struct struct_index *conv_structs(struct conversion *cv)
{
	struct index_job job = { cv, g_ptr_array_new() };

	if (cv->structs)
		return cv->structs;
	cv->structs = structs_new();
	/* Every header of the tree, and the .c files taking part. */
	for (guint i = 0; cv->all_files && i < cv->all_files->len; i++) {
		const char *p = cv->all_files->pdata[i];

		if (g_str_has_suffix(p, ".h") && !conv_file(cv, p))
			g_ptr_array_add(job.paths, (gpointer)p);
	}
	for (guint i = 0; i < cv->files->len; i++)
		g_ptr_array_add(job.paths,
				((struct cfile *)cv->files->pdata[i])->path);
	parallel_for(job.paths->len, cv->jobs, index_one, &job);
	g_ptr_array_free(job.paths, TRUE);
	return cv->structs;
}
