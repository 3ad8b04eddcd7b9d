// SPDX-License-Identifier: GPL-2.0
/*
 * The in-place journal (journal.h).  A run writes, in this order:
 *
 *   1. the journal, state "writing": the files and the names of their
 *      temporaries (.NAME.timerconv-ID) and backups (.NAME.timerconv-ID.orig);
 *   2. every new text in its temporary, flushed to disk, with the file's
 *      owner, group and mode; every old file linked (else copied) to
 *      its backup;
 *   3. a last look: a file whose text is no longer the one the run read
 *      stops it here, with nothing renamed;
 *   4. the journal, state "renaming", with the SHA-256 of each old and
 *      new text, flushed;
 *   5. the renames, then their directories flushed;
 *   6. the backups and the journal removed.
 *
 * Killed in 1-3, nothing in the tree changed: the next run removes the
 * temporaries.  Killed in 4-6, it looks at each file: the new text, or
 * the old one with the new ready beside it, for every file: it finishes
 * the renames.  Any file that is neither (edited since): it puts every
 * written file back from its backup and leaves the edited ones alone.
 */
#include <errno.h>
#include <json-glib/json-glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitutil.h"
#include "journal.h"
#include "util.h"
#include "version.h"

#define JOURNAL_NAME	"timerconv-journal"

char *journal_path(const struct tree *t)
{
	char *gitdir = NULL;
	char *path;

	if (t->is_git && git_run(t->root, &gitdir, NULL, "rev-parse",
				 "--absolute-git-dir", NULL)) {
		g_strchomp(gitdir);
		path = g_build_filename(gitdir, JOURNAL_NAME, NULL);
		g_free(gitdir);
		return path;
	}
	g_free(gitdir);
	return g_build_filename(t->root, "." JOURNAL_NAME, NULL);
}

struct entry {
	const struct jfile *f;
	char *abs;
	char *tmp;
	char *orig;		/* NULL for a new file */
	char *old_sha;		/* NULL for a new file */
	char *new_sha;
	bool renamed;
};

static void entry_clear(struct entry *e)
{
	g_free(e->abs);
	g_free(e->tmp);
	g_free(e->orig);
	g_free(e->old_sha);
	g_free(e->new_sha);
}

static char *sha(const char *text, size_t len)
{
	return g_compute_checksum_for_data(G_CHECKSUM_SHA256,
					   (const guchar *)text, len);
}

/* The SHA-256 of the file at path, or NULL when it is not there. */
static char *file_sha(const char *path)
{
	char *text = NULL;
	gsize len;
	char *sum;

	if (!g_file_get_contents(path, &text, &len, NULL))
		return NULL;
	sum = sha(text, len);
	g_free(text);
	return sum;
}

static void add_str(JsonBuilder *b, const char *key, const char *val)
{
	json_builder_set_member_name(b, key);
	if (val)
		json_builder_add_string_value(b, val);
	else
		json_builder_add_null_value(b);
}

static char *journal_text(const char *root, const char *state,
			  struct entry *es, guint n)
{
	JsonBuilder *b = json_builder_new();
	JsonGenerator *gen = json_generator_new();
	JsonNode *node;
	char *text;

