/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the facts pass of the semantic patches reports about one file.
 * Positions are spatch's: 1-based lines, 0-based columns.
 */
#ifndef TIMERCONV_FACTS_H
#define TIMERCONV_FACTS_H

#include <glib.h>
#include <stdbool.h>

struct fpos {
	unsigned int line;
	unsigned int col;
};

static inline bool fpos_eq(struct fpos a, struct fpos b)
{
	return a.line == b.line && a.col == b.col;
}

enum fsetup_kind {
	FS_SETUP,	/* setup_timer() and friends */
	FS_INIT,	/* init_timer(), possibly paired with assignments */
	FS_DEFINE,	/* DEFINE_TIMER() and the static initialisers */
};

struct f_setup {
	enum fsetup_kind kind;
	char *api;
	struct fpos at;
	char *func;
	char *timer;		/* NULL for FS_DEFINE */
	char *fn;
	struct fpos fn_at;
	char *data;
	char *flags;		/* __setup_timer()'s own flags */
	/* FS_INIT: the .function assignment it is paired with, if any */
	bool paired;
	/* FS_DEFINE */
	char *name;
	char *expires;
};

struct f_assign {		/* an assignment, or a read of .data */
	char *field;		/* "function" or "data" */
	char *object;
	char *timer;		/* the timer: & object, or object for -> */
	char *value;
	struct fpos at;		/* start of the object */
	struct fpos value_at;
	char *func;
};

struct f_callback {
	char *name;
	char *param;
	char *ptype;		/* the parameter's type, as spatch prints it */
	char *ret;
	struct fpos at;
	unsigned int first;	/* extent of the function */
	unsigned int last;
};

struct f_cast {
	char *callback;
	char *local;
	char *type;		/* pointee type */
	bool assign;		/* assigned after the declaration */
	struct fpos local_at;
	struct fpos data_at;
};

struct f_named {		/* prototypes, calls, references */
	char *name;
	char *arg;		/* calls */
	char *ptype;		/* prototypes: the parameter's type */
	bool named;		/* prototypes: the parameter has a name */
	char *func;
	struct fpos at;
};

struct file_facts {
	GPtrArray *setups;	/* struct f_setup */
	GPtrArray *assigns;	/* struct f_assign */
	GPtrArray *reads;	/* struct f_assign: reads of .data and
				 * .function */
	GPtrArray *callbacks;	/* struct f_callback */
	GPtrArray *casts;	/* struct f_cast */
	GPtrArray *icasts;	/* struct f_cast, no local: f((T *)data) */
	GPtrArray *protos;	/* struct f_named */
	GPtrArray *calls;	/* struct f_named */
	GPtrArray *refs;	/* struct f_named (positions only) */
	GPtrArray *renames;	/* struct f_named: name, arg = arguments */
	GHashTable *types;	/* "func\nname" -> type */
	GHashTable *done;	/* "section\nname" (patch mode) */
	guint records;
};

struct file_facts *facts_parse(const char *text);
/* The output of a batch: the facts of each file the records name. */
GHashTable *facts_parse_files(const char *text);
void facts_free(struct file_facts *ff);
/* ff's "done" records, moved to facts of their own. */
struct file_facts *facts_take_done(struct file_facts *ff);

/* The type spatch inferred for variable `name` in function `func`. */
const char *facts_type(const struct file_facts *ff, const char *func,
		       const char *name);
bool facts_done(const struct file_facts *ff, const char *section,
		const char *name);

struct f_setup *facts_setup_at(const struct file_facts *ff, struct fpos at);

#endif
