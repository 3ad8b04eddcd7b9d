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

/*
 * json-glib 1.6 leaks the nodes of a second top-level value after the
 * first ("1{}", "[1] {}": each statement overwrites the root).  That is
 * the library's bug, not ours: the JSON targets skip such texts so the
 * leak checker keeps watching our code.  Conservative: anything but
 * blanks after the first value (as a bracket and string scanner sees
 * it) counts.
 */
static inline bool fuzz_json_trailing(const char *p, size_t len)
{
	size_t i = 0;
	int depth = 0;
	bool in_str = false;

	while (i < len && g_ascii_isspace(p[i]))
		i++;
	if (i < len && p[i] != '{' && p[i] != '[' && p[i] != '"') {
		while (i < len && !g_ascii_isspace(p[i]) &&
		       !strchr("{}[]\"", p[i]))
			i++;
	} else {
		for (; i < len; i++) {
			char c = p[i];

			if (in_str) {
				if (c == '\\')
					i++;
				else if (c == '"')
					in_str = false;
				if (!in_str && depth == 0) {
					i++;
					break;
				}
				continue;
			}
			if (c == '"')
				in_str = true;
			else if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth <= 0) {
				i++;
				break;
			}
		}
	}
	while (i < len && g_ascii_isspace(p[i]))
		i++;
	return i < len;
}

/*
 * json-glib 1.6 also leaks its string buffer when the escape of a
 * surrogate is followed by an escape that is not a low surrogate.  It
 * takes any escape from \ud800 to \udfff, low ones included, for the
 * first half of a pair (and so \udcdz, read as u+DCCF).  Conservative
 * again: any escape that starts \ud8 to \udf counts.
 */
static inline bool fuzz_json_surrogate(const char *p, size_t len)
{
	for (size_t i = 0; i + 3 < len; i++)
		if (p[i] == '\\' && p[i + 1] == 'u' &&
		    (p[i + 2] == 'd' || p[i + 2] == 'D') &&
		    p[i + 3] && strchr("89abcdefABCDEF", p[i + 3]))
			return true;
	return false;
}

/* A text json-glib 1.6 leaks on: the JSON targets skip it. */
static inline bool fuzz_json_glib_leaks(const char *p, size_t len)
{
	return fuzz_json_trailing(p, len) || fuzz_json_surrogate(p, len);
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