	json_builder_begin_object(b);
	add_str(b, "tool", "timerconv " TIMERCONV_VERSION);
	json_builder_set_member_name(b, "pid");
	json_builder_add_int_value(b, getpid());
	add_str(b, "root", root);
	add_str(b, "state", state);
	json_builder_set_member_name(b, "files");
	json_builder_begin_array(b);
	for (guint i = 0; i < n; i++) {
		json_builder_begin_object(b);
		add_str(b, "path", es[i].abs);
		add_str(b, "tmp", es[i].tmp);
		add_str(b, "orig", es[i].orig);
		add_str(b, "old", es[i].old_sha);
		add_str(b, "new", es[i].new_sha);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	json_builder_end_object(b);
	node = json_builder_get_root(b);
	json_generator_set_root(gen, node);
	json_generator_set_pretty(gen, TRUE);
	text = json_generator_to_data(gen, NULL);
	json_node_unref(node);
	g_object_unref(gen);
	g_object_unref(b);
	return text;
}

/*
 * Put the journal at jpath, flushed.  create: only if there is none yet
 * (link(2) fails on an existing name), so two runs never share one.
 */
static bool journal_put(const char *jpath, const char *text, bool create,
			GError **error)
{
	char *tmp = g_strdup_printf("%s.%d", jpath, (int)getpid());
	char *dir = g_path_get_dirname(jpath);
	bool ok = false;

	int rc;

	unlink(tmp);
	if (!write_file_new(tmp, text, strlen(text), NULL, 0644, error))
		goto out;
	rc = create ? link(tmp, jpath) : rename(tmp, jpath);
	if (rc < 0 && create && errno != EEXIST) {
		/* no hard links here: create it in place */
		rc = write_file_new(jpath, text, strlen(text), NULL, 0644,
				    NULL) ? 0 : -1;
		write_file_forget(jpath);
	}
	if (rc < 0) {
		if (errno == EEXIST)
			g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
				    "%s exists: another timerconv is writing the tree, or one was killed (timerconv convert --recover)",
				    jpath);
		else
			g_set_error(error, G_FILE_ERROR,
				    g_file_error_from_errno(errno),
				    "%s: %s", jpath, g_strerror(errno));
		goto out;
	}
	fsync_dir(dir);
	ok = true;
out:
	unlink(tmp);
	write_file_forget(tmp);
	g_free(tmp);
	g_free(dir);
	return ok;
}

static void remove_prepared(struct entry *es, guint n)
{
	for (guint i = 0; i < n; i++) {
		unlink(es[i].tmp);
		write_file_forget(es[i].tmp);
		if (es[i].orig) {
			unlink(es[i].orig);
			write_file_forget(es[i].orig);
		}
	}
}

/* A new file takes the owner and group of its directory (root writing
 * another user's tree), mode 0644. */
static bool like_dir(const char *abs, struct stat *st)
{
	char *dir = g_path_get_dirname(abs);
	bool ok = stat(dir, st) == 0;

	g_free(dir);
	st->st_mode = (st->st_mode & ~07777) | 0644;
	return ok;
}

/* Step 2: the new texts and the backups. */
static bool prepare(struct entry *e, GError **error)
{
	const struct jfile *f = e->f;
	struct stat st;

	if (!f->old_text) {
		char *dir = g_path_get_dirname(e->abs);

		g_mkdir_with_parents(dir, 0755);
		g_free(dir);
		return write_file_new(e->tmp, f->new_text, f->new_len,
				      like_dir(e->abs, &st) ? &st : NULL,
				      0644, error);
	}
	if (stat(e->abs, &st) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", f->path, g_strerror(errno));
		return false;
	}
	if (!write_file_new(e->tmp, f->new_text, f->new_len, &st, 0, error))
		return false;
	if (link(e->abs, e->orig) == 0) {
		write_file_track(e->orig);	/* an error exit removes it */
		return true;
	}
	/* no hard links here: a copy of the text as read */
	return write_file_new(e->orig, f->old_text, f->old_len, &st, 0,
			      error);
}

/* Step 3: is every file still what the run read? */
static bool still_as_read(const struct entry *e)
{
	char *text = NULL;
	gsize len;
	bool same;

	if (!e->f->old_text)
		return !g_file_test(e->abs, G_FILE_TEST_EXISTS);
	if (!g_file_get_contents(e->abs, &text, &len, NULL))
		return false;
	same = len == e->f->old_len && !memcmp(text, e->f->old_text, len);
	g_free(text);
	return same;
}

static void fsync_dirs(struct entry *es, guint n)
{
	GHashTable *dirs = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, NULL);
	GHashTableIter it;
	gpointer dir;

	for (guint i = 0; i < n; i++)
		g_hash_table_add(dirs, g_path_get_dirname(es[i].abs));
	g_hash_table_iter_init(&it, dirs);
	while (g_hash_table_iter_next(&it, &dir, NULL))
		fsync_dir(dir);
	g_hash_table_destroy(dirs);
}

static char *random_id(void)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char *id = g_malloc(7);

	for (int i = 0; i < 6; i++)
		id[i] = chars[g_random_int_range(0, sizeof(chars) - 1)];
	id[6] = '\0';
	return id;
}

bool journal_write(const char *jpath, const char *root, GPtrArray *files,
		   GPtrArray **stale, GError **error)
{
	struct entry *es = g_new0(struct entry, files->len + 1);
	guint n = files->len, prepared = 0;
	char *id = random_id();
	char *real = g_canonicalize_filename(root, NULL);
	char *text = NULL;
	const char *die = g_getenv("TIMERCONV_TEST_KILL_AFTER_RENAMES");
	int die_after = die ? atoi(die) : 0;
	sigset_t block, old;
	bool ok = false;

	*stale = NULL;
	for (guint i = 0; i < n; i++) {
		const struct jfile *f = files->pdata[i];
		char *dir, *base;

		es[i].f = f;
		es[i].abs = g_build_filename(real, f->path, NULL);
		dir = g_path_get_dirname(es[i].abs);
		base = g_path_get_basename(es[i].abs);
		es[i].tmp = g_strdup_printf("%s/.%s.timerconv-%s", dir, base,
					    id);
		if (f->old_text) {
			es[i].orig = g_strdup_printf("%s.orig", es[i].tmp);
			es[i].old_sha = sha(f->old_text, f->old_len);
		}
		es[i].new_sha = sha(f->new_text, f->new_len);
		g_free(dir);
		g_free(base);
	}
	/* 1 */
	text = journal_text(real, "writing", es, n);
	if (!journal_put(jpath, text, true, error))
		goto out;
	g_free(text);
	text = NULL;
	/* 2 */
	for (; prepared < n; prepared++)
		if (interrupted() || !prepare(&es[prepared], error))
			break;
	if (prepared < n) {
		remove_prepared(es, prepared + 1);
		if (interrupted() && error && !*error)
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
				    "interrupted");
		unlink(jpath);
		goto out;
	}
	/* 3 */
	for (guint i = 0; i < n; i++) {
		if (still_as_read(&es[i]))
			continue;
		if (!*stale)
			*stale = g_ptr_array_new();
		g_ptr_array_add(*stale, (gpointer)es[i].f);
	}
	if (*stale) {
		remove_prepared(es, n);
		unlink(jpath);
		goto out;
	}
	/* 4-6, with the signals that would stop us waiting */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	text = journal_text(real, "renaming", es, n);
	if (!journal_put(jpath, text, false, error)) {
		remove_prepared(es, n);
		unlink(jpath);
		sigprocmask(SIG_SETMASK, &old, NULL);
		goto out;
	}
	for (guint i = 0; i < n; i++) {
		/* the tests' stand-in for the OOM killer (test_journal.py) */
		if (die_after && i == (guint)die_after)
			raise(SIGKILL);
		if (rename(es[i].tmp, es[i].abs) < 0) {
			g_set_error(error, G_FILE_ERROR,
				    g_file_error_from_errno(errno),
				    "%s: rename failed: %s", es[i].f->path,
				    g_strerror(errno));
			break;
		}
		es[i].renamed = true;
	}
	if (error && *error) {
		/* put back what was renamed, from the backups */
		for (guint i = 0; i < n && es[i].renamed; i++) {
			if (es[i].orig)
				rename(es[i].orig, es[i].abs);
			else
				unlink(es[i].abs);
		}
		fsync_dirs(es, n);
		remove_prepared(es, n);
		unlink(jpath);
		sigprocmask(SIG_SETMASK, &old, NULL);
		goto out;
	}
	fsync_dirs(es, n);
	for (guint i = 0; i < n; i++)
		write_file_forget(es[i].tmp);
	remove_prepared(es, n);
	unlink(jpath);
	sigprocmask(SIG_SETMASK, &old, NULL);
	ok = true;
out:
	for (guint i = 0; i < n; i++)
		entry_clear(&es[i]);
	g_free(es);
	g_free(text);
	g_free(real);
	g_free(id);
	return ok;
}

/* ---- recovery ---- */

static const char *member(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);

	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    json_node_get_value_type(n) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(n);
}

