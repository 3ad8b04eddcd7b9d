/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The planner's own model, shared by its three stages:
 *
 *   bind.c    what the scan and spatch saw, joined across files: which
 *             callback runs on which timer, what each timer's .data is
 *             set to, where each callback is defined, declared, called;
 *   decide.c  whether a callback can be converted, and how;
 *   plan.c    units (what must change together), their plan items and
 *             the outcome of every site.
 *
 * A timer is named by a key: "struct foo#field" when the type of the
 * expression it is reached from is known, "?file#field" when not (such a
 * key matches the known keys of that field in the same file), and
 * "global:file:name" for a timer that is not a member of a struct.
 */
#ifndef TIMERCONV_PLANNER_H
#define TIMERCONV_PLANNER_H

#include <glib.h>
#include <stdbool.h>

#include "cbody.h"
#include "conv.h"
#include "expr.h"

/* How a callback is installed on a timer. */
enum bkind {
	B_SETUP,	/* setup_timer() and friends */
	B_INIT,		/* init_timer() paired with a .function assignment */
	B_DEFINE,	/* DEFINE_TIMER(), TIMER_INITIALIZER() */
	B_FUNCTION,	/* a .function assignment of its own */
	B_LONE_INIT,	/* init_timer() given the timer's only callback */
};

/* How the callback receives what the timer hands it. */
enum pkind {
	P_ULONG,	/* unsigned long, ulong, u_long, long */
	P_POINTER,	/* a pointer to its container, installed by a cast */
	P_OTHER,
};

struct callback;

/* A timer reached by an expression in one file. */
struct tref {
	struct cfile *file;
	struct chain chain;
	bool chain_ok;
	char *key;
	char *container;	/* tag of the timer's own struct, if known */
};

struct binding {
	enum bkind kind;
	struct cfile *file;
	struct callback *cb;
	struct f_setup *setup;	/* B_SETUP, B_INIT, B_DEFINE, B_LONE_INIT */
	struct f_assign *assign; /* B_FUNCTION, and B_INIT's pairing */
	struct csite *csite;
	struct tref timer;
	bool cast;		/* the callback is written through a cast */
	bool drop_assign;	/* B_INIT: its .function line goes */
	struct callback *init_cb; /* B_LONE_INIT: the timer's one callback */
	bool declare;		/* B_LONE_INIT: init_cb needs a prototype
				 * above the function (plan.c) */
};

/* What a timer's .data is set to: a setup's data or a .data line. */
struct dsrc {
	struct cfile *file;
	struct f_setup *setup;
	struct f_assign *assign;
	struct csite *csite;	/* the .data site, for an assignment */
	struct tref timer;
	const char *value;
	const char *func;
	unsigned int line;
	struct data_rel rel;
	char *data_type;	/* struct the data points to, if known */
};

/*
 * A read of a timer's .data (if (t.data), x = t.data, t.data |= 1):
 * after timer_setup() it holds the timer's own address (v4.14), or is
 * gone (v4.15).  Or of its .function (if (t.function)): an init_timer()
 * given the timer's one callback sets it earlier than the old code did.
 */
struct dread {
	struct cfile *file;
	struct csite *csite;	/* the scan's site of a .data read */
	struct tref timer;
	bool function;		/* .function, not .data */
	unsigned int line;
	const char *func;	/* the function it is in (facts) */
	const char *object;	/* "st -> timer" (facts) */
	bool in_call;		/* the argument of a direct call of the
				 * callback, which the call's item rewrites */
};

/* A reference to a fact about a callback: a prototype, a direct call. */
struct cref {
	struct cfile *file;
	struct f_named *n;
};

struct callback {
	char *key;
	char *name;
	struct cfile *home;	/* where a static callback lives */
	const char *module;	/* the kbuild module whose definition this
				 * is, when several define the name
				 * (kmodule.h) */
	GPtrArray *bindings;	/* struct binding * */
	GPtrArray *protos;	/* struct cref * */
	GPtrArray *calls;	/* struct cref * */
	struct cfile *def_file;
	struct f_callback *def;
	char *poison;		/* a reason found before the unit forms */
	char *poison_where;
	int node;
	/* decided */
	enum pkind pkind;
	bool uses_data;
	struct f_cast *cast;
	bool icast;		/* data is only ever f((T *)data): a new
				 * local of the container takes its place */
	char *local;		/* the container variable */
	char *local_type;	/* its type, as written */
	char *container;	/* the struct it points to */
	struct cbody body;
	char *param;
	char *hop;
	char *hop_type;
	char *field;
	/* --keep-data (keep.c): the member beside the timer that holds
	 * what .data held, and the callback's new local for the container */
	char *keep_member;
	char *keep_ctype;	/* "struct cisco_state" */
	/* value.c: what the callback's data is now, when it needs no timer:
	 * the constant every setup gives, or a static beside the timer */
	char *value;
	/* back.c: the container's local, and the member leading back to
	 * the data (NULL: the data only led to the container) */
	char *back_local;
	char *back_member;
	bool back_acc;		/* the callback's own container local goes */
	bool back_void;		/* its data cast is (void *)data */
};

