/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer harnesses in this directory: each defines
 * LLVMFuzzerTestOneInput() and calls fuzz_init() first.  A GLib critical
 * or warning is a bug (a g_return_if_fail() that fired), so both abort
 * and the fuzzer reports them like a crash, with the input.
 */
#ifndef TIMERCONV_FUZZ_H
#define TIMERCONV_FUZZ_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort(), not GLib's breakpoint trap: libFuzzer saves the input then. */
static inline void fuzz_log(const gchar *domain, GLogLevelFlags level,
			    const gchar *message, gpointer data)
{
	g_log_default_handler(domain, level, message, data);
	if (level & (G_LOG_FLAG_FATAL | G_LOG_LEVEL_ERROR |
		     G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
		abort();
}

static inline void fuzz_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	g_log_set_default_handler(fuzz_log, NULL);
}

/* A NUL-terminated copy, for the readers that take C strings. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = g_malloc(size + 1);

	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An invariant of the code under test; abort() makes it a finding. */
#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant failed: %s\n",\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif
