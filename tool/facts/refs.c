// SPDX-License-Identifier: GPL-2.0
/*
 * Where callback names are used, as the lexer sees it: every identifier
 * token of that name that is not a member (after . or ->).  This is the
 * over-approximation that a conversion is checked against; spatch must
 * account for each of these uses or the callback is refused.  The names
 * a file contains in any context also narrow spatch's callback-name
 * constraint for that file (see spatch.c).
 */
#include <string.h>

#include "conv.h"
#include "util.h"

static void note_name(struct cfile *f, const char *name)
{
	if (!g_ptr_array_find_with_equal_func(f->cb_names, name,
					      g_str_equal, NULL))
		g_ptr_array_add(f->cb_names, g_strdup(name));
}

void refs_find(struct cfile *f, GHashTable *names)
{
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	char *buf = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		struct cb_ref *r;

		if (t[i].kind != TOK_IDENT)
			continue;
		if (t[i].len + 1 > cap) {
			cap = t[i].len + 64;
			buf = g_realloc(buf, cap);
		}
		memcpy(buf, t[i].p, t[i].len);
		buf[t[i].len] = '\0';
		if (!g_hash_table_contains(names, buf))
			continue;
		/* what spatch may match, wherever it is */
		note_name(f, buf);
		if ((t[i].flags & TF_PP) && !(t[i].flags & TF_DEFINE_BODY))
			continue;
		if (i > 0 && (tok_punct(&t[i - 1], '.') ||
			      TOK_IS(&t[i - 1], "->")))
			continue;
		r = g_new0(struct cb_ref, 1);
		r->name = g_strdup(buf);
		r->line = t[i].line;
		r->col = t[i].col;
		r->in_define = (t[i].flags & TF_PP) != 0;
		g_ptr_array_add(f->refs, r);
	}
	g_free(buf);
}

/* A word's first two bytes and length, folded to a bit of the filter. */
#define FILTER_BITS 65536u

static inline guint filter_bit(const char *w, size_t len)
{
	guint b = (guint)(unsigned char)w[0] << 8 |
		  (len > 1 ? (unsigned char)w[1] : 0);

	return (b ^ (guint)len << 10 ^ (guint)len) % FILTER_BITS;
}

struct refs_job {
	const struct tree *tree;
	GPtrArray *files;
	GHashTable *names;
	gsize min_len, max_len;
	gboolean *hit;
	/* a bit set for each name: most words of a file miss it, and are
	 * not looked up */
	guint8 filter[FILTER_BITS / 8];
};

/*
 * Does the text contain one of the names as a whole identifier?  A word
 * is a run of the bytes the lexer reads names from, so that a name it
 * would see as a token is found here.
 */
static bool mentions(const struct refs_job *job, const char *text,
		     size_t len)
{
	const char *p = text, *end = text + len;
	char buf[256];

	while ((p = lex_ident_next(p, end)) < end) {
		const char *start = p;
		size_t n;
		guint bit;

		p = lex_ident_end(p, end);
		n = p - start;
		if (n < job->min_len || n > job->max_len || n >= sizeof(buf))
			continue;
		bit = filter_bit(start, n);
		if (!(job->filter[bit / 8] & 1u << bit % 8))
			continue;
		memcpy(buf, start, n);
		buf[n] = '\0';
		if (g_hash_table_contains(job->names, buf))
			return true;
	}
	return false;
}

static void refs_one(size_t i, void *data)
{
	struct refs_job *job = data;
	size_t len;
	char *text = tree_read(job->tree, job->files->pdata[i], &len, NULL);

	if (text && mentions(job, text, len))
		job->hit[i] = TRUE;
	g_free(text);
}

/* The files of `files` that mention any of the names. */
GPtrArray *refs_files(const struct tree *tree, GPtrArray *files,
		      GHashTable *names, int jobs)
{
	struct refs_job job = { tree, files, names, G_MAXSIZE, 0, NULL };
	GPtrArray *out = g_ptr_array_new();
	GHashTableIter it;
	gpointer key;

	if (!g_hash_table_size(names))
		return out;
	g_hash_table_iter_init(&it, names);
	while (g_hash_table_iter_next(&it, &key, NULL)) {
		gsize l = strlen(key);
		guint bit = filter_bit(key, l);

		job.filter[bit / 8] |= 1u << bit % 8;
		job.min_len = MIN(job.min_len, l);
		job.max_len = MAX(job.max_len, l);
	}
	job.hit = g_new0(gboolean, files->len);
	parallel_for(files->len, jobs, refs_one, &job);
	for (guint i = 0; i < files->len; i++)
		if (job.hit[i])
			g_ptr_array_add(out, files->pdata[i]);
	g_free(job.hit);
	return out;
}
