// SPDX-License-Identifier: GPL-2.0
/*
 * timerconv check: a CI gate that reports old timer API code left in a
 * tree.  It uses the candidate scan alone (no spatch), so it runs at the
 * speed of reading the tree.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "journal.h"
#include "target.h"
#include "tree.h"
#include "treescan.h"
#include "util.h"

struct check_opts {
	char *tree;
	char *format;
	char *baseline;
	char *write_baseline;
	char *since;
	char *target;
	char *kernel_headers;
	gboolean include_compat;
	gboolean cached;
	int jobs;
	char **paths;
};

static char *site_message(const struct site *s, const struct target *tg)
{
	const struct api *api = s->api;

	switch (s->type) {
	case SITE_DATA_ASSIGN:
		return g_strdup_printf("timer_list.data was removed in v4.15; use timer_setup() and %s()",
				       tg->container_of);
	case SITE_DATA_READ:
		return g_strdup("timer_list.data is read here; v4.15 removed it (v4.14's timer_setup() stores the timer's own address in it): keep the value in the timer's container");
	case SITE_ULONG_CALLBACK:
		return g_strdup_printf("timer callback %s() takes unsigned long; since v4.15 callbacks take struct timer_list * and use %s()",
				       s->callback, tg->container_of);
	case SITE_API:
		break;
	}
	/* a tree at v4.14 has none of v4.15's forms around timer_setup() */
	if ((api->kind == API_DEFINE && !tg->forms.define_short) ||
	    (api->kind == API_INITIALIZER && !tg->forms.initializer_short))
		return g_strdup_printf("%s() hands its callback an unsigned long; on v4.14 keep its arguments and pass a struct timer_list * callback cast to TIMER_FUNC_TYPE",
				       api->name);
	if (api->on_stack && !tg->forms.setup_on_stack)
		return g_strdup_printf("%s() hands its callback an unsigned long; v4.14 has no timer_setup_on_stack(): use __setup_timer_on_stack(t, (TIMER_FUNC_TYPE)fn, (TIMER_DATA_TYPE)t, flags)",
				       api->name);
	if (api->kind == API_DEFINE)
		return g_strdup("DEFINE_TIMER() with expires and data arguments was removed in v4.15; use DEFINE_TIMER(name, fn)");
	if (api->kind == API_INITIALIZER && api->nargs == 4)
		return g_strdup("__TIMER_INITIALIZER() with expires and data arguments was removed in v4.15; use __TIMER_INITIALIZER(fn, flags)");
	if (api->kind == API_RENAME)
		return g_strdup_printf("%s() was %s in %s; use %s", api->name,
				       strcmp(api->name, "from_timer") ?
				       "removed" : "renamed",
				       api->removed, api->use);
	return g_strdup_printf("%s() was removed in %s; use %s", api->name,
			       api->removed, api->use);
}

static char *fingerprint(const char *file, const struct site *s,
			 const char *kind)
{
	char *text = text_normalize(s->text, strlen(s->text));
	char *key = g_strdup_printf("%s\n%s\n%s\n%s", file,
				    s->func ? s->func : "", kind, text);
	char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, key, -1);

	sum[16] = '\0';
	g_free(key);
	g_free(text);
	return sum;
}

static void finding_free(gpointer p)
{
	struct finding *f = p;

	g_free(f->kind);
	g_free(f->message);
	g_free(f->fingerprint);
	g_free(f);
}

/*
 * A callback handed to a timer in one file may be defined in another
 * (the seed's laptop_mode_timer_fn()): join the names across the tree.
 * A name a file defines static stays that file's.
 */
/*
 * A function taking unsigned long that another file hands to a timer is
 * a callback too.  With PATHs, the rest of the tree is scanned for such
 * names as well: a PATH run finds what a whole-tree run finds there
 * (mm/page-writeback.c's callback, set up in block/).
 */
static bool join_callbacks(struct treescan *ts, struct tree *tree,
			   const struct scan_opts *sopts, int jobs,
			   bool narrowed)
{
	struct treescan *all = NULL;
	GPtrArray *whole = NULL;
	GHashTable *global;

	if (narrowed) {
		GError *error = NULL;

		whole = tree_list(tree, NULL, &error);
		if (!whole) {
			tc_error("%s", error->message);
			g_error_free(error);
			return false;
		}
		all = treescan_run(tree, whole, sopts, jobs);
	}
	global = treescan_handed(all ? all : ts);
	for (guint i = 0; g_hash_table_size(global) && i < ts->files->len; i++)
		if (ts->results[i])
			scan_add_callbacks(ts->results[i], global);
	g_hash_table_destroy(global);
	treescan_free(all);
	if (whole)
		g_ptr_array_free(whole, TRUE);
	return true;
}

static GPtrArray *collect(struct treescan *ts, const struct target *tg,
			  bool include_compat)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(finding_free);

	for (guint i = 0; i < ts->files->len; i++) {
		struct scan_result *res = ts->results[i];

		for (guint k = 0; res && k < res->sites->len; k++) {
			const struct site *s = &g_array_index(res->sites,
							struct site, k);
			struct finding *f;

			if (s->compat && !include_compat)
				continue;
			f = g_new0(struct finding, 1);
			f->file = ts->files->pdata[i];
			f->site = s;
			f->kind = g_strdup_printf("old-timer-api/%s",
						  site_kind(s));
			f->message = site_message(s, tg);
			f->fingerprint = fingerprint(f->file, s, f->kind);
			f->note = s->compat;
			g_ptr_array_add(out, f);
		}
	}
	return out;
}

/* Keep findings on lines added since REV, and those not in the baseline. */
static void filter(GPtrArray *findings, GHashTable *added,
		   GHashTable *baseline)
{
	for (guint i = 0; i < findings->len;) {
		struct finding *f = findings->pdata[i];
		bool drop = false;

		if (added && !since_has_line(added, f->file, f->site->line))
			drop = true;
		if (!drop && baseline && !f->note) {
			guint left = GPOINTER_TO_UINT(
				g_hash_table_lookup(baseline, f->fingerprint));

			if (left) {
				g_hash_table_insert(baseline,
						    g_strdup(f->fingerprint),
						    GUINT_TO_POINTER(left - 1));
				drop = true;
			}
		}
		if (drop)
			g_ptr_array_remove_index(findings, i);
		else
			i++;
	}
}

static bool parse_format(const char *s, enum check_format *fmt)
{
	static const char *const names[] = { "text", "json", "sarif",
					     "github" };

	for (int i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*fmt = (enum check_format)i;
			return true;
		}
	}
	return false;
}

