// SPDX-License-Identifier: GPL-2.0
/*
 * The candidate scan, as `check` and `convert` run it on one file: scan,
 * resolve .data/.function against the file's own timers and those of a
 * "header" (the same text scanned with the v6.16 renames), join the
 * callbacks it hands out.  Every site must name a real position: the
 * API name at (line, col) for a call, the callback's name for a
 * callback, and carry the text `check` fingerprints.  The prefilter may
 * skip a text only if the scan would find nothing in it.
 */
#include "fuzz.h"
#include "scan.h"
#include "util.h"

static GHashTable *renames(void)
{
	static GHashTable *r;

	if (!r) {
		r = g_hash_table_new(g_str_hash, g_str_equal);
		g_hash_table_insert(r, "from_timer", "timer_container_of");
		g_hash_table_insert(r, "del_timer", "timer_delete");
		g_hash_table_insert(r, "del_timer_sync", "timer_delete_sync");
		g_hash_table_insert(r, "destroy_timer_on_stack",
				    "timer_destroy_on_stack");
	}
	return r;
}

/* Byte offsets of the start of each line (1-based: starts[0] unused). */
static GArray *line_starts(const char *buf, size_t size)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(size_t));
	size_t zero = 0;

	g_array_append_val(a, zero);
	g_array_append_val(a, zero);
	for (size_t i = 0; i < size; i++) {
		if (buf[i] == '\n') {
			size_t next = i + 1;

			g_array_append_val(a, next);
		}
	}
	return a;
}

/* The text at (line, col) starts with `name`. */
static bool named_at(const char *buf, size_t size, GArray *starts,
		     unsigned int line, unsigned int col, const char *name)
{
	size_t off, n = strlen(name);

	if (line < 1 || line >= starts->len)
		return false;
	off = g_array_index(starts, size_t, line) + col;
	return off <= size && size - off >= n && !memcmp(buf + off, name, n);
}

static void check_sites(const char *buf, size_t size,
			const struct scan_result *res)
{
	GArray *starts = line_starts(buf, size);

	for (guint i = 0; i < res->sites->len; i++) {
		const struct site *s = &g_array_index(res->sites,
						      struct site, i);
		char *norm;

		FUZZ_ASSERT(s->text);
		FUZZ_ASSERT(site_kind(s));
		FUZZ_ASSERT(s->end_line >= s->line);
		FUZZ_ASSERT(s->end_line < starts->len);
		FUZZ_ASSERT(!s->compat || s->compat_why);
		if (s->type == SITE_API) {
			FUZZ_ASSERT(s->api);
			FUZZ_ASSERT(named_at(buf, size, starts, s->line,
					     s->col, s->api->name));
		} else if (s->type == SITE_ULONG_CALLBACK) {
			FUZZ_ASSERT(s->callback);
			FUZZ_ASSERT(named_at(buf, size, starts, s->line,
					     s->col, s->callback));
		}
		if (s->callback && s->cb_line)
			FUZZ_ASSERT(named_at(buf, size, starts, s->cb_line,
					     s->cb_col, s->callback));
		norm = text_normalize(s->text, strlen(s->text));
		g_free(norm);
	}
	g_array_free(starts, TRUE);
}

/* Nothing to report, nothing to lend other files (callbacks, timers). */
static bool yields_nothing(const struct scan_result *res)
{
	return !res->sites->len && !res->ulong_funcs->len &&
	       !res->cb_uses->len && !res->data_assigns->len &&
	       !res->fn_assigns->len && !g_hash_table_size(res->timer_names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct scan_opts opts = { renames() };
	struct scan_result *res, *hdr;

	bool timer_bytes = memmem(buf, size, "timer", 5) ||
			   memmem(buf, size, "TIMER", 5);
	bool wanted;

	fuzz_init();
	/* the prefilter passes only text holding "timer" or "TIMER" */
	wanted = scan_prefilter(buf, size);
	FUZZ_ASSERT(!wanted || timer_bytes);
	res = scan_file(buf, size, NULL);
	hdr = scan_file(buf, size, &opts);
	/* ... and of those it skips none that yields anything */
	if (timer_bytes && !wanted) {
		FUZZ_ASSERT(yields_nothing(res));
		FUZZ_ASSERT(yields_nothing(hdr));
	}
	scan_resolve(hdr, NULL);
	scan_resolve(res, hdr->timer_names);
	if (res->handed)
		scan_add_callbacks(res, hdr->handed);
	check_sites(buf, size, res);
	check_sites(buf, size, hdr);
	scan_result_free(res);
	scan_result_free(hdr);
	return 0;
}
