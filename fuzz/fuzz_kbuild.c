// SPDX-License-Identifier: GPL-2.0
/*
 * The kbuild list reader (kmodule.c): a tree's Makefile or Kbuild file,
 * any text at all.  What it says of an object is a composite's name (no
 * blank in it), "" for an object of its own, or nothing.
 */
#include "fuzz.h"
#include "kmodule.h"

static const char *const objs[] = { "a.o", "core/a.o", "foo.o", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	fuzz_init();
	text = g_strndup((const char *)data, size);
	for (int i = 0; objs[i]; i++) {
		char *comp = kmodule_parse_member(text, objs[i]);

		FUZZ_ASSERT(!comp || !strpbrk(comp, " \t\n"));
		g_free(comp);
	}
	g_free(text);
	return 0;
}
