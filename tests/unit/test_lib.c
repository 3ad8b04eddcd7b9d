// SPDX-License-Identifier: GPL-2.0
/*
 * The helpers every stage shares, one of each (HACKING.md): running git
 * (gitutil.h), removing a tree (remove_tree()), walking a directory
 * (dir_walk()), normalising a path (path_normalize()), sorting strings
 * (cmp_strings()), matching brackets back (tok_match_open()), reading
 * #include lines (lex_includes()) and the TIMERCONV_* switches (env.h).
 */
#include <unistd.h>

#include "env.h"
#include "gitutil.h"
#include "lexer.h"
#include "tree.h"
#include "unit.h"

/* ---- git_run() ---- */

static char *git_tree(void)
{
	char *dir = unit_tmpdir();
	GError *error = NULL;

	g_assert_true(git_run(dir, NULL, &error, "init", "-q", NULL));
	g_assert_no_error(error);
	return dir;
}

/* ls-files -z separates names with NULs; a name need not be UTF-8. */
static void test_git_run_keeps_every_byte(void)
{
	char *dir = git_tree();
	GError *error = NULL;
	char *out = NULL;

	unit_write(dir, "a.c", "int a;\n");
	unit_write(dir, "lat\xe9.c", "int b;\n");
	g_assert_true(git_run(dir, &out, &error, "ls-files", "-z", "--others",
			      NULL));
	g_assert_no_error(error);
	g_assert_cmpstr(out, ==, "a.c");
	g_assert_cmpstr(out + strlen("a.c") + 1, ==, "lat\xe9.c");
	g_free(out);
	unit_tmp_remove(dir);
}

static void test_git_run_failure_carries_git_stderr(void)
{
	char *dir = git_tree();
	GError *error = NULL;
	char *out = NULL;

	g_assert_false(git_run(dir, &out, &error, "log", "no-such-revision",
			       NULL));
	g_assert_null(out);
	g_assert_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
	g_assert_true(g_str_has_prefix(error->message,
				       "git log failed: "));
	g_assert_nonnull(strstr(error->message, "no-such-revision"));
	g_error_free(error);
	unit_tmp_remove(dir);
}

/* ---- remove_tree() ---- */

static void test_remove_tree_does_not_follow_links(void)
{
	char *dir = unit_tmpdir();
	char *keep = unit_tmpdir();
	char *gone = g_build_filename(dir, "gone", NULL);
	char *link = g_build_filename(gone, "sub", "keep", NULL);
	char *kept = g_build_filename(keep, "file", NULL);

	unit_write(gone, "sub/deep/x.c", "x\n");
	unit_write(gone, ".hidden", "x\n");
	unit_write(keep, "file", "still here\n");
	g_assert_cmpint(symlink(keep, link), ==, 0);
	remove_tree(gone);
	g_assert_false(g_file_test(gone, G_FILE_TEST_EXISTS));
	g_assert_true(g_file_test(kept, G_FILE_TEST_IS_REGULAR));
	/* a file, and a path that is not there */
	unit_write(dir, "f", "x\n");
	g_free(gone);
	gone = g_build_filename(dir, "f", NULL);
	remove_tree(gone);
	g_assert_false(g_file_test(gone, G_FILE_TEST_EXISTS));
	remove_tree(gone);
	g_free(kept);
	g_free(link);
	g_free(gone);
	unit_tmp_remove(keep);
	unit_tmp_remove(dir);
}

/* ---- dir_walk() ---- */

static bool any_name(const char *name)
{
	return true;
}

static char *walked(const char *root, const char *rel,
		    const struct walk_rules *w)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	char *joined;

	dir_walk(root, rel, w, out);
	g_ptr_array_sort(out, cmp_strings);
	g_ptr_array_add(out, NULL);
	joined = g_strjoinv(" ", (char **)out->pdata);
	g_ptr_array_free(out, TRUE);
	return joined;
}