/* Another timerconv still running with this journal? */
static bool writer_alive(gint64 pid)
{
	char *path, *cmd = NULL;
	gsize len;
	bool alive;

	if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) < 0)
		return false;
	path = g_strdup_printf("/proc/%" G_GINT64_FORMAT "/cmdline", pid);
	alive = g_file_get_contents(path, &cmd, &len, NULL) &&
		g_strstr_len(cmd, len, "timerconv");
	g_free(cmd);
	g_free(path);
	return alive;
}

static void list_add(GString *s, const char *path, const char *root)
{
	size_t n = strlen(root);

	if (s->len)
		g_string_append(s, ", ");
	if (!strncmp(path, root, n) && path[n] == '/')
		path += n + 1;
	g_string_append(s, path);
}

/*
 * A journal is read from the tree, which may come from anyone (a vendor
 * tarball): act only on what a run could have written.  The root has no
 * symlink in it; each file is below it, through no symlink; its
 * temporary and backup are the names journal_write() gives, beside it.
 */
static bool entry_ok(const char *root, JsonObject *o)
{
	const char *path = member(o, "path");
	const char *tmp = member(o, "tmp");
	const char *orig = member(o, "orig");
	char *dir, *base, *real, *want;
	size_t n = strlen(root), k;
	bool ok;

	if (!path || !tmp || !member(o, "new") ||
	    strncmp(path, root, n) || path[n] != '/' ||
	    strstr(path, "/../") || strstr(path, "/./"))
		return false;
	dir = g_path_get_dirname(path);
	base = g_path_get_basename(path);
	real = realpath(dir, NULL);
	want = g_strdup_printf("%s/.%s.timerconv-", dir, base);
	k = strlen(want);
	ok = real && !strcmp(real, dir) && !strncmp(tmp, want, k) &&
	     strlen(tmp) == k + 6 && !strchr(tmp + k, '/') &&
	     (!orig || (!strncmp(orig, tmp, strlen(tmp)) &&
			!strcmp(orig + strlen(tmp), ".orig")));
	free(real);
	g_free(want);
	g_free(base);
	g_free(dir);
	return ok;
}

static bool journal_ok(JsonObject *top)
{
	const char *root = member(top, "root");
	JsonNode *fn = json_object_get_member(top, "files");
	char *real;
	bool ok;

	if (!root || !member(top, "state") || !fn ||
	    !JSON_NODE_HOLDS_ARRAY(fn))
		return false;
	real = realpath(root, NULL);
	ok = real && !strcmp(real, root);
	free(real);
	for (guint i = 0; ok && i < json_array_get_length(
				json_node_get_array(fn)); i++) {
		JsonNode *e = json_array_get_element(json_node_get_array(fn),
						     i);

		ok = JSON_NODE_HOLDS_OBJECT(e) &&
		     entry_ok(root, json_node_get_object(e));
	}
	return ok;
}

