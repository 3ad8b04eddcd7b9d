/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Expressions as spatch prints them ("& p -> hw . watchdog"): member
 * chains, casts, and how a setup's data relates to its timer.
 */
#ifndef TIMERCONV_EXPR_H
#define TIMERCONV_EXPR_H

#include <glib.h>
#include <stdbool.h>

struct seg {
	bool arrow;		/* -> (else .) */
	char *name;
	char *index;		/* [index] after the member, or NULL */
	bool index_const;
};

struct chain {
	bool addr;		/* starts with & */
	char *base;		/* the variable it starts from */
	bool base_opaque;	/* base is priv(dev) or ports[i]: no type */
	GPtrArray *segs;	/* struct seg * */
};

/* Parse a member chain; false if the text is not one. */
bool chain_parse(const char *text, struct chain *c);
void chain_clear(struct chain *c);

/* The chain as C, without its &: p->hw.watchdog; with its last member
 * named `last` instead, when not NULL: p->hw.watchdog_data. */
char *chain_text(const struct chain *c, const char *last);

/* "( unsigned long ) p" -> "p"; NULL in, NULL out. */
char *strip_casts(const char *text);

/* The expression with spatch's spacing removed: "&p->hw.watchdog". */
char *expr_compact(const char *text);

/* A lone integer constant. */
bool expr_is_integer(const char *text);

/* Would evaluating it twice, or not at all, change anything? */
bool expr_has_side_effects(const char *text);

enum relation {
	REL_CONTAINER,		/* data points to (a struct holding) the timer */
	REL_INTEGER,		/* data is an integer constant */
	REL_NOT_CONTAINER,	/* data is something else */
	REL_NOT_MEMBER,		/* the timer is not a member of a struct */
	REL_VARIABLE_INDEX,	/* &p->timers[i]: no fixed field */
	REL_TOO_DEEP,		/* more than one pointer between them */
};

struct data_rel {
	enum relation rel;
	char *hop;		/* pointer member between data and timer */
	char *field;		/* from_timer()'s field: "hw.watchdog" */
	bool data_addr;		/* data is &object */
};

void data_relation(const struct chain *timer, const char *data,
		   struct data_rel *out);
void data_rel_clear(struct data_rel *r);

/* The field path of the last pointer hop: p->a->b.c -> "b.c". */
char *chain_last_field(const struct chain *c, size_t *group_start);

#endif