static void test_dir_walk_rules(void)
{
	char *root = unit_tmpdir();
	char *other = unit_tmpdir();
	char *link, *target;
	char *got;
	const struct walk_rules tree = { .want = is_c_source,
					 .skip_dot = true };
	const struct walk_rules headers = { .want = any_name,
					    .file_links = true,
					    .max_depth = 2 };

	unit_write(root, "a.c", "");
	unit_write(root, "README", "");
	unit_write(root, "d/b.h", "");
	unit_write(root, "d/e/f/deep.h", "");
	unit_write(root, ".git/x.c", "");
	unit_write(root, "d/.y.c", "");
	unit_write(other, "o.h", "");
	unit_write(other, "sub/p.h", "");
	target = g_build_filename(other, "o.h", NULL);
	link = g_build_filename(root, "d", "linked.h", NULL);
	g_assert_cmpint(symlink(target, link), ==, 0);
	g_free(link);
	g_free(target);
	link = g_build_filename(root, "linkdir", NULL);
	g_assert_cmpint(symlink(other, link), ==, 0);
	g_free(link);

	/* the tree's walk: sources, no dot names, no links at all */
	got = walked(root, "", &tree);
	g_assert_cmpstr(got, ==, "a.c d/b.h d/e/f/deep.h");
	g_free(got);
	got = walked(root, "d", &tree);
	g_assert_cmpstr(got, ==, "d/b.h d/e/f/deep.h");
	g_free(got);
	/* the include walk: links to files, dot names, two levels down */
	got = walked(root, "", &headers);
	g_assert_cmpstr(got, ==,
			".git/x.c README a.c d/.y.c d/b.h d/linked.h");
	g_free(got);
	unit_tmp_remove(other);
	unit_tmp_remove(root);
}

/* ---- lex_includes() ---- */

static void test_lex_includes_reads_directives(void)
{
	static const char text[] =
		"#include <linux/timer.h>\n"
		"  #  include \"local.h\"  /* trailing */\n"
		"#include_next <next.h>\n"
		"#include MACRO_HEADER\n"
		"#include \"\"\n"
		"/* #include \"commented.h\" */\n"
		"const char *s = \"#include \\\"string.h\\\"\";\n"
		"/* a comment first */ #include <after_comment.h>\n"
		"#include \\\n"
		"\t<continued.h>\n"
		"#include <asm/8250.h>\n"
		"#define X 1\n";
	static const char *const want[] = {
		"<linux/timer.h>", "\"local.h\"", "<after_comment.h>",
		"<continued.h>", "<asm/8250.h>",
	};
	size_t n;
	struct token *t = lex_all(text, sizeof(text) - 1, &n);
	GPtrArray *names = lex_includes(t, n);

	for (guint i = 0; i < names->len; i++)
		g_test_message("%s", (char *)names->pdata[i]);
	g_assert_cmpuint(names->len, ==, G_N_ELEMENTS(want));
	for (guint i = 0; i < names->len; i++)
		g_assert_cmpstr(names->pdata[i], ==, want[i]);
	g_ptr_array_free(names, TRUE);
	g_free(t);
}

static void test_lex_include_name_rejects_a_nul(void)
{
	static const char text[] = "#include \"a\0b.h\"\n";
	size_t n;
	struct token *t = lex_all(text, sizeof(text) - 1, &n);
	GPtrArray *names = lex_includes(t, n);

	g_assert_cmpuint(names->len, ==, 0);
	g_ptr_array_free(names, TRUE);
	g_free(t);
}

static void test_tok_match_open_looks_back(void)
{
	static const char text[] = "f(a[1], (b)) [x]";
	size_t n;
	struct token *t = lex_all(text, sizeof(text) - 1, &n);

	/* f ( a [ 1 ] , ( b ) ) [ x ] */
	g_assert_cmpuint(tok_match_open(t, 0, 10), ==, 1);
	g_assert_cmpuint(tok_match_open(t, 0, 5), ==, 3);
	g_assert_cmpuint(tok_match_open(t, 0, 9), ==, 7);
	g_assert_cmpuint(tok_match_open(t, 0, 13), ==, 11);
	/* not below lo */
	g_assert_cmpuint(tok_match_open(t, 2, 10), ==, SIZE_MAX);
	g_assert_cmpuint(tok_match_open(t, 1, 10), ==, 1);
	g_free(t);
}