static int run_check(struct check_opts *o)
{
	struct scan_opts sopts = { 0 };
	enum check_format fmt = FORMAT_TEXT;
	struct target tg;
	struct tree tree;
	GPtrArray *files, *findings;
	GHashTable *added = NULL, *baseline = NULL;
	struct treescan *ts;
	GError *error = NULL;
	guint warnings = 0;
	int rc = EXIT_ERROR;
	char *root;

	if (o->format && !parse_format(o->format, &fmt)) {
		tc_error("--format %s: expected text, json, sarif or github",
			 o->format);
		return EXIT_ERROR;
	}
	if (o->write_baseline &&
	    !output_file_ok("--write-baseline", o->write_baseline, &error)) {
		tc_error("%s", error->message);
		g_error_free(error);
		return EXIT_ERROR;
	}
	cli_tree(o->tree, o->kernel_headers != NULL, &o->paths, &root);
	if (!tree_open(&tree, root, &error)) {
		tc_error("%s", error->message);
		g_error_free(error);
		g_free(root);
		return EXIT_ERROR;
	}
	g_free(root);
	if (tree.git_refused && (o->since || o->cached)) {
		tc_error("%s%s: %s", o->cached ? "--cached" : "--since ",
			 o->cached ? "" : o->since, tree.git_refused);
		goto out_tree;
	}
	if (tree.git_refused)
		tc_warn("git will not read %s, so .gitignore is not applied: %s",
			tree.root, tree.git_refused);
	journal_warn(&tree);
	if (!tree.is_git && (o->since || o->cached)) {
		tc_error("%s: %s is not in a git work tree",
			 o->cached ? "--cached" : "--since", tree.root);
		goto out_tree;
	}
	if (!target_resolve(&tg, o->target, tree.root, o->kernel_headers,
			    NULL, &error)) {
		tc_error("%s", error->message);
		goto out_tree;
	}
	sopts.renames = tg.renames;
	files = tree_list(&tree, (const char *const *)o->paths, &error);
	if (!files) {
		tc_error("%s", error->message);
		goto out_target;
	}
	if (o->baseline) {
		baseline = baseline_read(o->baseline, &error);
		if (!baseline) {
			tc_error("%s", error->message);
			goto out_files;
		}
	}
	if (o->since || o->cached) {
		added = since_added_lines(tree.root,
					  o->since ? o->since : "HEAD",
					  o->cached, &error);
		if (!added || (o->cached &&
			       !staged_view(&tree, files, added, &error))) {
			tc_error("%s", error->message);
			goto out_files;
		}
	}
	ts = treescan_run(&tree, files, &sopts, o->jobs > 0 ? o->jobs :
							      cpu_count());
	if (interrupted()) {
		tc_error("interrupted");
		treescan_free(ts);
		goto out_files;
	}
	if (ts->nerrors) {
		for (guint i = 0; i < files->len; i++)
			if (ts->errors[i])
				tc_error("%s", ts->errors[i]);
		treescan_free(ts);
		goto out_files;
	}
	if (!join_callbacks(ts, &tree, &sopts, o->jobs > 0 ? o->jobs :
							    cpu_count(),
			    o->paths && o->paths[0])) {
		treescan_free(ts);
		goto out_files;
	}
	findings = collect(ts, &tg, o->include_compat);
	if (o->write_baseline) {
		if (!baseline_write(o->write_baseline, findings, &error)) {
			tc_error("%s", error->message);
			goto out_findings;
		}
	}
	filter(findings, added, baseline);
	check_print(findings, fmt, files->len);
	for (guint i = 0; i < findings->len; i++)
		if (!((struct finding *)findings->pdata[i])->note)
			warnings++;
	rc = warnings && !o->write_baseline ? EXIT_FINDINGS : EXIT_OK;
out_findings:
	g_ptr_array_free(findings, TRUE);
	treescan_free(ts);
out_files:
	g_ptr_array_free(files, TRUE);
	if (added)
		g_hash_table_destroy(added);
	if (baseline)
		g_hash_table_destroy(baseline);
out_target:
	target_free(&tg);
out_tree:
	if (error)
		g_error_free(error);
	tree_close(&tree);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { .jobs = CLI_UNSET };
	GOptionEntry entries[] = {
		{ "tree", 'C', 0, G_OPTION_ARG_FILENAME, &o.tree,
		  "Run on the tree in DIR (default: .)", "DIR" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &o.format,
		  "Output format: text (gcc-style, default), json, sarif, github",
		  "FMT" },
		{ "baseline", 0, 0, G_OPTION_ARG_FILENAME, &o.baseline,
		  "Report only findings not recorded in FILE", "FILE" },
		{ "write-baseline", 0, 0, G_OPTION_ARG_FILENAME,
		  &o.write_baseline,
		  "Record today's findings in FILE (exit 0)", "FILE" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &o.since,
		  "Report only findings on lines added since REV (git; HEAD before the first commit: every line)",
		  "REV" },
		{ "cached", 0, 0, G_OPTION_ARG_NONE, &o.cached,
		  "Check what is staged: the index's text, findings on the lines it adds to HEAD (or to --since REV); for a pre-commit hook",
		  NULL },
		{ "target", 0, 0, G_OPTION_ARG_STRING, &o.target,
		  "API level: auto (from include/linux/timer.h), v4.14, v4.15, v6.2, v6.16",
		  "LEVEL" },
		{ "kernel-headers", 0, 0, G_OPTION_ARG_FILENAME,
		  &o.kernel_headers,
		  "For out-of-tree code: the kernel build tree whose headers decide the level",
		  "DIR" },
		{ "include-compat", 0, 0, G_OPTION_ARG_NONE, &o.include_compat,
		  "Show version-guarded compat code as notes", NULL },
		{ "jobs", 'j', 0, G_OPTION_ARG_INT, &o.jobs,
		  "Threads to scan with (default: number of CPUs)", "N" },
		{ G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY,
		  &o.paths, NULL, NULL },
		{ NULL }
	};
	GOptionContext *ctx = g_option_context_new("[PATH…]");
	int rc;

	g_option_context_set_summary(ctx,
		"Report code that still uses the timer API removed in v4.15\n"
		"(setup_timer(), init_timer(), .data, 4-argument DEFINE_TIMER(),\n"
		"TIMER_INITIALIZER(), callbacks taking unsigned long), and, at\n"
		"newer targets, names those kernels no longer have.");
	g_option_context_set_description(ctx,
		"Run from a subdirectory of a git work tree, check reads the\n"
		"whole work tree and reports on the subdirectory (paths are\n"
		"relative to the top, as in git diff).\n"
		"Exit status: 0 no findings (beyond the baseline), 1 findings,\n"
		"2 error.");
	g_option_context_add_main_entries(ctx, entries, NULL);
	if (!cli_parse(ctx, "check", &argc, &argv))
		return EXIT_ERROR;
	rc = cli_jobs(&o.jobs) ? run_check(&o) : EXIT_ERROR;
	g_free(o.tree);
	g_free(o.format);
	g_free(o.baseline);
	g_free(o.write_baseline);
	g_free(o.since);
	g_free(o.target);
	g_free(o.kernel_headers);
	g_strfreev(o.paths);
	return rc;
}
