// SPDX-License-Identifier: GPL-2.0
/*
 * timerconv series: the conversion as patch series a maintainer can mail.
 *
 * The conversion runs in a temporary worktree at the base, so the tree is
 * not touched (and a dirty tree does not leak into the patches); each
 * patch becomes a commit there, and git format-patch writes the files,
 * which are then given their To:/Cc: headers, the note below the ---
 * and a cover letter that lists the patches and what was left alone.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gitutil.h"
#include "maintainers.h"
#include "overlay.h"
#include "pipeline.h"
#include "progress.h"
#include "report.h"
#include "series.h"
#include "series_group.h"
#include "series_out.h"
#include "target.h"
#include "util.h"
#include "verify.h"
#include "version.h"

#define REQUIRES_SHA	"686fef928bba"
#define REQUIRES_SUBJ	"timer: Prepare to change timer callback argument type"
#define COMMIT_COLUMNS	75	/* checkpatch's limit for a commit message */

struct series_opts {
	char *tree;
	char *out;
	char *split;
	char *base;
	char *branch;
	gboolean dry_run;
	char *upstream;
	char *api_header;
	gboolean force;
	gboolean quiet;
	gboolean follow_units;
	gboolean keep_data;
	char *target;
	char *kernel_headers;
	int jobs;
	int timeout;
	char *macro_file;
	char **include_dirs;
	gboolean verify;
	char *config;
	char *build_dir;
	char **make_args;
	char **paths;
};

/* A patch series --verify left out: it does not build on top of the
 * patches before it. */
struct unbuilt {
	struct patch *p;
	char *why;
};

struct series {
	struct series_opts *o;
	char *root;		/* the user's tree */
	bool is_git;
	char *base_sha;
	char *work;		/* where the conversion runs and commits go */
	bool worktree;		/* work is a git worktree of root */
	char *tmp;
	enum split_mode split;
	struct maintainers *maint;
	struct run run;
	GPtrArray *patches;
	GPtrArray *shas;
	GPtrArray *dropped;	/* units --upstream already has */
	GPtrArray *base;	/* --verify: struct overlay_file * */
	GPtrArray *unbuilt;	/* --verify: struct unbuilt * */
	GPtrArray *stale;	/* patches of an earlier series in --out */
};

static const char *out_dir(struct series *s)
{
	return s->o->out ? s->o->out : "timerconv-series";
}

/* ---- the tree and its base ---- */

static bool is_toplevel(const char *root, GError **error)
{
	char *top = NULL;
	char *real = realpath(root, NULL);
	bool ok;

	if (!git_run(root, &top, error, "rev-parse", "--show-toplevel",
		     NULL)) {
		free(real);
		return false;
	}
	g_strchomp(top);
	ok = real && !strcmp(top, real);
	if (!ok)
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s is inside the git tree %s: run timerconv series on its top directory (-C %s) and name the subdirectory as a PATH",
			    root, top, top);
	free(real);
	g_free(top);
	return ok;
}

static bool dirty(const char *root)
{
	char *out = NULL;
	bool d;

	if (!git_run(root, &out, NULL, "status", "--porcelain",
		     "--untracked-files=no", NULL))
		return true;
	d = out[0] != '\0';
	g_free(out);
	return d;
}

/* timer_setup() must be there, or no patch of the series applies. */
static bool base_check(struct series *s, GError **error)
{
	char *header = s->o->api_header ?
		(g_path_is_absolute(s->o->api_header) ?
		 g_strdup(s->o->api_header) :
		 g_build_filename(s->work, s->o->api_header, NULL)) :
		g_build_filename(s->work, "include", "linux", "timer.h", NULL);
	GHashTable *ids = header_identifiers(header);
	bool ok = true;

	if (ids && !g_hash_table_contains(ids, "timer_setup") &&
	    !s->o->force) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s%s%s has no timer_setup(): the patches would not build on this base.\n"
			    "timerconv:   timer_setup() and from_timer() arrived in v4.15-rc1 and were pulled into\n"
			    "timerconv:   v4.14-rc3 (commit " REQUIRES_SHA " (\"" REQUIRES_SUBJ "\"));\n"
			    "timerconv:   base the series on v4.14-rc3 or later (--base REV), or use --force",
			    s->o->api_header ? s->o->api_header :
			    "include/linux/timer.h",
			    s->o->base ? " at " : "",
			    s->o->base ? s->o->base : "");
		ok = false;
	} else if (!ids && s->o->api_header) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--api-header %s: cannot read it", header);
		ok = false;
	}
	if (ids)
		g_hash_table_destroy(ids);
	g_free(header);
	return ok;
}

/* The commit REV names in the tree, or NULL with "OPTION REV: no such
 * revision" (a typo in --base or --upstream is an error, not an empty
 * comparison that keeps every patch). */
static char *commit_of(struct series *s, const char *option, const char *rev,
		       GError **error)
{
	char *spec = g_strdup_printf("%s^{commit}", rev);
	char *sha = NULL;

	if (!git_run(s->root, &sha, NULL, "rev-parse", "--verify", "--quiet",
		     spec, NULL)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "%s %s: no such revision in %s", option, rev,
			    s->root);
		sha = NULL;
	}
	g_free(spec);
	return sha ? g_strchomp(sha) : NULL;
}

static bool prepare(struct series *s, GError **error)
{
	const char *rev = s->o->base ? s->o->base : "HEAD";

	s->tmp = tmpdir_create("series", error);
	if (!s->tmp)
		return false;
	if (!s->is_git) {
		s->work = g_strdup(s->root);
		return true;
	}
	if (!is_toplevel(s->root, error))
		return false;
	s->base_sha = commit_of(s, "--base", rev, error);
	if (!s->base_sha)
		return false;
	if (s->o->upstream) {
		char *up = commit_of(s, "--upstream", s->o->upstream, error);

		if (!up)
			return false;
		g_free(up);
	}
	s->work = g_build_filename(s->tmp, "work", NULL);
	if (!git_run(s->root, NULL, error, "worktree", "add", "--detach",
		     "--quiet", s->work, s->base_sha, NULL))
		return false;
	s->worktree = true;
	return true;
}

static void free_patches(GPtrArray *patches)
{
	if (!patches)
		return;
	for (guint i = 0; i < patches->len; i++)
		patch_free(patches->pdata[i]);
	g_ptr_array_free(patches, TRUE);
}

/* Remove the worktree and free everything run_series() made. */
static void cleanup(struct series *s)
{
	if (s->worktree) {
		git_run(s->root, NULL, NULL, "worktree", "remove", "--force",
			s->work, NULL);
		git_run(s->root, NULL, NULL, "worktree", "prune", NULL);
	}
	for (guint i = 0; s->unbuilt && i < s->unbuilt->len; i++) {
		struct unbuilt *u = s->unbuilt->pdata[i];

		patch_free(u->p);
		g_free(u->why);
		g_free(u);
	}
	if (s->unbuilt)
		g_ptr_array_free(s->unbuilt, TRUE);
	free_patches(s->patches);
	pipeline_free(&s->run);
	if (s->maint)
		maintainers_free(s->maint);
	if (s->dropped)
		g_ptr_array_free(s->dropped, TRUE);
	if (s->shas)
		g_ptr_array_free(s->shas, TRUE);
	if (s->base)
		g_ptr_array_free(s->base, TRUE);
	if (s->stale)
		g_ptr_array_free(s->stale, TRUE);
	g_free(s->root);
	g_free(s->base_sha);
	g_free(s->work);
	g_free(s->tmp);
}

/* ---- --upstream: drop what is already converted there ---- */

static bool converted_in(const char *root, const char *rev,
			 const struct cfile *f, const char *callback)
{
	char *spec = g_strdup_printf("%s:%s", rev, f->path);
	char *text = NULL;
	struct scan_result *res;
	bool gone = true;

	if (!git_run(root, &text, NULL, "show", spec, NULL)) {
		g_free(spec);
		return false;
	}
	g_free(spec);
	if (!strstr(text, callback)) {
		g_free(text);
		return false;
	}
	res = scan_file(text, strlen(text), NULL);
	for (guint i = 0; i < res->ulong_funcs->len; i++)
		if (!strcmp(g_array_index(res->ulong_funcs, struct ulong_func,
					  i).name, callback))
			gone = false;
	scan_result_free(res);
	g_free(text);
	return gone;
}

static void drop_upstream(struct conversion *cv, void *ctx)
{
	struct series *s = ctx;

	for (guint i = 0; i < cv->units->len; i++) {
		struct unit *u = cv->units->pdata[i];
		bool all = u->items->len > 0;

		if (u->reason)
			continue;
		for (guint k = 0; k < u->items->len && all; k++) {
			struct plan_item *it = u->items->pdata[k];

			if (!strcmp(it->section, "callbacks"))
				all = converted_in(s->root, s->o->upstream,
						   it->file, it->callback);
		}
		if (!all)
			continue;
		unit_refuse(u, NULL, "already converted in %s",
			    s->o->upstream);
		g_ptr_array_add(s->dropped, u);
	}
}

/* ---- --verify ---- */

static void overlay_file_free(struct overlay_file *f)
{
	g_free((char *)f->path);
	g_free((char *)f->text);
	g_free(f);
}

/*
 * The build directory is kept for the user's tree, and its source view
 * links into it, so that the files kbuild prepared from keep their
 * times; where the tree differs from the base (uncommitted changes,
 * --base), the view takes the base's files from the worktree.
 */
static bool verify_base(struct series *s, GError **error)
{
	char *out = NULL;
	const char *p;

	s->base = g_ptr_array_new_with_free_func(
		(GDestroyNotify)overlay_file_free);
	if (!git_run(s->root, &out, error, "diff", "--name-only",
		     "--no-renames", "-z", s->base_sha, "--", NULL))
		return false;
	for (p = out; *p; p += strlen(p) + 1) {
		struct overlay_file *f = g_new0(struct overlay_file, 1);
		char *abs = g_build_filename(s->work, p, NULL);
		char *text = NULL;
		gsize len = 0;

		f->path = g_strdup(p);
		if (g_file_get_contents(abs, &text, &len, NULL)) {
			f->text = text;
			f->len = len;
		}
		g_ptr_array_add(s->base, f);
		g_free(abs);
	}
	g_free(out);
	return true;
}

/*
 * Build each patch on top of the ones before it; one that does not build
 * is left out, its units refused, and the files of left-out patches are
 * built with every later patch too (a later patch may need them
 * converted).
 */
