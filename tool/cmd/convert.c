// SPDX-License-Identifier: GPL-2.0
/*
 * timerconv convert: the conversion as a unified diff on stdout, or
 * written in place.  Writing is all or nothing: every file is checked
 * writable first, each is replaced atomically, and signals wait until the
 * last one is done, so an interrupted run never leaves a unit half
 * converted.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "diff.h"
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

static bool write_in_place(struct run *r, GPtrArray *changed)
{
	sigset_t block, old;
	bool ok = true;

	if (!check_writable(r, changed)) {
		tc_error("nothing was written");
		return false;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (guint i = 0; i < changed->len; i++) {
		struct cfile *f = changed->pdata[i];
		char *abs = tree_abspath(&r->tree, f->path);
		GError *error = NULL;

		if (f->is_new) {
			char *dir = g_path_get_dirname(abs);

			g_mkdir_with_parents(dir, 0755);
			g_free(dir);
		}
		if (!write_file_atomic(abs, f->new_text, f->new_len, -1,
				       &error)) {
			tc_error("%s", error->message);
			g_error_free(error);
			ok = false;
		}
		g_free(abs);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
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
	int rc = EXIT_OK;

	progress_init(o->quiet);
	if (!o->verify && (o->config || o->build_dir || o->make_args)) {
		tc_error("--config, --build-dir and --make-arg go with --verify (see timerconv convert --help)");
		return EXIT_ERROR;
	}
	if (o->verify)
		po.verify = &vo;
	if (!pipeline_run(&r, &po, &error)) {
		progress_end();
		if (interrupted())
			tc_error("interrupted; no file was changed");
		else
			tc_error("%s", error ? error->message : "failed");
		g_clear_error(&error);
		pipeline_free(&r);
		return EXIT_ERROR;
	}
	progress_end();
	if (interrupted()) {
		tc_error("interrupted; no file was changed");
		pipeline_free(&r);
		return EXIT_ERROR;
	}
	if (o->scan_only) {
		GPtrArray *files = pipeline_candidates(&r);

		for (guint i = 0; i < files->len; i++)
			printf("%s\n", ((struct cfile *)files->pdata[i])->path);
		fprintf(stderr, "timerconv: %u of %u files are candidates\n",
			files->len, r.nfiles_scanned);
		g_ptr_array_free(files, TRUE);
		pipeline_free(&r);
		return EXIT_OK;
	}
	changed = pipeline_changed(&r);
	if (o->in_place) {
		if (!write_in_place(&r, changed))
			rc = EXIT_ERROR;
	} else {
		print_diff(changed);
	}
	report_summary(&r);
	if (o->report && !report_write(&r, o->report, &error)) {
		tc_error("%s", error->message);
		g_clear_error(&error);
		rc = EXIT_ERROR;
	}
	g_ptr_array_free(changed, TRUE);
	pipeline_free(&r);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o = { 0 };
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
		{ "timeout", 0, 0, G_OPTION_ARG_INT, &o.timeout,
		  "Seconds spatch may spend on a file of up to 128 kB (default: 120); bigger files get more, up to 8 times", "S" },
		{ "macro-file", 0, 0, G_OPTION_ARG_FILENAME, &o.macro_file,
		  "Macro definitions that help spatch parse this tree, added after timerconv's own kernel macros (spatch then reads every function body whole, not only those that can matter)", "FILE" },
		{ "verify", 0, 0, G_OPTION_ARG_NONE, &o.verify,
		  "Compile every changed .c file with the tree's kbuild before and after; put back units that stop building",
		  NULL },
		{ "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config,
		  "--verify with this config instead of the tree's .config",
		  "defconfig|allmodconfig|allyesconfig|FILE" },
		{ "build-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.build_dir,
		  "--verify: the build directory (kbuild's O=; default: one in ~/.cache/timerconv, kept between runs)",
		  "DIR" },
		VERIFY_MAKE_ARG_OPTION(o.make_args),
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.paths, NULL, "[PATH…]" },
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
		"Exit status: 0 the run completed (refusals are not errors),\n"
		"2 error (bad path, no spatch, unwritable file, interrupted).");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!cli_parse(ctx, "convert", &argc, &argv))
		return EXIT_ERROR;
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
