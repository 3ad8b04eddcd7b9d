/* SPDX-License-Identifier: GPL-2.0 */
/* The struct index saved to a file and read back (structs_cache.c). */
#ifndef TIMERCONV_STRUCTS_CACHE_H
#define TIMERCONV_STRUCTS_CACHE_H

#include <glib.h>
#include <stdbool.h>

#include "structs.h"

bool structs_cache_save(struct struct_index *si, const char *path,
			GError **error);
/* Into an empty index; false (and the index half filled: throw it away)
 * if the file is missing, of another version or cut short. */
bool structs_cache_load(struct struct_index *si, const char *path);

#endif