static bool verify_prefixes(struct series *s, GError **error)
{
	struct conversion *cv = &s->run.cv;
	GPtrArray *state = g_ptr_array_new();
	GPtrArray *watch = g_ptr_array_new();
	GPtrArray *kept = g_ptr_array_new();
	bool ok = true;

	for (guint i = 0; ok && i < s->patches->len; i++) {
		struct patch *p = s->patches->pdata[i];
		GPtrArray *try = g_ptr_array_copy(state, NULL, NULL);
		GPtrArray *build = g_ptr_array_copy(p->files, NULL, NULL);
		char *why = NULL;

		for (guint k = 0; k < p->files->len; k++)
			g_ptr_array_add(try, p->files->pdata[k]);
		for (guint k = 0; k < watch->len; k++)
			g_ptr_array_add(build, watch->pdata[k]);
		ok = verify_state(cv, try, build, &why, error);
		if (ok && !why) {
			for (guint k = 0; k < p->files->len; k++)
				g_ptr_array_add(state, p->files->pdata[k]);
			g_ptr_array_add(kept, p);
		} else if (ok) {
			struct unbuilt *u = g_new0(struct unbuilt, 1);

			u->p = p;
			u->why = why;
			g_ptr_array_add(s->unbuilt, u);
			for (guint k = 0; k < p->units->len; k++)
				verify_refused(cv, p->units->pdata[k], why);
			for (guint k = 0; k < p->files->len; k++)
				g_ptr_array_add(watch, p->files->pdata[k]);
		}
		g_ptr_array_free(try, TRUE);
		g_ptr_array_free(build, TRUE);
	}
	for (guint i = 0; ok && i < s->unbuilt->len; i++) {
		struct patch *p = ((struct unbuilt *)s->unbuilt->pdata[i])->p;

		for (guint k = 0; k < p->files->len; k++) {
			struct cfile *f = p->files->pdata[k];

			g_clear_pointer(&f->new_text, g_free);
			f->new_len = 0;
		}
	}
	if (ok) {
		g_ptr_array_free(s->patches, TRUE);
		s->patches = kept;
		plan_settle(cv);
	} else {
		g_ptr_array_free(kept, TRUE);
	}
	g_ptr_array_free(state, TRUE);
	g_ptr_array_free(watch, TRUE);
	return ok;
}

/* ---- commits ---- */

static char *author(struct series *s)
{
	char *name = git_config(s->work, "user.name");
	char *email = git_config(s->work, "user.email");
	char *res = g_strdup_printf("%s <%s>", name ? name : "timerconv",
				    email ? email : "timerconv@localhost");

	g_free(name);
	g_free(email);
	return res;
}

/*
 * "LEAD a(), b(), c()" wrapped at 75 columns, as git and checkpatch want a
 * commit message's lines (a series of 300 files converts some hundred
 * callbacks), each further line starting with INDENT; no newline after
 * the last.
 */
static void append_names(GString *m, const char *lead, const char *indent,
			 GPtrArray *names)
{
	size_t col;

	g_string_append(m, lead);
	col = strlen(lead);
	for (guint i = 0; i < names->len; i++) {
		const char *sep = i + 1 < names->len ? "," : "";
		size_t w = strlen(names->pdata[i]) + 2 + strlen(sep);

		if (col > strlen(indent) && col + 1 + w > COMMIT_COLUMNS) {
			g_string_append_c(m, '\n');
			g_string_append(m, indent);
			col = strlen(indent);
		} else if (col) {
			g_string_append_c(m, ' ');
			col++;
		}
		g_string_append_printf(m, "%s()%s", (char *)names->pdata[i],
				       sep);
		col += w;
	}
}

static const char *container_of_name(struct series *s)
{
	return s->run.target.container_of;
}

static char *commit_message(struct series *s, struct patch *p)
{
	GString *m = g_string_new(NULL);
	char *me = author(s);
	const char *cof = container_of_name(s);

	g_string_append_printf(m, "%s: Convert timers to use timer_setup()\n\n",
			       p->prefix);
	g_string_append_printf(m,
		"Timer callbacks now receive the struct timer_list that expired\n"
		"rather than an unsigned long picked at setup time.  Set these timers\n"
		"up with timer_setup() and have each callback get back to the\n"
		"structure that embeds its timer with %s(), instead of casting\n"
		"its data argument; the argument, and the casts, go away.\n\n",
		cof);
	append_names(m, "Converted callbacks:", "", p->callbacks);
	g_string_append(m, "\n\n");
	for (guint i = 0; i < p->to->len; i++)
		g_string_append_printf(m, "Cc: %s\n", (char *)p->to->pdata[i]);
	for (guint i = 0; i < p->cc->len; i++)
		g_string_append_printf(m, "Cc: %s\n", (char *)p->cc->pdata[i]);
	g_string_append_printf(m, "Signed-off-by: %s\n", me);
	g_free(me);
	return g_string_free(m, FALSE);
}

static bool commit_patch(struct series *s, struct patch *p, GError **error)
{
	char *msg = commit_message(s, p);
	char *msgfile = g_build_filename(s->tmp, "message", NULL);
	GPtrArray *args = g_ptr_array_new();
	char *sha = NULL;
	bool ok = false;

	for (guint i = 0; i < p->files->len; i++) {
		struct cfile *f = p->files->pdata[i];
		char *abs = g_build_filename(s->work, f->path, NULL);

		if (!write_file_atomic(abs, f->new_text, f->new_len, -1,
				       error)) {
			g_free(abs);
			goto out;
		}
		g_free(abs);
	}
	if (!g_file_set_contents(msgfile, msg, -1, error))
		goto out;
	/* -f: a tree's .gitignore may cover files it tracks (Debian's
	 * linux-source ignores everything at the top) */
	g_ptr_array_add(args, "add");
	g_ptr_array_add(args, "-f");
	g_ptr_array_add(args, "--");
	for (guint i = 0; i < p->files->len; i++)
		g_ptr_array_add(args, ((struct cfile *)p->files->pdata[i])->path);
	g_ptr_array_add(args, NULL);
	if (!git_runv(s->work, (const char *const *)args->pdata, NULL, error))
		goto out;
	if (!git_run(s->work, NULL, error, "commit", "--quiet", "--no-verify",
		     "-F", msgfile, NULL))
		goto out;
	if (!git_run(s->work, &sha, error, "rev-parse", "HEAD", NULL))
		goto out;
	g_ptr_array_add(s->shas, g_strchomp(sha));
	ok = true;
out:
	g_ptr_array_free(args, TRUE);
	g_free(msgfile);
	g_free(msg);
	return ok;
}

