// SPDX-License-Identifier: GPL-2.0
/*
 * The files of a conversion, and the struct index built over the tree on
 * first use (only runs that have something to convert pay for it).
 */
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "blank.h"
#include "conv.h"
#include "env.h"
#include "gitutil.h"
#include "spatch.h"
#include "structs_cache.h"
#include "treescan.h"
#include "util.h"

struct cfile *cfile_new(const char *path, char *text, size_t len)
{
	struct cfile *f = g_new0(struct cfile, 1);

	f->path = g_strdup(path);
	f->text = text;
	f->len = len;
	f->refs = g_ptr_array_new();
	f->cb_names = g_ptr_array_new_with_free_func(g_free);
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
	g_ptr_array_free(f->cb_names, TRUE);
	g_free(f->new_text);
	g_free(f->rewrite_error);
	g_free(f->spec_plan);
	g_free(f->spec_text);
	facts_free(f->spec_done);
	g_free(f);
}

const struct token *cfile_tokens(struct cfile *f, size_t *n)
{
	if (!f->tokens)
		f->tokens = lex_all(f->text, f->len, &f->ntok);
	*n = f->ntok;
	return f->tokens;
}

char *cfile_scratch_copy(const struct cfile *f, const char *dir,
			 GError **error)
{
	return cfile_scratch_write(f, dir, f->text, f->len, error);
}

/*
 * The name under which spatch sees f's copy.  spatch 1.1.1 runs diff on
 * the files it changes through a shell, unquoted: with a space, a quote,
 * #, %, a byte that is not ASCII or anything else a shell reads, its
 * result is lost and the file stays as it was ("diff: extra operand").
 * Such a path is copied as SCRATCH_UNSAFE/<hash of the path>/<its base
 * name made safe>: nothing is mapped back from the name, spatch's records
 * name the copy, which the driver knows (spatch.c's by_input, speculate.c).
 */
#define SCRATCH_UNSAFE "_timerconv_renamed_"

static char *scratch_name(const char *path)
{
	char *sum, *base, *name;

	if (spatch_path_safe(path) && !g_str_has_prefix(path, SCRATCH_UNSAFE))
		return g_strdup(path);
	sum = g_compute_checksum_for_string(G_CHECKSUM_SHA1, path, -1);
	base = g_path_get_basename(path);
	for (char *p = base; *p; p++)
		if (!g_ascii_isalnum(*p) && !strchr("._-", *p))
			*p = '_';
	if (base[0] == '-' || base[0] == '.')
		base[0] = '_';
	sum[16] = '\0';
	name = g_strdup_printf("%s/%s/%s", SCRATCH_UNSAFE, sum, base);
	g_free(base);
	g_free(sum);
	return name;
}

char *cfile_scratch_write(const struct cfile *f, const char *dir,
			  const char *text, size_t len, GError **error)
{
	char *name = scratch_name(f->path);
	char *path = g_build_filename(dir, name, NULL);
	char *parent = g_path_get_dirname(path);
	char *abs;

	g_free(name);
	g_mkdir_with_parents(parent, 0700);
	g_free(parent);
	if (!g_file_set_contents(path, text, (gssize)len, error)) {
		g_free(path);
		return NULL;
	}
	abs = g_canonicalize_filename(path, NULL);
	g_free(path);
	return abs;
}

char *cfile_blanked_text(struct cfile *f, size_t *blanked)
{
	bool lexed = f->tokens != NULL;
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	char *text = blank_bodies(f->text, f->len, t, n, f->cb_names,
				  blanked);

	/* the tokens were forgotten to save memory: forget them again */
	if (!lexed)
		cfile_forget_tokens(f);
	return text;
}

void cfile_forget_tokens(struct cfile *f)
{
	g_free(f->tokens);
	f->tokens = NULL;
	f->ntok = 0;
}

struct cfile *conv_file(struct conversion *cv, const char *path)
{
	return g_hash_table_lookup(cv->by_path, path);
}

int cfile_cmp_path(gconstpointer a, gconstpointer b)
{
	return strcmp((*(struct cfile *const *)a)->path,
		      (*(struct cfile *const *)b)->path);
}

char *cfile_include_path(const struct cfile *f, const char *name)
{
	char *dir = g_path_get_dirname(f->path);
	char *joined = g_build_filename(dir, name, NULL);
	char *path = path_normalize(joined);

	g_free(dir);
	g_free(joined);
	return path;
}

