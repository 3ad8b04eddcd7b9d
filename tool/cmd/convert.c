// SPDX-License-Identifier: GPL-2.0
/*
 * timerconv convert: the conversion as a unified diff on stdout, or
 * written in place.  Writing keeps units whole: every file is checked
 * writable first; a file edited while the run worked is not written, nor
 * is any file of a unit it takes part in (the units are refused, the
 * rest is written); the files are replaced through a journal
 * (journal.h), so that a run killed between two renames is finished or
 * undone by the next one.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "diff.h"
#include "journal.h"
#include "pipeline.h"
#include "progress.h"
#include "report.h"
#include "util.h"
#include "verify.h"

struct convert_opts {
	char *tree;
	gboolean in_place;
	gboolean scan_only;
	gboolean quiet;
	gboolean follow_units;
	gboolean keep_data;
	gboolean verbose;
	gboolean recover;
	int jobs;
	int timeout;
	char *report;
	char *macro_file;
	char *target;
	char *kernel_headers;
	char *compat_header;
	char **include_dirs;
	gboolean verify;
	char *config;
	char *build_dir;
	char **make_args;
	char **paths;
};

static bool check_writable(struct run *r, GPtrArray *changed)
{
	bool ok = true;

	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];
		char *abs = tree_abspath(&r->tree, f->path);
		char *dir = g_path_get_dirname(abs);

		if (f->is_new) {
			/* created with its directory, if need be */
		} else if (access(abs, W_OK) != 0) {
			tc_error("%s: not writable (--in-place): %s", f->path,
				 g_strerror(errno));
			ok = false;
		} else if (access(dir, W_OK) != 0) {
			tc_error("%s: its directory is not writable (--in-place)",
				 f->path);
			ok = false;
		}
		g_free(dir);
		g_free(abs);
	}
	return ok;
}

/*
 * Files edited on disk since the run read them are not written, and a
 * unit is all its files or none: every converted unit that changes a
 * dropped file is refused, and its files dropped in turn, until no
 * converted unit touches a dropped file.
 */
static void drop_stale(struct run *r, GHashTable *dropped, const char *why)
{
	bool more = true;

	while (more) {
		more = false;
		for (guint i = 0; i < r->cv.units->len; i++) {
			struct unit *u = r->cv.units->pdata[i];
			GHashTableIter it;
			gpointer f;
			bool hit = false;

			if (u->reason)
				continue;
			g_hash_table_iter_init(&it, u->files);
			while (!hit && g_hash_table_iter_next(&it, &f, NULL))
				hit = g_hash_table_contains(dropped, f) &&
				      ((struct cfile *)f)->new_text;
			if (!hit)
				continue;
			unit_refuse(u, why,
				    "not written: a file of the unit changed on disk while timerconv ran");
			g_hash_table_iter_init(&it, u->files);
			while (g_hash_table_iter_next(&it, &f, NULL))
				g_hash_table_add(dropped, f);
			more = true;
		}
	}
	plan_settle(&r->cv);
}

static GPtrArray *jfiles(GPtrArray *changed, GHashTable *dropped)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);

	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];
		struct jfile *j;

		if (g_hash_table_contains(dropped, f))
			continue;
		j = g_new0(struct jfile, 1);
		j->path = f->path;
		j->old_text = f->is_new ? NULL : f->text;
		j->old_len = f->len;
		j->new_text = f->new_text;
		j->new_len = f->new_len;
		g_ptr_array_add(out, j);
	}
	return out;
}

/* Say what was not written, and forget its new text: the summary and the
 * report then tell what the tree holds. */
static void report_dropped(GPtrArray *changed, GHashTable *stale,
			   GHashTable *dropped)
{
	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];

		if (g_hash_table_contains(stale, f))
			tc_error("%s: changed on disk while timerconv ran: not written (run again to convert it)",
				 f->path);
		else if (g_hash_table_contains(dropped, f))
			tc_error("%s: not written: it shares a unit with a file that changed on disk",
				 f->path);
		else
			continue;
		g_free(f->new_text);
		f->new_text = NULL;
		f->new_len = 0;
	}
}

