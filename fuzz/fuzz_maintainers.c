// SPDX-License-Identifier: GPL-2.0
/*
 * The MAINTAINERS parser, then the matching `series --split maintainers`
 * does: each F:, X: and N: value (and a few fixed paths) as a path, the
 * input itself as the patch text for K:.
 */
#include "fuzz.h"
#include "maintainers.h"

/* A root with nothing in it: "a directory named without its slash"
 * then finds no directory, without touching a real tree. */
#define ROOT "/nonexistent/timerconv-fuzz"

static void lookup(const struct maintainers *m, const char *path,
		   const char *text)
{
	const struct msection *s = maintainers_for(m, path, text);

	if (s) {
		FUZZ_ASSERT(s->title);
		FUZZ_ASSERT(s->index < m->sections->len);
		FUZZ_ASSERT(m->sections->pdata[s->index] == s);
	}
}

static void lookup_all(const struct maintainers *m, GPtrArray *paths,
		       const char *text)
{
	for (guint i = 0; i < paths->len && i < 32; i++)
		lookup(m, paths->pdata[i], text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {
		"drivers/net/ethernet/acme/main.c", "block/blk-core.c",
		"include/linux/timer.h", "MAINTAINERS", "a", "", NULL
	};
	char *text = fuzz_strdup(data, size);
	struct maintainers *m;

	fuzz_init();
	m = maintainers_parse(ROOT, text);
	FUZZ_ASSERT(m && m->sections);
	for (int i = 0; fixed[i]; i++)
		lookup(m, fixed[i], i ? NULL : text);
	for (guint i = 0; i < m->sections->len && i < 16; i++) {
		const struct msection *s = m->sections->pdata[i];

		FUZZ_ASSERT(s->index == i);
		lookup_all(m, s->files, NULL);
		lookup_all(m, s->excludes, text);
	}
	maintainers_free(m);
	g_free(text);
	return 0;
}