/* A non-git tree: a scratch repository holding the files as they are. */
static bool scratch_repo(struct series *s, GError **error)
{
	char *repo = g_build_filename(s->tmp, "repo", NULL);
	GPtrArray *changed = pipeline_changed(&s->run);
	bool ok = false;

	if (!git_run(s->tmp, NULL, error, "init", "--quiet", repo, NULL))
		goto out;
	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];
		char *abs = g_build_filename(repo, f->path, NULL);
		char *dir = g_path_get_dirname(abs);

		g_mkdir_with_parents(dir, 0755);
		ok = g_file_set_contents(abs, f->text, f->len, error);
		g_free(dir);
		g_free(abs);
		if (!ok)
			goto out;
	}
	ok = git_run(repo, NULL, error, "add", "-A", "-f", NULL) &&
	     git_run(repo, NULL, error, "-c", "user.name=timerconv",
		     "-c", "user.email=timerconv@localhost", "commit",
		     "--quiet", "--allow-empty", "-m", "base", NULL);
	if (ok) {
		char *sha = NULL;

		ok = git_run(repo, &sha, error, "rev-parse", "HEAD", NULL);
		if (ok)
			s->base_sha = g_strchomp(sha);
	}
	g_free(s->work);
	s->work = repo;
	repo = NULL;
out:
	g_free(repo);
	g_ptr_array_free(changed, TRUE);
	return ok;
}

/* ---- patch files ---- */

static char *recipients(const char *field, GPtrArray *people)
{
	GString *h = g_string_new(NULL);

	if (!people->len)
		return g_string_free(h, FALSE);
	g_string_append_printf(h, "%s: ", field);
	for (guint i = 0; i < people->len; i++)
		g_string_append_printf(h, "%s%s", i ? ",\n    " : "",
				       (char *)people->pdata[i]);
	g_string_append_c(h, '\n');
	return g_string_free(h, FALSE);
}

static const char *requires_note(struct series *s)
{
	if (!strcmp(container_of_name(s), "timer_container_of"))
		return "This uses timer_container_of(), which replaced from_timer() in v6.16.\n";
	return "This requires commit " REQUIRES_SHA " (\"timer: Prepare to change timer\n"
	       "callback argument type\") in v4.14-rc3, which added timer_setup()\n"
	       "and from_timer().\n";
}

/* Insert To:/Cc: after the Subject header, the note after the first ---. */
static char *decorate(const char *text, const char *to, const char *cc,
		      const char *note)
{
	GString *out = g_string_new(NULL);
	const char *p = text;
	bool headers = true, noted = !note;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (headers && len == 1) {
			g_string_append(out, to);
			g_string_append(out, cc);
			headers = false;
		}
		g_string_append_len(out, p, len);
		if (!headers && !noted && len == 4 && !strncmp(p, "---\n", 4)) {
			g_string_append(out, note);
			g_string_append(out, "---\n");
			noted = true;
		}
		p += len;
	}
	return g_string_free(out, FALSE);
}

static void refused_list(struct series *s, GString *b)
{
	guint n = 0;

	for (guint i = 0; i < s->run.cv.sites->len; i++) {
		struct csite *c = s->run.cv.sites->pdata[i];

		if (!csite_counted(c) || c->outcome == OUT_CONVERTED)
			continue;
		if (!n++)
			g_string_append(b, "Left alone, with the reason:\n\n");
		g_string_append_printf(b, "  %s:%u: %s: %s\n", c->file->path,
				       c->site->line, site_kind(c->site),
				       c->reason);
	}
	if (n)
		g_string_append_c(b, '\n');
}

/* --keep-data: the units whose data moved into a member, and where. */
static void kept_list(struct series *s, GString *b)
{
	guint n = 0;

	for (guint i = 0; i < s->run.cv.units->len; i++) {
		struct unit *u = s->run.cv.units->pdata[i];

		if (u->reason || !u->kept)
			continue;
		if (!n++)
			g_string_append(b, "Converted with their data kept beside the timer (--keep-data):\n\n");
		g_string_append_printf(b, "  %s() in %s\n",
				       (char *)u->cb_names->pdata[0], u->kept);
	}
	if (n)
		g_string_append_c(b, '\n');
}

