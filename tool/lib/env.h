/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TIMERCONV_* environment switches the driver reads, one accessor
 * each, so that they are all in one place (HACKING.md lists them with the
 * variables the driver sets for spatch).  They are for debugging and
 * measuring: a conversion never needs one.  A switch is on when its
 * variable is set, whatever the value.
 */
#ifndef TIMERCONV_ENV_H
#define TIMERCONV_ENV_H

#include <stdbool.h>

/* TIMERCONV_COCCI_DIR: the directory of the rules and timerconv.py,
 * before the source tree and DATADIR; NULL when not set. */
const char *env_cocci_dir(void);

/* TIMERCONV_KEEP_TMP: keep the temporary directories (what spatch was
 * given) and name them on stderr. */
bool env_keep_tmp(void);

/* TIMERCONV_TIMINGS: time each phase and spatch batch, on stderr. */
bool env_timings(void);

/* TIMERCONV_NO_CACHE: build the index of the tree's structs afresh,
 * without reading or writing the cache. */
bool env_no_cache(void);

/* TIMERCONV_NO_SPECULATE: facts and patch in two spatch passes, not in
 * one (speculate.h). */
bool env_no_speculate(void);

/* TIMERCONV_NO_BLANK: give spatch the files whole, no function body
 * blanked (blank.h). */
bool env_no_blank(void);

/* TIMERCONV_SPEC_DEBUG: print the plans of a file whose one-pass result
 * is thrown away because its plan changed. */
bool env_spec_debug(void);

#endif
