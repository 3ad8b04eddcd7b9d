// SPDX-License-Identifier: GPL-2.0
/*
 * The facts reader: spatch's stdout, "TIMERCONV {json}" lines among
 * anything else.  Then the lookups the planner makes on what it read.
 */
#include "fuzz.h"
#include "facts.h"

/* A record line json-glib would leak on (see fuzz.h). */
static bool json_glib_leaks(const char *text)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > 10 && !strncmp(line, "TIMERCONV ", 10) &&
		    fuzz_json_glib_leaks(line + 10, len - 10))
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strdup(data, size);
	struct file_facts *ff;

	fuzz_init();
	if (json_glib_leaks(text)) {
		g_free(text);
		return 0;
	}
	ff = facts_parse(text);
	FUZZ_ASSERT(ff);
	for (guint i = 0; i < ff->setups->len; i++) {
		struct f_setup *s = ff->setups->pdata[i];

		FUZZ_ASSERT(facts_setup_at(ff, s->at));
		facts_type(ff, s->func, s->timer ? s->timer : "t");
	}
	for (guint i = 0; i < ff->casts->len; i++) {
		struct f_cast *c = ff->casts->pdata[i];

		facts_type(ff, c->callback, c->local ? c->local : "x");
	}
	for (guint i = 0; i < ff->icasts->len; i++) {
		struct f_cast *c = ff->icasts->pdata[i];

		FUZZ_ASSERT(c->callback && c->type && !c->local);
	}
	facts_done(ff, "setup", "f|setup_timer|t");
	facts_free(ff);
	g_free(text);
	return 0;
}