static char *cover_blurb(struct series *s)
{
	GString *b = g_string_new(NULL);

	g_string_append_printf(b,
		"These patches move %u part%s of the tree from setup_timer() and\n"
		"init_timer() to timer_setup(), so that timer callbacks take the\n"
		"struct timer_list that expired and find their data with %s().\n"
		"Each patch stands alone and can go through its maintainer's tree;\n"
		"a callback, its setups and its prototypes are always in the same\n"
		"patch.\n\n",
		s->patches->len, s->patches->len == 1 ? "" : "s",
		container_of_name(s));
	g_string_append(b, requires_note(s));
	if (s->base_sha && s->is_git)
		g_string_append_printf(b, "The series is based on %s.\n",
				       s->base_sha);
	g_string_append_c(b, '\n');
	for (guint i = 0; i < s->patches->len; i++) {
		struct patch *p = s->patches->pdata[i];

		g_string_append_printf(b, "  %u/%u %s (%s):\n", i + 1,
				       s->patches->len, p->prefix, p->key);
		for (guint k = 0; k < p->files->len; k++)
			g_string_append_printf(b, "        %s\n",
				((struct cfile *)p->files->pdata[k])->path);
	}
	g_string_append_c(b, '\n');
	if (s->o->verify) {
		char *note = verify_note(&s->run.cv);

		g_string_append(b, note);
		g_free(note);
		for (guint i = 0; i < s->unbuilt->len; i++) {
			struct unbuilt *u = s->unbuilt->pdata[i];
			char *lead;

			if (!i)
				g_string_append(b, "\nLeft out, as they do not build on top of the patches before\nthem (their conversion needs a patch of its own):\n\n");
			lead = g_strdup_printf("  %s:", u->p->key);
			append_names(b, lead, "    ", u->p->callbacks);
			g_string_append_printf(b, "\n    %s\n", u->why);
			g_free(lead);
		}
		g_string_append_c(b, '\n');
	}
	kept_list(s, b);
	refused_list(s, b);
	for (guint i = 0; i < s->dropped->len; i++) {
		struct unit *u = s->dropped->pdata[i];

		g_string_append_printf(b, "Dropped, already in %s: %s()\n",
				       s->o->upstream,
				       (char *)u->cb_names->pdata[0]);
	}
	g_string_append_printf(b, "Generated by timerconv %s.",
			       TIMERCONV_VERSION);
	return g_string_free(b, FALSE);
}

static char *fill_cover(struct series *s, const char *text)
{
	char *subject = g_strdup_printf("Convert timers to use timer_setup()");
	char *blurb = cover_blurb(s);
	GString *t = g_string_new(text);
	char *res;

	g_string_replace(t, "*** SUBJECT HERE ***", subject, 1);
	g_string_replace(t, "*** BLURB HERE ***", blurb, 1);
	res = g_string_free(t, FALSE);
	g_free(subject);
	g_free(blurb);
	return res;
}

static void all_people(struct series *s, GPtrArray *to, GPtrArray *cc)
{
	for (guint i = 0; i < s->patches->len; i++) {
		struct patch *p = s->patches->pdata[i];

		for (guint k = 0; k < p->to->len; k++)
			if (!g_ptr_array_find_with_equal_func(to,
				p->to->pdata[k], g_str_equal, NULL))
				g_ptr_array_add(to, p->to->pdata[k]);
		for (guint k = 0; k < p->cc->len; k++)
			if (!g_ptr_array_find_with_equal_func(cc,
				p->cc->pdata[k], g_str_equal, NULL))
				g_ptr_array_add(cc, p->cc->pdata[k]);
	}
	for (guint k = 0; k < to->len; k++) {
		guint idx;

		if (g_ptr_array_find_with_equal_func(cc, to->pdata[k],
						     g_str_equal, &idx))
			g_ptr_array_remove_index(cc, idx);
	}
}

struct checkpatch_job {
	const char *script;
	const char *dir;
	const char *work;
	GPtrArray *names;
	char **outs;		/* each patch's report, or NULL */
};

static void checkpatch_one(size_t i, void *data)
{
	struct checkpatch_job *job = data;
	char *patch = g_build_filename(job->dir, job->names->pdata[i], NULL);
	const char *argv[] = { "perl", job->script, "--no-signoff",
			       "--no-summary", "--terse", patch, NULL };
	const char *plain[] = { "perl", job->script, patch, NULL };
	char *out = NULL;
	int status = -1;

	/* the kernel's checkpatch.pl takes --terse (and then says nothing
	 * of a clean patch); a stand-in may not */
	if (!g_str_has_prefix(job->names->pdata[i], "0000-") &&
	    (!run_capture(argv, job->work, &out, &status, true, NULL) ||
	     (status != 0 && status != 1) || !out)) {
		g_free(out);
		out = NULL;
		run_capture(plain, job->work, &out, &status, true, NULL);
	}
	job->outs[i] = out;
	g_free(patch);
}

/*
 * The tree's checkpatch.pl on each patch, --jobs at a time (it takes
 * about half a second a patch); its errors are printed in patch order.
 */
static void checkpatch(struct series *s, const char *dir, GPtrArray *names)
{
	char *script = g_build_filename(s->work, "scripts", "checkpatch.pl",
					NULL);
	struct checkpatch_job job = { script, dir, s->work, names,
				      g_new0(char *, names->len + 1) };

	if (!g_file_test(script, G_FILE_TEST_EXISTS)) {
		g_free(job.outs);
		g_free(script);
		return;
	}
	parallel_for(names->len, s->o->jobs > 0 ? s->o->jobs : cpu_count(),
		     checkpatch_one, &job);
	for (guint i = 0; i < names->len; i++) {
		char **lines;
		guint errors = 0;

		if (!job.outs[i])
			continue;
		lines = g_strsplit(job.outs[i], "\n", -1);
		for (int k = 0; lines[k]; k++)
			if (strstr(lines[k], "ERROR:")) {
				fprintf(stderr, "timerconv: checkpatch: %s: %s\n",
					(char *)names->pdata[i], lines[k]);
				errors++;
			}
		if (!errors)
			fprintf(stderr, "timerconv: checkpatch: %s: no errors\n",
				(char *)names->pdata[i]);
		g_strfreev(lines);
		g_free(job.outs[i]);
	}
	g_free(job.outs);
	g_free(script);
}