bool cfile_includes(const struct cfile *f, const char *path)
{
	bool found = false;

	for (guint i = 0; f->scan && !found && i < f->scan->includes->len;
	     i++) {
		char *to = cfile_include_path(f, f->scan->includes->pdata[i]);

		found = !strcmp(to, path);
		g_free(to);
	}
	return found;
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

static bool is_header(const char *name)
{
	return g_str_has_suffix(name, ".h");
}

/* Every header below dir, by absolute path. */
static void list_headers(const char *dir, GPtrArray *out)
{
	static const struct walk_rules headers = {
		.want = is_header,
		.file_links = true,
		.max_depth = 16,
	};
	GPtrArray *rel = g_ptr_array_new_with_free_func(g_free);

	dir_walk(dir, "", &headers, rel);
	for (guint i = 0; i < rel->len; i++)
		g_ptr_array_add(out, g_build_filename(dir, rel->pdata[i],
						      NULL));
	g_ptr_array_free(rel, TRUE);
}

static void index_outside(size_t i, void *data)
{
	struct index_job *job = data;
	const char *path = job->paths->pdata[i];
	char *text;
	gsize len;

	if (g_file_get_contents(path, &text, &len, NULL)) {
		structs_add_file(job->cv->structs, path, text, len);
		g_free(text);
	}
}

/*
 * Where the index of the tree's headers is kept between runs: in the git
 * dir (or $XDG_CACHE_HOME/timerconv), named by what went into it, every
 * header's path, size and modification time, so a header changed since
 * (committed or not) makes a new one.
 */
static char *cache_path(struct conversion *cv, GPtrArray *headers)
{
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA1);
	char *root = g_canonicalize_filename(cv->tree->root, NULL);
	char *dir = NULL, *path;

	g_checksum_update(sum, (const guchar *)root, -1);
	for (guint i = 0; i < headers->len; i++) {
		char *abs = tree_abspath(cv->tree, headers->pdata[i]);
		struct stat st;
		char buf[96];

		if (stat(abs, &st) == 0) {
			g_checksum_update(sum, (const guchar *)headers->pdata[i],
					  -1);
			snprintf(buf, sizeof(buf), "\n%lld %lld.%09ld\n",
				 (long long)st.st_size,
				 (long long)st.st_mtim.tv_sec,
				 st.st_mtim.tv_nsec);
			g_checksum_update(sum, (const guchar *)buf, -1);
		}
		g_free(abs);
	}
	if (cv->tree->is_git &&
	    git_run(cv->tree->root, &dir, NULL, "rev-parse",
		    "--absolute-git-dir", NULL)) {
		char *top = g_build_filename(g_strchomp(dir), "timerconv",
					     NULL);

		g_free(dir);
		dir = top;
	} else {
		g_free(dir);
		dir = g_build_filename(g_get_user_cache_dir(), "timerconv",
				       NULL);
	}
	path = g_strdup_printf("%s/structs-%s.idx", dir,
			       g_checksum_get_string(sum));
	g_mkdir_with_parents(dir, 0755);
	g_checksum_free(sum);
	g_free(root);
	g_free(dir);
	return path;
}

/* Keep one index per tree: the others are of older states of it. */
static void cache_prune(const char *keep)
{
	char *dir = g_path_get_dirname(keep);
	GDir *d = g_dir_open(dir, 0, NULL);
	const char *name;

	while (d && (name = g_dir_read_name(d))) {
		char *path = g_build_filename(dir, name, NULL);

		if (g_str_has_prefix(name, "structs-") &&
		    g_str_has_suffix(name, ".idx") && strcmp(path, keep))
			g_unlink(path);
		g_free(path);
	}
	if (d)
		g_dir_close(d);
	g_free(dir);
}

struct struct_index *conv_structs(struct conversion *cv)
{
	struct index_job job = { cv, NULL };
	char *cache;

	if (cv->structs)
		return cv->structs;
	/* Every header of the tree, from the cache if it has them... */
	job.paths = g_ptr_array_new();
	for (guint i = 0; cv->all_files && i < cv->all_files->len; i++) {
		const char *p = cv->all_files->pdata[i];

		if (g_str_has_suffix(p, ".h"))
			g_ptr_array_add(job.paths, (gpointer)p);
	}
	cache = env_no_cache() ? NULL :
		cache_path(cv, job.paths);
	cv->structs = structs_new();
	if (cache && structs_cache_load(cv->structs, cache)) {
		cv->structs_cached = true;
	} else {
		structs_free(cv->structs);
		cv->structs = structs_new();
		parallel_for(job.paths->len, cv->jobs, index_one, &job);
		if (cache && structs_cache_save(cv->structs, cache, NULL))
			cache_prune(cache);
	}
	g_free(cache);
	g_ptr_array_free(job.paths, TRUE);
	/* ... then the .c files taking part */
	job.paths = g_ptr_array_new();
	for (guint i = 0; i < cv->files->len; i++) {
		struct cfile *f = cv->files->pdata[i];

		if (!g_str_has_suffix(f->path, ".h"))
			g_ptr_array_add(job.paths, f->path);
	}
	parallel_for(job.paths->len, cv->jobs, index_one, &job);
	g_ptr_array_free(job.paths, TRUE);
	/* and the headers of -I and --kernel-headers, by absolute path */
	job.paths = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; cv->include_dirs && i < cv->include_dirs->len; i++) {
		const char *dir = cv->include_dirs->pdata[i];

		structs_add_include_dir(cv->structs, dir);
		list_headers(dir, job.paths);
	}
	parallel_for(job.paths->len, cv->jobs, index_outside, &job);
	g_ptr_array_free(job.paths, TRUE);
	return cv->structs;
}