/* ---- path_normalize() ---- */

static void test_path_normalize(void)
{
	static const char *const cases[][2] = {
		{ "a/b/../c.h", "a/c.h" },
		{ "./a//b/./c.o", "a/b/c.o" },
		{ "a/..", "" },
		{ ".", "" },
		{ "../x.h", "../x.h" },
		{ "a/../../x.h", "../x.h" },
		{ "drivers/net/", "drivers/net" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *got = path_normalize(cases[i][0]);

		g_assert_cmpstr(got, ==, cases[i][1]);
		g_free(got);
	}
}

/* ---- cmp_strings(), env.h ---- */

static void test_cmp_strings_sorts_a_ptr_array(void)
{
	GPtrArray *a = g_ptr_array_new();
	static const char *const in[] = { "b", "a.c", "a", "B", "" };

	for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
		g_ptr_array_add(a, (char *)in[i]);
	g_ptr_array_sort(a, cmp_strings);
	g_assert_cmpstr(a->pdata[0], ==, "");
	g_assert_cmpstr(a->pdata[1], ==, "B");
	g_assert_cmpstr(a->pdata[2], ==, "a");
	g_assert_cmpstr(a->pdata[3], ==, "a.c");
	g_assert_cmpstr(a->pdata[4], ==, "b");
	g_ptr_array_free(a, TRUE);
}

/* A switch is on when set, whatever the value, and off when unset. */
static void test_env_switches(void)
{
	static const struct {
		const char *name;
		bool (*get)(void);
	} switches[] = {
		{ "TIMERCONV_KEEP_TMP", env_keep_tmp },
		{ "TIMERCONV_TIMINGS", env_timings },
		{ "TIMERCONV_NO_CACHE", env_no_cache },
		{ "TIMERCONV_NO_SPECULATE", env_no_speculate },
		{ "TIMERCONV_NO_BLANK", env_no_blank },
		{ "TIMERCONV_SPEC_DEBUG", env_spec_debug },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(switches); i++) {
		g_unsetenv(switches[i].name);
		g_assert_false(switches[i].get());
		g_setenv(switches[i].name, "", TRUE);
		g_assert_true(switches[i].get());
		g_setenv(switches[i].name, "0", TRUE);
		g_assert_true(switches[i].get());
		g_unsetenv(switches[i].name);
	}
	g_unsetenv("TIMERCONV_COCCI_DIR");
	g_assert_null(env_cocci_dir());
	g_setenv("TIMERCONV_COCCI_DIR", "/rules", TRUE);
	g_assert_cmpstr(env_cocci_dir(), ==, "/rules");
	g_unsetenv("TIMERCONV_COCCI_DIR");
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/lib/git-run/keeps-every-byte",
			test_git_run_keeps_every_byte);
	g_test_add_func("/lib/git-run/failure-carries-git-stderr",
			test_git_run_failure_carries_git_stderr);
	g_test_add_func("/lib/remove-tree/does-not-follow-links",
			test_remove_tree_does_not_follow_links);
	g_test_add_func("/lib/dir-walk/rules", test_dir_walk_rules);
	g_test_add_func("/lib/lex-includes/reads-directives",
			test_lex_includes_reads_directives);
	g_test_add_func("/lib/lex-includes/rejects-a-nul",
			test_lex_include_name_rejects_a_nul);
	g_test_add_func("/lib/tok-match-open/looks-back",
			test_tok_match_open_looks_back);
	g_test_add_func("/lib/path-normalize", test_path_normalize);
	g_test_add_func("/lib/cmp-strings/sorts-a-ptr-array",
			test_cmp_strings_sorts_a_ptr_array);
	g_test_add_func("/lib/env/switches", test_env_switches);
	return g_test_run();
}