static GPtrArray *format_patches(struct series *s, const char *dir,
				 GError **error)
{
	GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
	char *out = NULL;

	g_ptr_array_add(args, g_strdup("format-patch"));
	g_ptr_array_add(args, g_strdup("--quiet"));
	g_ptr_array_add(args, g_strdup("--numbered"));
	g_ptr_array_add(args, g_strdup("--cover-letter"));
	g_ptr_array_add(args, g_strdup("--no-signature"));
	if (s->is_git)
		g_ptr_array_add(args, g_strdup_printf("--base=%s",
						      s->base_sha));
	g_ptr_array_add(args, g_strdup("-o"));
	g_ptr_array_add(args, g_strdup(dir));
	g_ptr_array_add(args, g_strdup_printf("%s..HEAD", s->base_sha));
	g_ptr_array_add(args, NULL);
	if (!git_runv(s->work, (const char *const *)args->pdata, &out,
		      error)) {
		g_ptr_array_free(args, TRUE);
		g_ptr_array_free(names, TRUE);
		return NULL;
	}
	g_free(out);
	g_ptr_array_free(args, TRUE);
	/* git format-patch --quiet prints nothing: read the directory */
	{
		GDir *d = g_dir_open(dir, 0, error);
		const char *name;

		if (!d) {
			g_ptr_array_free(names, TRUE);
			return NULL;
		}
		while ((name = g_dir_read_name(d)))
			if (g_str_has_suffix(name, ".patch"))
				g_ptr_array_add(names, g_strdup(name));
		g_dir_close(d);
	}
	return names;
}

static bool write_series(struct series *s, GError **error)
{
	char *fmt = g_build_filename(s->tmp, "patches", NULL);
	GPtrArray *names = format_patches(s, fmt, error);
	GPtrArray *to_all = g_ptr_array_new(), *cc_all = g_ptr_array_new();
	bool ok = false;

	if (!names)
		goto out;
	g_ptr_array_sort(names, cmp_strings);
	all_people(s, to_all, cc_all);
	for (guint i = 0; i < names->len; i++) {
		char *path = g_build_filename(fmt, names->pdata[i], NULL);
		char *text = NULL, *done, *to, *cc;
		bool cover = g_str_has_prefix(names->pdata[i], "0000-");
		struct patch *p = cover ? NULL : s->patches->pdata[i - 1];

		if (!g_file_get_contents(path, &text, NULL, error)) {
			g_free(path);
			goto out;
		}
		to = recipients("To", cover ? to_all : p->to);
		cc = recipients("Cc", cover ? cc_all : p->cc);
		if (cover) {
			char *filled = fill_cover(s, text);

			done = decorate(filled, to, cc, NULL);
			g_free(filled);
		} else {
			char *body = decorate(text, to, cc, requires_note(s));

			/* format-patch puts base-commit in the cover letter
			 * only; every patch carries it, as for one patch */
			done = s->is_git ? g_strdup_printf("%s\nbase-commit: %s\n",
							   body, s->base_sha) :
					   g_strdup(body);
			g_free(body);
		}
		ok = g_file_set_contents(path, done, -1, error);
		g_free(done);
		g_free(to);
		g_free(cc);
		g_free(text);
		g_free(path);
		if (!ok)
			goto out;
	}
	checkpatch(s, fmt, names);
	if (s->o->dry_run) {
		for (guint i = 0; i < s->patches->len; i++) {
			struct patch *p = s->patches->pdata[i];

			printf("%s [PATCH %u/%u] %s: Convert timers to use timer_setup()\n",
			       (char *)names->pdata[i + 1], i + 1,
			       s->patches->len, p->prefix);
			for (guint k = 0; k < p->files->len; k++)
				printf("    %s\n",
				       ((struct cfile *)p->files->pdata[k])->path);
		}
		goto out;
	}
	if (s->o->branch && !s->o->out)
		goto out;
	{
		const char *dir = out_dir(s);

		if (g_mkdir_with_parents(dir, 0755) < 0) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
				    "%s: cannot create: %s", dir,
				    g_strerror(errno));
			ok = false;
			goto out;
		}
		for (guint i = 0; i < names->len; i++) {
			char *from = g_build_filename(fmt, names->pdata[i],
						      NULL);
			char *dst = g_build_filename(dir, names->pdata[i],
						     NULL);
			char *text = NULL;
			gsize len;

			ok = g_file_get_contents(from, &text, &len, error) &&
			     write_file_atomic(dst, text, len, 0644, error);
			if (ok)
				printf("%s\n", dst);
			g_free(text);
			g_free(from);
			g_free(dst);
			if (!ok)
				goto out;
		}
		series_out_prune(dir, s->stale, names);
	}
	ok = true;
out:
	if (names)
		g_ptr_array_free(names, TRUE);
	g_ptr_array_free(to_all, TRUE);
	g_ptr_array_free(cc_all, TRUE);
	g_free(fmt);
	return ok || s->o->dry_run || (s->o->branch && !s->o->out);
}

