// SPDX-License-Identifier: GPL-2.0
/*
 * The plan names a construct by text: plan_key() (plan.c) on the driver's
 * side, name() (cocci/timerconv.py) on the rules' side.  A key the two
 * spell differently is a change the rules never find, and the unit is
 * refused as "rewrite incomplete".  These cases run both on the same
 * parts and want the same key: blanks are C's (space, tab, newline,
 * carriage return, form feed, vertical tab, as the lexer skips them),
 * nothing else.
 */
#include <json-glib/json-glib.h>

#include "conv.h"
#include "unit.h"

/* The parts of a key, NULL-terminated, and the key both must give. */
struct key_case {
	const char *parts[5];
	const char *key;
};

static const struct key_case cases[] = {
	{ { "acme_probe", "setup_timer", "&priv->timer", NULL },
	  "acme_probe|setup_timer|&priv->timer" },
	/* spatch prints operands spaced: the key keeps one blank */
	{ { "f", "& p -> hw . watchdog", NULL }, "f|& p -> hw . watchdog" },
	{ { "  lead", "trail\t", "\tboth \n", NULL }, "lead|trail|both" },
	{ { "a\t\tb", "a\nb", "a\r\nb", "a \t\r\n b", NULL },
	  "a b|a b|a b|a b" },
	/* form feed and vertical tab are blanks to C (and to the lexer) */
	{ { "a\fb", "a\vb", "\f\vx\v", NULL }, "a b|a b|x" },
	/* but not to be folded: other Unicode spaces and separators, which
	 * can only be inside a string literal or a comment */
	{ { "\"a\xc2\xa0" "b\"", "\"a\xe2\x80\xa8" "b\"", NULL },
	  "\"a\xc2\xa0" "b\"|\"a\xe2\x80\xa8" "b\"" },
	{ { "\"a\xc2\x85" "b\"", "\"\xe3\x80\x80\"", NULL },
	  "\"a\xc2\x85" "b\"|\"\xe3\x80\x80\"" },
	{ { "a\x1c" "b", "a\x1f" "b", NULL }, "a\x1c" "b|a\x1f" "b" },
	/* empty parts keep their place */
	{ { "", "DEFINE_TIMER", "t", NULL }, "|DEFINE_TIMER|t" },
	{ { "f", "", "", NULL }, "f||" },
	{ { " ", NULL }, "" },
};

static char *key_of(const struct key_case *c)
{
	const char *const *p = c->parts;

	/* plan_key() is variadic: as many parts as the cases have */
	if (!p[1])
		return plan_key(p[0], NULL);
	if (!p[2])
		return plan_key(p[0], p[1], NULL);
	if (!p[3])
		return plan_key(p[0], p[1], p[2], NULL);
	return plan_key(p[0], p[1], p[2], p[3], NULL);
}

static void test_plan_key_folds_c_blanks(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *key = key_of(&cases[i]);

		g_assert_cmpstr(key, ==, cases[i].key);
		g_free(key);
	}
}

/* name() of every case, from the rules' own module, in one python run. */
static char **python_names(void)
{
	static const char script[] =
		"import json, sys\n"
		"sys.path.insert(0, sys.argv[1])\n"
		"import timerconv\n"
		"cases = json.load(sys.stdin, strict=False)\n"
		"json.dump([timerconv.name(*c) for c in cases], sys.stdout)\n";
	JsonBuilder *b = json_builder_new();
	JsonGenerator *gen = json_generator_new();
	JsonParser *parser = json_parser_new();
	char *cocci = unit_source("cocci");
	const char *argv[] = { UNIT_PYTHON, "-c", script, cocci, NULL };
	GError *error = NULL;
	GSubprocess *proc;
	JsonArray *arr;
	JsonNode *root;
	char *in, *out = NULL, **names;

	json_builder_begin_array(b);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		json_builder_begin_array(b);
		for (size_t k = 0; cases[i].parts[k]; k++)
			json_builder_add_string_value(b, cases[i].parts[k]);
		json_builder_end_array(b);
	}
	json_builder_end_array(b);
	root = json_builder_get_root(b);
	json_generator_set_root(gen, root);
	json_node_unref(root);
	in = json_generator_to_data(gen, NULL);
	proc = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDIN_PIPE |
				 G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
	g_assert_no_error(error);
	g_subprocess_communicate_utf8(proc, in, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_successful(proc));
	json_parser_load_from_data(parser, out, -1, &error);
	g_assert_no_error(error);
	arr = json_node_get_array(json_parser_get_root(parser));
	g_assert_cmpuint(json_array_get_length(arr), ==, G_N_ELEMENTS(cases));
	names = g_new0(char *, G_N_ELEMENTS(cases) + 1);
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++)
		names[i] = g_strdup(json_array_get_string_element(arr, i));
	g_object_unref(parser);
	g_object_unref(proc);
	g_object_unref(gen);
	g_object_unref(b);
	g_free(in);
	g_free(out);
	g_free(cocci);
	return names;
}

static void test_python_name_agrees_with_plan_key(void)
{
	char **names = python_names();

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *key = key_of(&cases[i]);

		g_test_message("case %zu: plan_key \"%s\", name() \"%s\"", i,
			       key, names[i]);
		g_assert_cmpstr(names[i], ==, key);
		g_free(key);
	}
	g_strfreev(names);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/key/plan-key-folds-c-blanks",
			test_plan_key_folds_c_blanks);
	g_test_add_func("/key/python-name-agrees-with-plan-key",
			test_python_name_agrees_with_plan_key);
	return g_test_run();
}
