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

struct target {
	enum api_level level;
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
 * spec: "auto", "v4.15", "v6.2" or "v6.16".  For auto, the header is
 * kernel_headers/include/linux/timer.h when given, else api_header, else
 * root/include/linux/timer.h.
 */
bool target_resolve(struct target *tg, const char *spec, const char *root,
		    const char *kernel_headers, const char *api_header,
		    GError **error);
void target_free(struct target *tg);

/* Identifiers a header defines or declares (as code, not comments). */
GHashTable *header_identifiers(const char *path);

#endif