static bool parse_split(const char *v, enum split_mode *mode)
{
	if (!strcmp(v, "maintainers"))
		*mode = SPLIT_MAINTAINERS;
	else if (!strcmp(v, "directory"))
		*mode = SPLIT_DIRECTORY;
	else if (!strcmp(v, "none"))
		*mode = SPLIT_NONE;
	else
		return false;
	return true;
}

static int fail(struct series *s, GError *error, const char *msg)
{
	progress_end();
	if (interrupted())
		tc_error("interrupted; nothing was written");
	else
		tc_error("%s", error ? error->message : msg);
	if (error)
		g_error_free(error);
	cleanup(s);
	return EXIT_ERROR;
}

static bool options_ok(struct series *s, GError **error)
{
	struct series_opts *o = s->o;
	char *mfile;
	bool has_maint;

	mfile = g_build_filename(s->root, "MAINTAINERS", NULL);
	has_maint = g_file_test(mfile, G_FILE_TEST_IS_REGULAR);
	g_free(mfile);
	s->split = has_maint ? SPLIT_MAINTAINERS : SPLIT_DIRECTORY;
	if (o->split && !parse_split(o->split, &s->split)) {
		g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
			    "--split %s: expected maintainers, directory or none",
			    o->split);
		return false;
	}
	if (s->split == SPLIT_MAINTAINERS && !has_maint) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "--split maintainers: %s has no MAINTAINERS file",
			    s->root);
		return false;
	}
	if (!s->is_git && !(s->split == SPLIT_DIRECTORY && o->out &&
			    !o->branch && !o->base && !o->upstream)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s is not a git repository: timerconv series needs git (for a tree without git, use --split directory --out DIR)",
			    s->root);
		return false;
	}
	if (o->branch && s->is_git) {
		char *ref = g_strdup_printf("refs/heads/%s", o->branch);
		bool exists = git_run(s->root, NULL, NULL, "rev-parse",
				      "--verify", "--quiet", ref, NULL);

		g_free(ref);
		if (dirty(s->root)) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
				    "--branch %s: the tree has uncommitted changes; commit or stash them first",
				    o->branch);
			return false;
		}
		if (exists) {
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
				    "--branch %s: that branch already exists",
				    o->branch);
			return false;
		}
	}
	/* a file, or a path through one: said before the conversion */
	if (!o->dry_run && (o->out || !o->branch) &&
	    (!output_dir_ok("--out", out_dir(s), error) ||
	     !series_out_check(out_dir(s), o->force, &s->stale, error)))
		return false;
	return true;
}

static int run_series(struct series_opts *o)
{
	struct series s = { .o = o };
	struct pipeline_opts po = {
		.paths = o->paths, .jobs = o->jobs, .timeout = o->timeout,
		.macro_file = o->macro_file, .target = o->target,
		.kernel_headers = o->kernel_headers,
		.include_dirs = o->include_dirs,
		.api_header = o->api_header,
		.follow_units = o->follow_units,
		.keep_data = o->keep_data,
	};
	struct verify_opts vo = {
		.config = o->config, .build_dir = o->build_dir,
		.kernel_headers = o->kernel_headers,
		.make_args = (const char *const *)o->make_args,
	};
	struct tree probe;
	GError *error = NULL;
	int rc = EXIT_OK;

	if (!o->verify && (o->config || o->build_dir || o->make_args)) {
		tc_error("--config, --build-dir and --make-arg go with --verify (see timerconv series --help)");
		return EXIT_ERROR;
	}
	s.root = g_strdup(o->tree ? o->tree : ".");
	if (!tree_open(&probe, s.root, &error))
		return fail(&s, error, NULL);
	s.is_git = probe.is_git;
	if (probe.git_refused)	/* git's own words (dubious ownership) */
		g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_ACCES, "%s",
			    probe.git_refused);
	tree_close(&probe);
	if (error)
		return fail(&s, error, NULL);
	s.shas = g_ptr_array_new_with_free_func(g_free);
	s.dropped = g_ptr_array_new();
	s.unbuilt = g_ptr_array_new();
	if (!options_ok(&s, &error) || !prepare(&s, &error) ||
	    !base_check(&s, &error))
		return fail(&s, error, NULL);
	if (o->verify) {
		if (s.worktree) {
			if (!verify_base(&s, &error))
				return fail(&s, error, NULL);
			vo.src = s.root;
			vo.base = s.base;
		}
		po.verify = &vo;
	}
	if (s.split == SPLIT_MAINTAINERS) {
		s.maint = maintainers_load(s.work, &error);
		if (!s.maint)
			return fail(&s, error, NULL);
	}
	po.tree = s.work;
	if (o->upstream) {
		po.after_plan = drop_upstream;
		po.ctx = &s;
	}
	progress_init(o->quiet);
	if (!pipeline_run(&s.run, &po, &error))
		return fail(&s, error, NULL);
	progress_end();
	s.patches = series_group(&s.run, s.split, s.maint);
	if (o->verify && !verify_prefixes(&s, &error))
		return fail(&s, error, NULL);
	if (!s.patches->len) {
		report_summary(&s.run);
		fprintf(stderr, "timerconv: nothing to convert: no series written\n");
		cleanup(&s);
		return EXIT_OK;
	}
	if (!s.is_git && !scratch_repo(&s, &error))
		return fail(&s, error, NULL);
	for (guint i = 0; i < s.patches->len; i++) {
		struct patch *p = s.patches->pdata[i];

		p->prefix = series_prefix(s.is_git ? s.root : NULL,
					  s.base_sha, p);
	}
	series_unique_prefixes(s.patches);
	for (guint i = 0; i < s.patches->len; i++)
		if (!commit_patch(&s, s.patches->pdata[i], &error))
			return fail(&s, error, NULL);
	if (!write_series(&s, &error))
		return fail(&s, error, NULL);
	if (o->branch && !o->dry_run) {
		if (!git_run(s.root, NULL, &error, "branch", o->branch,
			     s.shas->pdata[s.shas->len - 1], NULL))
			return fail(&s, error, NULL);
		fprintf(stderr, "timerconv: branch %s: %u commit%s on %s\n",
			o->branch, s.shas->len, s.shas->len == 1 ? "" : "s",
			s.base_sha);
	}
	report_summary(&s.run);
	fprintf(stderr, "timerconv: %u patch%s%s\n", s.patches->len,
		s.patches->len == 1 ? "" : "es",
		o->dry_run ? " (dry run: nothing written)" : "");
	cleanup(&s);
	return rc;
}

