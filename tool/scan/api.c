// SPDX-License-Identifier: GPL-2.0
/*
 * The old timer API as v4.14's include/linux/timer.h defined it, and the
 * 4.15-era names that were renamed later.
 */
#include <string.h>

#include "api.h"

#define SETUP_USE(s) ((s) ? "timer_setup_on_stack()" : "timer_setup()")
#define SETUP(n, f, s) \
	{ n, API_SETUP, 3, f, s, SETUP_USE(s), "v4.15", LEVEL_4_15 }
#define INIT(n, f, s) \
	{ n, API_INIT, 1, f, s, SETUP_USE(s), "v4.15", LEVEL_4_15 }
#define INITIALIZER(n, a) \
	{ n, API_INITIALIZER, a, NULL, false, "__TIMER_INITIALIZER(fn, flags)", \
	  "v4.15", LEVEL_4_15 }
#define RENAME(n, a, u, r) \
	{ n, API_RENAME, a, NULL, false, u, r, LEVEL_6_16 }

static const struct api apis[] = {
	SETUP("setup_timer", "0", false),
	SETUP("setup_pinned_timer", "TIMER_PINNED", false),
	SETUP("setup_deferrable_timer", "TIMER_DEFERRABLE", false),
	SETUP("setup_pinned_deferrable_timer",
	      "TIMER_DEFERRABLE | TIMER_PINNED", false),
	SETUP("setup_timer_on_stack", "0", true),
	SETUP("setup_pinned_timer_on_stack", "TIMER_PINNED", true),
	SETUP("setup_deferrable_timer_on_stack", "TIMER_DEFERRABLE", true),
	SETUP("setup_pinned_deferrable_timer_on_stack",
	      "TIMER_DEFERRABLE | TIMER_PINNED", true),
	{ "__setup_timer", API_SETUP, 4, NULL, false, "timer_setup()",
	  "v4.15", LEVEL_4_15 },
	{ "__setup_timer_on_stack", API_SETUP, 4, NULL, true,
	  "timer_setup_on_stack()", "v4.15", LEVEL_4_15 },
	INIT("init_timer", "0", false),
	INIT("init_timer_pinned", "TIMER_PINNED", false),
	INIT("init_timer_deferrable", "TIMER_DEFERRABLE", false),
	INIT("init_timer_pinned_deferrable",
	     "TIMER_DEFERRABLE | TIMER_PINNED", false),
	INIT("init_timer_on_stack", "0", true),
	{ "DEFINE_TIMER", API_DEFINE, 4, NULL, false,
	  "DEFINE_TIMER(name, fn)", "v4.15", LEVEL_4_15 },
	INITIALIZER("TIMER_INITIALIZER", 3),
	INITIALIZER("TIMER_PINNED_INITIALIZER", 3),
	INITIALIZER("TIMER_DEFERRED_INITIALIZER", 3),
	INITIALIZER("TIMER_PINNED_DEFERRED_INITIALIZER", 3),
	/* The 4-argument form; today's __TIMER_INITIALIZER takes two. */
	INITIALIZER("__TIMER_INITIALIZER", 4),
	RENAME("from_timer", 3, "timer_container_of()", "v6.16"),
	RENAME("del_timer", 1, "timer_delete()", "v6.15"),
	RENAME("del_timer_sync", 1, "timer_delete_sync()", "v6.15"),
	RENAME("destroy_timer_on_stack", 1, "timer_destroy_on_stack()",
	       "v6.15"),
};

static const char *const new_names[] = {
	"timer_setup", "timer_setup_on_stack", "from_timer",
	"timer_container_of", "timer_delete", "timer_delete_sync",
	"timer_destroy_on_stack", "timer_shutdown", "timer_shutdown_sync",
	"TIMER_DATA_TYPE", "TIMER_FUNC_TYPE", NULL
};

bool api_holds_timer(const char *name, size_t len)
{
	for (size_t i = 0; i + 5 <= len; i++)
		if ((name[i] == 't' && !memcmp(name + i, "timer", 5)) ||
		    (name[i] == 'T' && !memcmp(name + i, "TIMER", 5)))
			return true;
	return false;
}

bool api_candidate(const char *name, size_t len)
{
	/* Every name, old or new, holds "timer" or "TIMER" */
	return len >= 9 && len <= 40 && api_holds_timer(name, len);
}

const struct api *api_lookup(const char *name, size_t len)
{
	if (!api_candidate(name, len))
		return NULL;
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (strlen(apis[i].name) == len &&
		    !memcmp(apis[i].name, name, len))
			return &apis[i];
	return NULL;
}

bool api_is_new_name(const char *name, size_t len)
{
	if (!api_candidate(name, len))
		return false;
	for (int i = 0; new_names[i]; i++)
		if (strlen(new_names[i]) == len &&
		    !memcmp(new_names[i], name, len))
			return true;
	return false;
}

bool api_is_timer_name(const char *name, size_t len)
{
	const struct api *api = api_lookup(name, len);

	return (api && api->kind != API_INITIALIZER) ||
	       api_is_new_name(name, len);
}

const char *api_level_name(enum api_level level)
{
	switch (level) {
	case LEVEL_OLD:
		return "pre-v4.15";
	case LEVEL_4_14:
		return "v4.14";
	case LEVEL_4_15:
		return "v4.15";
	case LEVEL_6_2:
		return "v6.2";
	case LEVEL_6_16:
		return "v6.16";
	}
	return "?";
}
