/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The candidate scan: every use of the old timer API in a file, found with
 * the C lexer (no spatch), plus what the conversion needs to know about
 * the file's timers and callbacks.
 */
#ifndef TIMERCONV_SCAN_H
#define TIMERCONV_SCAN_H

#include <glib.h>
#include <stdbool.h>

#include "api.h"

enum site_type {
	SITE_API,		/* a call of an old API name */
	SITE_DATA_ASSIGN,	/* timer.data = x */
	SITE_DATA_READ,		/* timer.data read: if (timer.data) */
	SITE_ULONG_CALLBACK,	/* a timer callback taking unsigned long */
};

struct site {
	enum site_type type;
	const struct api *api;	/* SITE_API */
	unsigned int line;	/* 1-based */
	unsigned int col;	/* 0-based */
	unsigned int end_line;
	char *func;		/* enclosing function, or NULL */
	char *text;		/* the construct's tokens, blank-normalised */
	char *callback;		/* callback argument, when a plain name */
	unsigned int cb_line;
	unsigned int cb_col;
	char *define_name;	/* inside the body of this #define */
	bool compat;		/* intentional compat code, left alone */
	char *compat_why;
};

enum param_class {
	PARAM_NONE,
	PARAM_ULONG,		/* unsigned long, ulong, u_long, long */
	PARAM_POINTER,		/* struct foo *p, void *p */
	PARAM_OTHER,		/* int, a typedef name, ... */
};

/* A function with one parameter (for ulong_funcs: an unsigned long). */
struct ulong_func {
	char *name;
	char *param;		/* NULL when unnamed (a prototype) */
	unsigned int line;
	unsigned int col;
	bool is_def;
	bool is_static;
	enum param_class cls;
};

/* A callback handed to a timer (old or new API, or .function =). */
struct cb_use {
	char *name;
	unsigned int line;
	unsigned int col;
	char *object;		/* for .function =: the timer's last name */
	bool cast;		/* written through a cast: (void *)fn */
};

/* obj.data = ... or obj.function = ..., resolved once timers are known. */
struct member_assign {
	char *object;		/* last name of the object expression */
	char *value;		/* for .function: the function name */
	unsigned int line;
	unsigned int col;
	unsigned int end_line;
	char *func;
	char *text;
	bool compat;
};

struct scan_opts {
	/* 4.15-API names the target lacks (API_RENAME): old -> new name. */
	GHashTable *renames;
};

struct scan_result {
	GArray *sites;			/* struct site */
	GArray *ulong_funcs;		/* struct ulong_func */
	GArray *other_funcs;		/* the same, other parameter types */
	GArray *cb_uses;		/* struct cb_use */
	GArray *data_assigns;		/* struct member_assign */
	GArray *data_reads;		/* struct member_assign, no value */
	GArray *fn_assigns;		/* struct member_assign */
	GHashTable *timer_names;	/* names known to be timers */
	GHashTable *handed;		/* callbacks handed to timers here */
	GHashTable *cast_handed;	/* ... of them, through a cast */
	GPtrArray *includes;		/* "quoted" includes, as written */
	GArray *compat_ranges;		/* struct line_range */
	GArray *dead_ranges;		/* #if 0 code */
	bool has_old_api;
};

bool scan_prefilter(const char *data, size_t len);
struct scan_result *scan_file(const char *data, size_t len,
			      const struct scan_opts *opts);
/* The same, lexing into `scratch` (struct token) when it is not NULL. */
struct scan_result *scan_file_reuse(const char *data, size_t len,
				    const struct scan_opts *opts,
				    GArray *scratch);

/*
 * Turn .data and .function assignments into sites now that every timer
 * name (this file's and its headers') is known.
 */
void scan_resolve(struct scan_result *res, GHashTable *header_timers);

/* Also report non-static callbacks handed to timers in other files. */
void scan_add_callbacks(struct scan_result *res, GHashTable *names);

void scan_result_free(struct scan_result *res);

/* The site's kind as check names it: old-timer-api/<kind>. */
const char *site_kind(const struct site *s);

#endif
