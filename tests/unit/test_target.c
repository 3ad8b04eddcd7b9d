// SPDX-License-Identifier: GPL-2.0
/*
 * --target auto reads the API level and the forms a conversion may write
 * off the tree's include/linux/timer.h (scan/target.c).  Each case is a
 * small timer.h shaped like a release's (the parts target.c looks at:
 * struct timer_list's .function, DEFINE_TIMER() and __TIMER_INITIALIZER()
 * arities, which API names it defines) and what must be read off it.
 */
#include "target.h"
#include "unit.h"

/* v4.9: no timer_setup(); .function takes unsigned long. */
static const char v4_9[] =
	"#ifndef _LINUX_TIMER_H\n"
	"#define _LINUX_TIMER_H\n"
	"struct timer_list {\n"
	"	struct hlist_node	entry;\n"
	"	unsigned long		expires;\n"
	"	void			(*function)(unsigned long);\n"
	"	unsigned long		data;\n"
	"	u32			flags;\n"
	"};\n"
	"#define __TIMER_INITIALIZER(_function, _expires, _data, _flags) { \\\n"
	"		.function = (_function),	\\\n"
	"		.flags = (_flags),		\\\n"
	"	}\n"
	"#define TIMER_INITIALIZER(_function, _expires, _data)		\\\n"
	"	__TIMER_INITIALIZER((_function), (_expires), (_data), 0)\n"
	"#define DEFINE_TIMER(_name, _function, _expires, _data)		\\\n"
	"	struct timer_list _name =				\\\n"
	"		TIMER_INITIALIZER(_function, _expires, _data)\n"
	"/* timer_setup() and from_timer() come in v4.14-rc3 */\n"
	"#define setup_timer(timer, fn, data)				\\\n"
	"	__setup_timer((timer), (fn), (data), 0)\n"
	"extern int del_timer(struct timer_list * timer);\n"
	"#endif\n";

/* v4.14: the old API whole, plus timer_setup() and from_timer() and the
 * types to cast with (as v4.14-rc3 pulled them in). */
static const char v4_14[] =
	"struct timer_list {\n"
	"	unsigned long		expires;\n"
	"	void			(*function)(unsigned long);\n"
	"	unsigned long		data;\n"
	"	u32			flags;\n"
	"};\n"
	"#define __TIMER_INITIALIZER(_function, _expires, _data, _flags) { }\n"
	"#define DEFINE_TIMER(_name, _function, _expires, _data)		\\\n"
	"	struct timer_list _name =				\\\n"
	"		TIMER_INITIALIZER(_function, _expires, _data)\n"
	"#define TIMER_DATA_TYPE		unsigned long\n"
	"#define TIMER_FUNC_TYPE		void (*)(TIMER_DATA_TYPE)\n"
	"static inline void timer_setup(struct timer_list *timer,\n"
	"			       void (*callback)(struct timer_list *),\n"
	"			       unsigned int flags)\n"
	"{\n"
	"	__setup_timer(timer, (TIMER_FUNC_TYPE)callback,\n"
	"		      (TIMER_DATA_TYPE)timer, flags);\n"
	"}\n"
	"#define from_timer(var, callback_timer, timer_fieldname) \\\n"
	"	container_of(callback_timer, typeof(*var), timer_fieldname)\n"
	"extern int del_timer(struct timer_list * timer);\n";

/* v4.15: the new forms; .function takes the timer. */
static const char v4_15[] =
	"struct timer_list {\n"
	"	unsigned long		expires;\n"
	"	void			(*function)(struct timer_list *);\n"
	"	u32			flags;\n"
	"};\n"
	"#define __TIMER_INITIALIZER(_function, _flags) {		\\\n"
	"		.function = (_function),			\\\n"
	"		.flags = (_flags),				\\\n"
	"	}\n"
	"#define DEFINE_TIMER(_name, _function)				\\\n"
	"	struct timer_list _name =				\\\n"
	"		__TIMER_INITIALIZER(_function, 0)\n"
	"#define timer_setup(timer, callback, flags)			\\\n"
	"	__init_timer((timer), (callback), (flags))\n"
	"#define timer_setup_on_stack(timer, callback, flags)		\\\n"
	"	__init_timer_on_stack((timer), (callback), (flags))\n"
	"#define from_timer(var, callback_timer, timer_fieldname) \\\n"
	"	container_of(callback_timer, typeof(*var), timer_fieldname)\n"
	"extern int del_timer(struct timer_list * timer);\n";

/* v6.2: timer_delete*(), del_timer*() still there wrapping them. */
static const char v6_2[] =
	"struct timer_list {\n"
	"	unsigned long		expires;\n"
	"	void			(*function)(struct timer_list *);\n"
	"	u32			flags;\n"
	"};\n"
	"#define __TIMER_INITIALIZER(_function, _flags) { }\n"
	"#define DEFINE_TIMER(_name, _function)				\\\n"
	"	struct timer_list _name =				\\\n"
	"		__TIMER_INITIALIZER(_function, 0)\n"
	"#define timer_setup(timer, callback, flags)			\\\n"
	"	__init_timer((timer), (callback), (flags))\n"
	"#define timer_setup_on_stack(timer, callback, flags)		\\\n"
	"	__init_timer_on_stack((timer), (callback), (flags))\n"
	"#define from_timer(var, callback_timer, timer_fieldname) \\\n"
	"	container_of(callback_timer, typeof(*var), timer_fieldname)\n"
	"extern int timer_delete(struct timer_list *timer);\n"
	"extern int timer_delete_sync(struct timer_list *timer);\n"
	"static inline int del_timer(struct timer_list *timer)\n"
	"{\n"
	"	return timer_delete(timer);\n"
	"}\n"
	"static inline int del_timer_sync(struct timer_list *timer)\n"
	"{\n"
	"	return timer_delete_sync(timer);\n"
	"}\n"
	"extern void destroy_timer_on_stack(struct timer_list *timer);\n";

/* v6.16: from_timer() is timer_container_of(); del_timer() is gone. */
static const char v6_16[] =
	"struct timer_list {\n"
	"	unsigned long		expires;\n"
	"	void			(*function)(struct timer_list *);\n"
	"	u32			flags;\n"
	"};\n"
	"#define __TIMER_INITIALIZER(_function, _flags) { }\n"
	"#define DEFINE_TIMER(_name, _function)				\\\n"
	"	struct timer_list _name =				\\\n"
	"		__TIMER_INITIALIZER(_function, 0)\n"
	"#define timer_setup(timer, callback, flags)			\\\n"
	"	__init_timer((timer), (callback), (flags))\n"
	"#define timer_setup_on_stack(timer, callback, flags)		\\\n"
	"	__init_timer_on_stack((timer), (callback), (flags))\n"
	"#define timer_container_of(var, callback_timer, timer_fieldname) \\\n"
	"	container_of(callback_timer, typeof(*var), timer_fieldname)\n"
	"extern int timer_delete(struct timer_list *timer);\n"
	"extern int timer_delete_sync(struct timer_list *timer);\n"
	"extern void timer_destroy_on_stack(struct timer_list *timer);\n";

struct target_case {
	const char *name;
	const char *header;
	enum api_level level;
	bool has_timer_setup;
	struct target_forms forms;
	const char *container_of;
	guint renames;
	const char *note;
};

static const struct target_case cases[] = {
	/* no timer_setup(): v4.15's forms (and a warning) */
	{ "v4.9", v4_9, LEVEL_OLD, false,
	  { .timer_setup = true, .setup_on_stack = true,
	    .define_short = true, .initializer_short = true },
	  "from_timer", 0,
	  "target pre-v4.15 (auto, from include/linux/timer.h)" },
	{ "v4.14", v4_14, LEVEL_4_14, true,
	  { .timer_setup = true, .function_ulong = true, .func_type = true },
	  "from_timer", 0, "target v4.14 (auto, from include/linux/timer.h)" },
	{ "v4.15", v4_15, LEVEL_4_15, true,
	  { .timer_setup = true, .setup_on_stack = true,
	    .define_short = true, .initializer_short = true },
	  "from_timer", 0, "target v4.15 (auto, from include/linux/timer.h)" },
	{ "v6.2", v6_2, LEVEL_6_2, true,
	  { .timer_setup = true, .setup_on_stack = true,
	    .define_short = true, .initializer_short = true },
	  "from_timer", 0, "target v6.2 (auto, from include/linux/timer.h)" },
	{ "v6.16", v6_16, LEVEL_6_16, true,
	  { .timer_setup = true, .setup_on_stack = true,
	    .define_short = true, .initializer_short = true },
	  "timer_container_of", 4,
	  "target v6.16 (auto, from include/linux/timer.h)" },
};

static void check_forms(const struct target_forms *got,
			const struct target_forms *want)
{
	g_assert_cmpint(got->timer_setup, ==, want->timer_setup);
	g_assert_cmpint(got->setup_on_stack, ==, want->setup_on_stack);
	g_assert_cmpint(got->define_short, ==, want->define_short);
	g_assert_cmpint(got->initializer_short, ==, want->initializer_short);
	g_assert_cmpint(got->function_ulong, ==, want->function_ulong);
	g_assert_cmpint(got->func_type, ==, want->func_type);
	g_assert_cmpint(got->compat, ==, want->compat);
}

static void resolve_header(const char *header, struct target *tg)
{
	char *root = unit_tmpdir();
	GError *error = NULL;

	unit_write(root, "include/linux/timer.h", header);
	g_assert_true(target_resolve(tg, "auto", root, NULL, NULL, &error));
	g_assert_no_error(error);
	unit_tmp_remove(root);
}

