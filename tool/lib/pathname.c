// SPDX-License-Identifier: GPL-2.0
#include <glib.h>
#include <string.h>

#include "pathname.h"

char *text_utf8(const char *s)
{
	GString *out;
	const char *end;

	if (g_utf8_validate(s, -1, NULL))
		return g_strdup(s);
	out = g_string_new(NULL);
	while (*s) {
		if (g_utf8_validate(s, -1, &end)) {
			g_string_append(out, s);
			break;
		}
		g_string_append_len(out, s, end - s);
		s = end;
		if (*s)
			g_string_append_printf(out, "\\x%02x",
					       (unsigned char)*s++);
	}
	return g_string_free(out, FALSE);
}

char *path_uri(const char *path)
{
	GString *out = g_string_new(NULL);

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (g_ascii_isalnum(*p) || strchr("-._~/", *p))
			g_string_append_c(out, (char)*p);
		else
			g_string_append_printf(out, "%%%02X", *p);
	}
	return g_string_free(out, FALSE);
}
