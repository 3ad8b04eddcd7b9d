// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline reader (check --baseline FILE): any text is a baseline,
 * or an error with a message; never both, never neither.
 */
#include "fuzz.h"
#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	GError *error = NULL;
	GHashTable *fps;

	fuzz_init();
	if (fuzz_json_glib_leaks((const char *)data, size))
		return 0;
	fps = baseline_parse("fuzz.json", (const char *)data, (gssize)size,
			     &error);
	FUZZ_ASSERT(!fps != !error);
	if (fps) {
		GHashTableIter it;
		gpointer key, value;

		g_hash_table_iter_init(&it, fps);
		while (g_hash_table_iter_next(&it, &key, &value))
			FUZZ_ASSERT(key && GPOINTER_TO_UINT(value) >= 1);
		g_hash_table_destroy(fps);
	} else {
		FUZZ_ASSERT(error->message);
		g_error_free(error);
	}
	return 0;
}