static bool write_in_place(struct run *r, GPtrArray *changed,
			   const char *jpath)
{
	GHashTable *stale = g_hash_table_new(NULL, NULL);
	GHashTable *dropped = g_hash_table_new(NULL, NULL);
	GError *error = NULL;
	bool ok = false;

	if (!check_writable(r, changed)) {
		tc_error("nothing was written");
		goto out;
	}
	for (;;) {
		GPtrArray *files = jfiles(changed, dropped);
		GPtrArray *now_stale = NULL;
		bool written;

		if (!files->len) {
			g_ptr_array_free(files, TRUE);
			break;
		}
		written = journal_write(jpath, r->tree.root, files, &now_stale,
					&error);
		if (written || !now_stale)
			g_ptr_array_free(files, TRUE);
		if (written)
			break;
		if (!now_stale) {
			tc_error("%s; nothing was written", error->message);
			g_error_free(error);
			goto out;
		}
		for (guint i = 0; i < now_stale->len; i++) {
			struct jfile *j = now_stale->pdata[i];
			struct cfile *f = conv_file(&r->cv, j->path);

			g_hash_table_add(stale, f);
			g_hash_table_add(dropped, f);
			/* the compat header, created meanwhile: the files
			 * that include it cannot go without it */
			for (guint k = 0; f->is_new && k < changed->len; k++)
				g_hash_table_add(dropped, changed->pdata[k]);
			drop_stale(r, dropped, f->path);
		}
		g_ptr_array_free(now_stale, TRUE);
		g_ptr_array_free(files, TRUE);
	}
	report_dropped(changed, stale, dropped);
	ok = !g_hash_table_size(dropped);
out:
	g_hash_table_destroy(stale);
	g_hash_table_destroy(dropped);
	return ok;
}

static void print_diff(GPtrArray *changed)
{
	GString *out = g_string_new(NULL);

	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];

		diff_unified_new(out, f->path, f->is_new, f->text, f->len,
				 f->new_text, f->new_len);
	}
	fwrite(out->str, 1, out->len, stdout);
	fflush(stdout);
	g_string_free(out, TRUE);
}

/*
 * The tree to run on (see cli_tree()), what git thinks of it, and what a
 * killed run left there: finished or undone before anything else.
 */
static bool open_tree(struct convert_opts *o, char **root, char **jpath)
{
	struct tree probe;
	GError *error = NULL;
	char *msg = NULL;
	bool ok;

	cli_tree(o->tree, o->kernel_headers != NULL, &o->paths, root);
	if (!tree_open(&probe, *root, &error)) {
		tc_error("%s", error->message);
		g_error_free(error);
		return false;
	}
	if (probe.git_refused)
		tc_warn("git will not read %s, so .gitignore is not applied: %s",
			probe.root, probe.git_refused);
	*jpath = journal_path(&probe);
	tree_close(&probe);
	/* a diff of a tree half written would be no better; and a diff
	 * run writes nothing */
	if (!o->in_place && !o->recover &&
	    g_file_test(*jpath, G_FILE_TEST_EXISTS)) {
		tc_error("a killed convert --in-place left %s half written (%s): run timerconv convert --recover first",
			 *root, *jpath);
		return false;
	}
	ok = journal_recover(*jpath, &msg, &error);
	if (!ok) {
		tc_error("%s", error->message);
		g_error_free(error);
	} else if (msg) {
		fprintf(stderr, "timerconv: %s\n", msg);
		g_free(msg);
	} else if (o->recover) {
		fprintf(stderr, "timerconv: nothing to recover: no killed convert --in-place left a journal (%s)\n",
			*jpath);
	}
	return ok;
}