static bool recover(JsonObject *top, const char *jpath, char **msg,
		    GError **error)
{
	const char *state = member(top, "state");
	const char *root = member(top, "root");
	JsonNode *fn = json_object_get_member(top, "files");
	JsonArray *arr;
	GString *edited = g_string_new(NULL);
	GString *failed = g_string_new(NULL);
	guint n, done = 0, pending = 0;
	bool finish = true;

	if (!journal_ok(top)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: not a timerconv journal, or one naming files it could not have written; remove it if no timerconv is running",
			    jpath);
		g_string_free(edited, TRUE);
		g_string_free(failed, TRUE);
		return false;
	}
	arr = json_node_get_array(fn);
	n = json_array_get_length(arr);
	if (!strcmp(state, "writing")) {
		for (guint i = 0; i < n; i++) {
			JsonObject *o = json_array_get_object_element(arr, i);
			const char *tmp = o ? member(o, "tmp") : NULL;
			const char *orig = o ? member(o, "orig") : NULL;

			if (tmp)
				unlink(tmp);
			if (orig)
				unlink(orig);
		}
		unlink(jpath);
		*msg = g_strdup_printf("a killed convert --in-place in %s had changed no file yet: its temporary files are removed",
				       root);
		g_string_free(edited, TRUE);
		g_string_free(failed, TRUE);
		return true;
	}
	/* renaming: what is each file now? */
	for (guint i = 0; i < n; i++) {
		JsonObject *o = json_array_get_object_element(arr, i);
		const char *path = o ? member(o, "path") : NULL;
		const char *tmp = o ? member(o, "tmp") : NULL;
		const char *old = o ? member(o, "old") : NULL;
		const char *new = o ? member(o, "new") : NULL;
		char *now, *ready;

		if (!path || !tmp || !new)
			continue;
		now = file_sha(path);
		ready = file_sha(tmp);
		if (now && !strcmp(now, new)) {
			done++;
		} else if (g_strcmp0(now, old) == 0 && ready &&
			   !strcmp(ready, new)) {
			pending++;
		} else {
			list_add(edited, path, root);
			finish = false;
		}
		g_free(now);
		g_free(ready);
	}
	for (guint i = 0; i < n; i++) {
		JsonObject *o = json_array_get_object_element(arr, i);
		const char *path = o ? member(o, "path") : NULL;
		const char *tmp = o ? member(o, "tmp") : NULL;
		const char *orig = o ? member(o, "orig") : NULL;
		const char *new = o ? member(o, "new") : NULL;
		char *now;
		bool written;

		if (!path || !tmp || !new)
			continue;
		now = file_sha(path);
		written = now && !strcmp(now, new);
		g_free(now);
		if (finish && !written && rename(tmp, path) < 0) {
			list_add(failed, path, root);
			continue;
		}
		/* undo: a written file goes back; an edited one stays */
		if (!finish && written &&
		    (orig ? rename(orig, path) : unlink(path)) < 0) {
			list_add(failed, path, root);
			continue;
		}
		unlink(tmp);
		if (orig)
			unlink(orig);
	}
	if (failed->len) {
		/* the journal stays, for a run that may do it */
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
			    "could not %s a killed convert --in-place in %s (%s): %s",
			    finish ? "finish" : "undo", root, jpath,
			    failed->str);
		g_string_free(failed, TRUE);
		g_string_free(edited, TRUE);
		return false;
	}
	unlink(jpath);
	if (finish)
		*msg = g_strdup_printf("finished a killed convert --in-place in %s: %u file%s written now, %u before it was killed",
				       root, pending, pending == 1 ? "" : "s",
				       done);
	else
		*msg = g_strdup_printf("undid a killed convert --in-place in %s: put back the %u file%s it had written; left as edited since: %s",
				       root, done, done == 1 ? "" : "s",
				       edited->str);
	g_string_free(failed, TRUE);
	g_string_free(edited, TRUE);
	return true;
}

bool journal_recover(const char *jpath, char **msg, GError **error)
{
	JsonParser *parser;
	JsonNode *root;
	gint64 pid = 0;
	bool ok = false;

	*msg = NULL;
	if (!g_file_test(jpath, G_FILE_TEST_EXISTS))
		return true;
	parser = json_parser_new();
	if (!json_parser_load_from_file(parser, jpath, NULL) ||
	    !(root = json_parser_get_root(parser)) ||
	    !JSON_NODE_HOLDS_OBJECT(root)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s: not a timerconv journal; remove it if no timerconv is running",
			    jpath);
		goto out;
	}
	if (json_object_has_member(json_node_get_object(root), "pid"))
		pid = json_object_get_int_member(json_node_get_object(root),
						 "pid");
	if (writer_alive(pid)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
			    "another timerconv (pid %" G_GINT64_FORMAT ") is writing this tree (%s)",
			    pid, jpath);
		goto out;
	}
	ok = recover(json_node_get_object(root), jpath, msg, error);
out:
	g_object_unref(parser);
	return ok;
}

void journal_warn(const struct tree *t)
{
	char *jpath = journal_path(t);

	if (g_file_test(jpath, G_FILE_TEST_EXISTS))
		tc_warn("a killed convert --in-place left %s half written (%s): run timerconv convert --recover",
			t->root, jpath);
	g_free(jpath);
}
