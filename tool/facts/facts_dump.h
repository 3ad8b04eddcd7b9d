/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TIMERCONV_FACTS_DUMP=DIR: after the facts pass, write what the planner
 * is about to consume, the text of every file of the conversion and the
 * records spatch printed about it, as inputs of the planner's fuzz target
 * (fuzz/fuzz_plan.c), one for each set of files that share callback
 * names.  The format (one "#" line a header or record, anything else
 * the current file's text):
 *
 *   #plan LEVEL [paths]      the target level; "paths": PATHs were given
 *   #file PATH FLAGS         a file: in (in scope), out, idx (only in
 *                            the struct index), failed (spatch failed)
 *   #rec {json}              a record, its "file" the PATH it is about
 */
#ifndef TIMERCONV_FACTS_DUMP_H
#define TIMERCONV_FACTS_DUMP_H

#include <glib.h>

#include "conv.h"

/* files: the struct cfile * given to spatch; records: their record lines
 * as spatch printed them (char *, NULL for none), in the same order. */
void facts_dump(const char *dir, struct conversion *cv, bool paths,
		GPtrArray *files, GPtrArray *records);

#endif