static int run_convert(struct convert_opts *o)
{
	struct pipeline_opts po = {
		.tree = o->tree, .paths = o->paths, .jobs = o->jobs,
		.timeout = o->timeout, .macro_file = o->macro_file,
		.target = o->target, .kernel_headers = o->kernel_headers,
		.compat_header = o->compat_header,
		.include_dirs = o->include_dirs,
		.scan_only = o->scan_only,
		.follow_units = o->follow_units,
		.keep_data = o->keep_data,
	};
	struct verify_opts vo = {
		.config = o->config, .build_dir = o->build_dir,
		.kernel_headers = o->kernel_headers,
		.make_args = (const char *const *)o->make_args,
	};
	struct run r;
	GError *error = NULL;
	GPtrArray *changed;
	char *root = NULL, *jpath = NULL;
	int rc = EXIT_OK;

	progress_init(o->quiet);
	if (!o->verify && (o->config || o->build_dir || o->make_args)) {
		tc_error("--config, --build-dir and --make-arg go with --verify (see timerconv convert --help)");
		return EXIT_ERROR;
	}
	if (o->verify)
		po.verify = &vo;
	/* a report that cannot be written fails the run: know it before a
	 * file is changed */
	if (o->report && !output_file_ok("--report", o->report, &error)) {
		tc_error("%s", error->message);
		g_error_free(error);
		return EXIT_ERROR;
	}
	if (!open_tree(o, &root, &jpath)) {
		rc = EXIT_ERROR;
		goto out;
	}
	if (o->recover)
		goto out;
	po.tree = root;
	po.paths = o->paths;
	if (!pipeline_run(&r, &po, &error)) {
		progress_end();
		if (interrupted())
			tc_error("interrupted; no file was changed");
		else
			tc_error("%s", error ? error->message : "failed");
		g_clear_error(&error);
		rc = EXIT_ERROR;
		goto out_run;
	}
	progress_end();
	if (interrupted()) {
		tc_error("interrupted; no file was changed");
		rc = EXIT_ERROR;
		goto out_run;
	}
	if (o->scan_only) {
		GPtrArray *files = pipeline_candidates(&r);

		for (guint i = 0; i < files->len; i++)
			printf("%s\n", ((struct cfile *)files->pdata[i])->path);
		fprintf(stderr, "timerconv: %u of %u files are candidates\n",
			files->len, r.nfiles_scanned);
		g_ptr_array_free(files, TRUE);
		goto out_run;
	}
	changed = pipeline_changed(&r);
	if (o->in_place) {
		if (!write_in_place(&r, changed, jpath))
			rc = EXIT_ERROR;
	} else {
		print_diff(changed);
	}
	report_summary_full(&r, o->verbose);
	if (o->report && !report_write(&r, o->report, &error)) {
		tc_error("%s", error->message);
		g_clear_error(&error);
		rc = EXIT_ERROR;
	}
	g_ptr_array_free(changed, TRUE);
out_run:
	pipeline_free(&r);
out:
	g_free(root);
	g_free(jpath);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = { .jobs = CLI_UNSET, .timeout = CLI_UNSET };
	GOptionEntry entries[] = {
		{ "tree", 'C', 0, G_OPTION_ARG_FILENAME, &o.tree,
		  "Run on the tree in DIR (default: .); paths are relative to it",
		  "DIR" },
		{ "in-place", 0, 0, G_OPTION_ARG_NONE, &o.in_place,
		  "Write the changes to the files instead of printing a diff",
		  NULL },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
		  "spatch processes (and make jobs, --verify) to run at once (default: number of CPUs)",
		  "N" },
		{ "scan-only", 0, 0, G_OPTION_ARG_NONE, &o.scan_only,
		  "Only list the files spatch would be run on (no spatch needed)",
		  NULL },
		{ "follow-units", 0, 0, G_OPTION_ARG_NONE, &o.follow_units,
		  "Convert a unit whole even where it reaches beyond the PATHs (default: refuse it)",
		  NULL },
		{ "keep-data", 0, 0, G_OPTION_ARG_NONE, &o.keep_data,
		  "Where a callback needs its old data, keep it in a member beside the timer",
		  NULL },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
		  "No progress line (there is none on a pipe anyway)", NULL },
		{ "verbose", 'v', 0, G_OPTION_ARG_NONE, &o.verbose,
		  "In the summary, every refused site (default: the first 3 of each reason)",
		  NULL },
		{ "recover", 0, 0, G_OPTION_ARG_NONE, &o.recover,
		  "Only finish or undo what a killed convert --in-place left (--in-place does it first)",
		  NULL },
		{ "report", 0, 0, G_OPTION_ARG_FILENAME, &o.report,
		  "Write a JSON report of every site and unit to FILE", "FILE" },
		{ "target", 0, 0, G_OPTION_ARG_STRING, &o.target,
		  "API level: auto (from include/linux/timer.h), v4.14, v4.15, v6.2, v6.16",
		  "LEVEL" },
		{ "kernel-headers", 0, 0, G_OPTION_ARG_FILENAME,
		  &o.kernel_headers,
		  "For out-of-tree code: the kernel build tree whose headers decide the level",
		  "DIR" },
		{ "compat-header", 0, 0, G_OPTION_ARG_FILENAME,
		  &o.compat_header,
		  "For out-of-tree code: write the target API for older kernels to PATH (in the tree) and include it where needed",
		  "PATH" },
		{ "include", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.include_dirs,
		  "Also read struct definitions from the headers in DIR (repeatable), as for a module built outside the kernel tree",
		  "DIR" },
		PIPELINE_SPATCH_OPTIONS(o),
		{ "verify", 0, 0, G_OPTION_ARG_NONE, &o.verify,
		  "Compile every changed .c file with the tree's kbuild before and after; put back units that stop building",
		  NULL },
		VERIFY_BUILD_OPTIONS(o),
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.paths, NULL, NULL },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("[PATH…]");
	int rc;

	g_option_context_set_summary(ctx,
		"Convert timers from setup_timer()/init_timer() and callbacks\n"
		"taking unsigned long to timer_setup() and from_timer(), across\n"
		"files: a callback, its setups, prototypes and direct calls are\n"
		"converted together or not at all.  Sites that cannot be proven\n"
		"safe are left untouched and reported with the reason.");
	g_option_context_set_description(ctx,
		"Output: a unified diff (a/ b/ paths, for git apply or patch -p1)\n"
		"on stdout, unless --in-place; a summary on stderr.\n"
		"--verify builds each changed .c file's object with kbuild\n"
		"(make O=DIR path/file.o) before and after the conversion, from a\n"
		"view of the tree kept in the build directory: the tree is not\n"
		"written.  A unit that built before and fails after is put back\n"
		"and refused (\"does not build after conversion: ...\"); a file the\n"
		"config does not build is reported, not counted as verified.  With\n"
		"--kernel-headers KDIR, out-of-tree code is built as modules\n"
		"(make -C KDIR M=DIR) in a copy of the tree.\n"
		"--in-place writes a unit's files all or none: a file edited\n"
		"while the run worked is not written, nor are the files of its\n"
		"units (exit 2); the renames go through a journal, and a run\n"
		"killed among them is finished or undone by the next\n"
		"convert --in-place or by --recover.  Run from a subdirectory\n"
		"of a git work tree, convert works on the whole work tree and\n"
		"changes the subdirectory (paths are relative to the top).\n"
		"Exit status: 0 the run completed (refusals are not errors),\n"
		"2 error (bad path, no spatch, unwritable file, a file changed\n"
		"during the run, interrupted).");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!cli_parse(ctx, "convert", &argc, &argv))
		return EXIT_ERROR;
	rc = EXIT_ERROR;
	if (cli_jobs(&o.jobs) && cli_timeout(&o.timeout))
		rc = run_convert(&o);
	g_free(o.tree);
	g_free(o.report);
	g_free(o.macro_file);
	g_free(o.target);
	g_free(o.kernel_headers);
	g_free(o.compat_header);
	g_strfreev(o.include_dirs);
	g_free(o.config);
	g_free(o.build_dir);
	g_strfreev(o.make_args);
	g_strfreev(o.paths);
	return rc;
}