int cmd_series(int argc, char **argv)
{
	struct series_opts o = { .jobs = CLI_UNSET, .timeout = CLI_UNSET };
	GOptionEntry entries[] = {
		{ "tree", 'C', 0, G_OPTION_ARG_FILENAME, &o.tree,
		  "The git tree to convert (default: .); it is not modified",
		  "DIR" },
		{ "out", 0, 0, G_OPTION_ARG_FILENAME, &o.out,
		  "Write the patches to DIR (default: ./timerconv-series)",
		  "DIR" },
		{ "split", 0, 0, G_OPTION_ARG_STRING, &o.split,
		  "One patch per MAINTAINERS section (default when there is a MAINTAINERS file), per directory, or none",
		  "maintainers|directory|none" },
		{ "base", 0, 0, G_OPTION_ARG_STRING, &o.base,
		  "Generate the patches against REV (default: HEAD)", "REV" },
		{ "branch", 0, 0, G_OPTION_ARG_STRING, &o.branch,
		  "Create branch NAME with one commit per patch instead of patch files (with --out: both)",
		  "NAME" },
		{ "dry-run", 'n', 0, G_OPTION_ARG_NONE, &o.dry_run,
		  "Show the patches that would be written, write nothing",
		  NULL },
		{ "upstream", 0, 0, G_OPTION_ARG_STRING, &o.upstream,
		  "Drop what REV (e.g. linux-next) has already converted",
		  "REV" },
		{ "api-header", 0, 0, G_OPTION_ARG_FILENAME, &o.api_header,
		  "The header that must define timer_setup() (default: include/linux/timer.h)",
		  "FILE" },
		{ "follow-units", 0, 0, G_OPTION_ARG_NONE, &o.follow_units,
		  "Convert a unit whole even where it reaches beyond the PATHs (default: refuse it)",
		  NULL },
		{ "keep-data", 0, 0, G_OPTION_ARG_NONE, &o.keep_data,
		  "Where a callback needs its old data, keep it in a member beside the timer",
		  NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
		  "No progress line (there is none on a pipe anyway)", NULL },
		{ "force", 'f', 0, G_OPTION_ARG_NONE, &o.force,
		  "Write into an --out that holds files timerconv did not write; skip the base check", NULL },
		{ "target", 0, 0, G_OPTION_ARG_STRING, &o.target,
		  "API level: auto, v4.14, v4.15, v6.2, v6.16", "LEVEL" },
		{ "kernel-headers", 0, 0, G_OPTION_ARG_FILENAME,
		  &o.kernel_headers,
		  "For out-of-tree code: the kernel whose headers decide the level",
		  "DIR" },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
		  "spatch processes (and make jobs, --verify) to run at once (default: number of CPUs)",
		  "N" },
		PIPELINE_SPATCH_OPTIONS(o),
		{ "include", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.include_dirs,
		  "Also read struct definitions from the headers in DIR (repeatable)",
		  "DIR" },
		{ "verify", 0, 0, G_OPTION_ARG_NONE, &o.verify,
		  "Build every patch's .c files with kbuild on top of the patches before it; leave out what does not build",
		  NULL },
		VERIFY_BUILD_OPTIONS(o),
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.paths, NULL, NULL },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("[PATH…]");
	int rc;

	g_option_context_set_summary(ctx,
		"Write the conversion as git format-patch series, one patch per\n"
		"subsystem, each applicable and buildable on its own, addressed\n"
		"from MAINTAINERS, with a cover letter listing what was left alone.");
	g_option_context_set_description(ctx,
		"--verify compiles the .c files of every unit before and after the\n"
		"conversion (see timerconv convert --help), then each patch on top\n"
		"of the ones before it, so that every prefix of the series builds;\n"
		"a patch that does not is left out, with its units refused, and the\n"
		"cover letter says so.\n"
		"Exit status: 0 done (or nothing to convert), 2 error.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!cli_parse(ctx, "series", &argc, &argv))
		return EXIT_ERROR;
	rc = EXIT_ERROR;
	if (cli_jobs(&o.jobs) && cli_timeout(&o.timeout))
		rc = run_series(&o);
	g_free(o.tree);
	g_free(o.out);
	g_free(o.split);
	g_free(o.base);
	g_free(o.branch);
	g_free(o.upstream);
	g_free(o.api_header);
	g_free(o.target);
	g_free(o.kernel_headers);
	g_free(o.macro_file);
	g_strfreev(o.include_dirs);
	g_free(o.config);
	g_free(o.build_dir);
	g_strfreev(o.make_args);
	g_strfreev(o.paths);
	return rc;
}
