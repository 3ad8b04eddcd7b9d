/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timer API names timerconv knows, old and new, with what replaces
 * them and in which kernel that happened.
 */
#ifndef TIMERCONV_API_H
#define TIMERCONV_API_H

#include <stdbool.h>

enum api_kind {
	API_SETUP,		/* setup_timer(t, fn, data) and friends */
	API_INIT,		/* init_timer(t) and friends */
	API_DEFINE,		/* DEFINE_TIMER(name, fn, expires, data) */
	API_INITIALIZER,	/* TIMER_INITIALIZER(fn, expires, data) */
	API_RENAME,		/* 4.15-API names renamed later (--target) */
};

/* API levels, in order. */
enum api_level {
	LEVEL_OLD,		/* no timer_setup(): before v4.14-rc3 */
	LEVEL_4_14,		/* + timer_setup(), from_timer(), but the old
				 * DEFINE_TIMER() and .function type */
	LEVEL_4_15,		/* timer_setup(), from_timer(), del_timer() */
	LEVEL_6_2,		/* + timer_delete*() */
	LEVEL_6_16,		/* timer_container_of(), no del_timer() */
};

struct api {
	const char *name;
	enum api_kind kind;
	int nargs;		/* argument count that identifies the API */
	const char *flags;	/* timer_setup() flags, NULL: last argument */
	bool on_stack;
	const char *use;	/* what to use instead */
	const char *removed;	/* release that removed it */
	/* For API_RENAME: the level whose headers lack this name. */
	enum api_level gone_at;
};

/* Does name hold "timer" or "TIMER", as every API name does? */
bool api_holds_timer(const char *name, size_t len);
/* Could name be one of the API's (old or new)?  A cheap first test. */
bool api_candidate(const char *name, size_t len);
const struct api *api_lookup(const char *name, size_t len);

/* Names that only exist in the new API: a #define of one is a shim. */
bool api_is_new_name(const char *name, size_t len);

/* Any timer API name, old or new (for compat conditions). */
bool api_is_timer_name(const char *name, size_t len);

const char *api_level_name(enum api_level level);

#endif
