/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The API level to convert to: read off the kernel's own
 * include/linux/timer.h (--target auto), or named (--target v6.16).
 */
#ifndef TIMERCONV_TARGET_H
#define TIMERCONV_TARGET_H

#include <glib.h>
#include <stdbool.h>

#include "api.h"

/*
 * The forms of the API the target's timer.h defines, each read off the
 * header itself: a tree branched at v4.14 has timer_setup() and
 * from_timer() (pulled into v4.14-rc3) but none of the v4.15 forms
 * around them, and what a conversion writes there differs.
 */
struct target_forms {
	bool timer_setup;	/* timer_setup() */
	bool setup_on_stack;	/* timer_setup_on_stack() */
	bool define_short;	/* DEFINE_TIMER(name, fn), not (name, fn, e, d) */
	bool initializer_short;	/* __TIMER_INITIALIZER(fn, flags) */
	bool function_ulong;	/* timer_list.function takes unsigned long */
	bool func_type;		/* TIMER_FUNC_TYPE and TIMER_DATA_TYPE */
	bool compat;		/* the rest comes from the compat header */
};

struct target {
	enum api_level level;
	struct target_forms forms;
	bool is_auto;
	char *header;		/* the timer.h read, NULL if none */
	char *note;		/* how the choice was made, for the summary */
	bool has_timer_setup;	/* the header defines timer_setup() */
	/* from_timer or timer_container_of, for generated code. */
	const char *container_of;
	/* 4.15-era names the target lacks: old name -> new name. */
	GHashTable *renames;
};

/*
 * spec: "auto", "v4.14", "v4.15", "v6.2" or "v6.16".  For auto, the header is
 * kernel_headers/include/linux/timer.h when given, else api_header, else
 * root/include/linux/timer.h.
 */
bool target_resolve(struct target *tg, const char *spec, const char *root,
		    const char *kernel_headers, const char *api_header,
		    GError **error);
void target_free(struct target *tg);

/* Identifiers a header defines or declares (as code, not comments). */
GHashTable *header_identifiers(const char *path);

/*
 * Code converted with --compat-header also builds on kernels older than
 * the target: the header defines timer_setup(), timer_setup_on_stack(),
 * the short DEFINE_TIMER() and TIMER_FUNC_TYPE where they are missing,
 * and a .function assignment casts to TIMER_FUNC_TYPE.
 */
void target_use_compat(struct target *tg);

#endif