static void test_target_auto_reads_the_header(gconstpointer data)
{
	const struct target_case *c = data;
	struct target tg;

	resolve_header(c->header, &tg);
	g_assert_true(tg.is_auto);
	g_assert_cmpint(tg.level, ==, c->level);
	g_assert_cmpint(tg.has_timer_setup, ==, c->has_timer_setup);
	check_forms(&tg.forms, &c->forms);
	g_assert_cmpstr(tg.container_of, ==, c->container_of);
	g_assert_cmpuint(g_hash_table_size(tg.renames), ==, c->renames);
	g_assert_cmpstr(tg.note, ==, c->note);
	target_free(&tg);
}

static void test_target_v6_16_renames_what_is_gone(void)
{
	static const char *const renamed[][2] = {
		{ "from_timer", "timer_container_of" },
		{ "del_timer", "timer_delete" },
		{ "del_timer_sync", "timer_delete_sync" },
		{ "destroy_timer_on_stack", "timer_destroy_on_stack" },
	};
	struct target tg;

	resolve_header(v6_16, &tg);
	for (size_t i = 0; i < G_N_ELEMENTS(renamed); i++)
		g_assert_cmpstr(g_hash_table_lookup(tg.renames, renamed[i][0]),
				==, renamed[i][1]);
	target_free(&tg);
}

/* Comments are not definitions: the lexer reads the header. */
static void test_target_names_in_comments_do_not_count(void)
{
	struct target tg;
	char *header = g_strconcat(v4_9,
				   "/* timer_setup(), timer_container_of(),\n"
				   " * timer_setup_on_stack() */\n", NULL);

	resolve_header(header, &tg);
	g_assert_cmpint(tg.level, ==, LEVEL_OLD);
	g_assert_false(tg.has_timer_setup);
	g_assert_cmpstr(tg.container_of, ==, "from_timer");
	target_free(&tg);
	g_free(header);
}

/* A named level is taken as named, whatever the tree holds. */
static void test_target_named_levels(void)
{
	static const struct {
		const char *spec;
		enum api_level level;
		const char *container_of;
		bool func_type;
	} named[] = {
		{ "v4.14", LEVEL_4_14, "from_timer", true },
		{ "4.15", LEVEL_4_15, "from_timer", false },
		{ "v6.2", LEVEL_6_2, "from_timer", false },
		{ "v6.16", LEVEL_6_16, "timer_container_of", false },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(named); i++) {
		struct target tg;
		GError *error = NULL;

		g_assert_true(target_resolve(&tg, named[i].spec, "/nonexistent",
					     NULL, NULL, &error));
		g_assert_no_error(error);
		g_assert_false(tg.is_auto);
		g_assert_null(tg.header);
		g_assert_cmpint(tg.level, ==, named[i].level);
		g_assert_cmpstr(tg.container_of, ==, named[i].container_of);
		g_assert_cmpint(tg.forms.func_type, ==, named[i].func_type);
		target_free(&tg);
	}
}

static void test_target_unknown_level_is_an_error(void)
{
	struct target tg;
	GError *error = NULL;

	g_assert_false(target_resolve(&tg, "v5.0", ".", NULL, NULL, &error));
	g_assert_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE);
	g_assert_nonnull(strstr(error->message, "--target v5.0"));
	g_error_free(error);
	target_free(&tg);
}

static void test_target_tree_without_timer_h_is_v4_15(void)
{
	char *root = unit_tmpdir();
	struct target tg;
	GError *error = NULL;

	g_assert_true(target_resolve(&tg, "auto", root, NULL, NULL, &error));
	g_assert_no_error(error);
	g_assert_cmpint(tg.level, ==, LEVEL_4_15);
	g_assert_null(tg.header);
	g_assert_nonnull(strstr(tg.note, "no include/linux/timer.h"));
	target_free(&tg);
	unit_tmp_remove(root);
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *path = g_strdup_printf("/target/auto/%s",
					     cases[i].name);

		g_test_add_data_func(path, &cases[i],
				     test_target_auto_reads_the_header);
		g_free(path);
	}
	g_test_add_func("/target/auto/v6.16-renames-what-is-gone",
			test_target_v6_16_renames_what_is_gone);
	g_test_add_func("/target/auto/names-in-comments-do-not-count",
			test_target_names_in_comments_do_not_count);
	g_test_add_func("/target/auto/no-timer-h-is-v4.15",
			test_target_tree_without_timer_h_is_v4_15);
	g_test_add_func("/target/named-levels", test_target_named_levels);
	g_test_add_func("/target/unknown-level-is-an-error",
			test_target_unknown_level_is_an_error);
	return g_test_run();
}