struct planner {
	struct conversion *cv;
	GHashTable *callbacks;	/* key -> struct callback * */
	GPtrArray *all_callbacks;
	GPtrArray *bindings;	/* struct binding *, owned */
	GPtrArray *dsrcs;	/* struct dsrc *, owned */
	GPtrArray *reads;	/* struct dread *, owned */
	GPtrArray *lone_inits;	/* struct binding * without callback */
	GHashTable *nodes;	/* timer key -> node */
	GArray *parent;		/* union-find */
	GHashTable *paired;	/* "file\nline:col" of paired assignments */
	GHashTable *declared;	/* "file\nfunc" -> callback whose prototype
				 * goes above that function */
	struct kmodules *km;	/* kmodule.c's, made when first asked */
};

/* bind.c */
char *where(const struct cfile *f, unsigned int line);
void site_refuse(struct csite *s, const char *reason);
void poison(struct callback *cb, char *at, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
bool is_ident(const char *s);
int node_find(struct planner *pl, int n);
int key_node(struct planner *pl, const char *key);
void node_union(struct planner *pl, int a, int b);
struct csite *find_csite(struct conversion *cv, struct cfile *f,
			 unsigned int line, unsigned int col,
			 enum site_type type);
struct callback *callback_get(struct planner *pl, struct cfile *f,
			      const char *name);
bool static_in(struct cfile *f, const char *name);
/* The callback a setup or assignment names: fn, &fn, (void *)fn. */
char *callback_name(const char *text, bool *cast);
void bind_all(struct planner *pl);
void planner_free(struct planner *pl);

/* keep.c: --keep-data */
/* The unit's data moves into a member beside its timer: decided, or the
 * unit refused with why not. */
bool decide_keep(struct planner *pl, struct callback *cb, struct unit *u,
		 const char *at);
/* Where a timer's data now lives, for an expression reaching the timer
 * (setup's "& st -> timer", or an assignment's object "st -> timer"). */
char *keep_lvalue(const struct unit *u, const char *timer);

/* value.c */
bool named_at_file_scope(struct cfile *f, const char *name);
bool declared_at_file_scope(struct cfile *f, const char *name,
			    unsigned int line);
unsigned int timer_declared_at(struct cfile *f, const char *name,
			       bool *alone);
bool decide_const(struct planner *pl, struct callback *cb, struct unit *u);

/* types.c: types of expressions, members of structs */
bool var_type(struct conversion *cv, struct cfile *f, const char *func,
	      const char *name, struct ctype *out);
bool type_walk(struct conversion *cv, const char *file, struct ctype *t,
	       const struct chain *c, size_t from, size_t to);
char *timer_key(struct conversion *cv, struct cfile *f, const char *func,
		const struct chain *c, char **container);
char *pointee_type(struct conversion *cv, struct cfile *f, const char *func,
		   const char *data);
/* Why struct `tag` cannot be shown to have the timer `field`, or NULL;
 * *unknown: because the tree lacks a struct definition on the way. */
const char *check_field(struct conversion *cv, const char *file,
			const char *tag, const char *field, bool *unknown);
/* A key of a timer named by a variable (no '#field' in it). */
bool named_key(const char *key);
char *local_name(const char *tag, GHashTable *taken);
bool same_timer(const struct tref *a, const struct tref *b);

/* decide.c */
bool decide_callback(struct planner *pl, struct callback *cb,
		     struct unit *u);
bool decide_lone_init(struct planner *pl, struct binding *b,
		      struct unit *u);
bool decide_dsrc(struct planner *pl, struct dsrc *d, struct unit *u);
/* The cast of cb's data spatch found (*n of them, *two: to two types). */
struct f_cast *the_cast(struct callback *cb, guint *n, bool *two);
/* Uses of cb's parameter, less those passing it on to its own timer. */
guint counted_uses(struct planner *pl, struct callback *cb);
/* back.c: data that leads back from the timer's container */
bool decide_back(struct planner *pl, struct callback *cb, struct unit *u,
		 const char *at);
/* t.data = data in cb itself, on cb's own timer: the data passed on. */
bool passthrough(const struct callback *cb, const struct dsrc *d);
bool on_own_timer(const struct callback *cb, const struct dsrc *d);
bool runs_on(const struct callback *cb, const struct tref *r);
bool bare_pointer_in(const struct tref *r, struct cfile *file,
		     const struct unit *u);
/* A .data write through a bare timer pointer that may be cb's, or NULL. */
const struct dsrc *pointer_data_write(struct planner *pl,
				      struct callback *cb, struct unit *u);
bool decide_pointer_reads(struct planner *pl, struct unit *u);
bool decide_read(struct dread *r, struct unit *u);
char *call_arg(struct planner *pl, struct callback *cb, struct cref *r,
	       struct unit *u);

#endif
