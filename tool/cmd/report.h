/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a conversion did: the summary on stderr and the JSON report.
 */
#ifndef TIMERCONV_REPORT_H
#define TIMERCONV_REPORT_H

#include <glib.h>
#include <stdbool.h>

#include "pipeline.h"

void report_summary(struct run *r);
/* With verbose, every refused site, not the first few of each reason. */
void report_summary_full(struct run *r, bool verbose);
bool report_write(struct run *r, const char *path, GError **error);

/* Kind of a site as the report names it: setup_timer, data-field, ... */
const char *csite_kind(const struct csite *s);

#endif
