// SPDX-License-Identifier: GPL-2.0
/* The TIMERCONV_* switches (env.h): read when asked, never cached. */
#include <glib.h>

#include "env.h"

static bool on(const char *name)
{
	return g_getenv(name) != NULL;
}

const char *env_cocci_dir(void)
{
	return g_getenv("TIMERCONV_COCCI_DIR");
}

bool env_keep_tmp(void)
{
	return on("TIMERCONV_KEEP_TMP");
}

bool env_timings(void)
{
	return on("TIMERCONV_TIMINGS");
}

bool env_no_cache(void)
{
	return on("TIMERCONV_NO_CACHE");
}

bool env_no_speculate(void)
{
	return on("TIMERCONV_NO_SPECULATE");
}

bool env_no_blank(void)
{
	return on("TIMERCONV_NO_BLANK");
}

bool env_spec_debug(void)
{
	return on("TIMERCONV_SPEC_DEBUG");
}
