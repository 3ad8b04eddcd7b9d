/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the lexer can tell about a function body: every use of a name in
 * it (macro arguments included, which is why the count is trusted over
 * spatch's), and the parameters of the function around a position.
 */
#ifndef TIMERCONV_CBODY_H
#define TIMERCONV_CBODY_H

#include <glib.h>

#include "conv.h"

struct cbody {
	GArray *param_uses;	/* struct fpos: uses of the parameter */
	GHashTable *idents;	/* every non-member name used in the body */
	guint local_uses;	/* uses of the container variable */
	char *only_member;	/* all of them are local->only_member */
	bool decl_first;	/* the body opens with a declaration */
};

/*
 * The body of the function whose name token is at `at`, with the names
 * `param` (its parameter) and `local` (its container variable, whose
 * declaration or assignment at local_at is not counted).
 */
bool cbody_analyse(struct cfile *f, struct fpos at, const char *param,
		   const char *local, struct fpos local_at, struct cbody *out);
void cbody_clear(struct cbody *b);

/* The index of the token at `at`, or n. */
size_t token_at(const struct token *t, size_t n, struct fpos at);

/* How the function around `at` declares `name` as a timer (cbody.c). */
enum tdecl {
	TD_NONE,
	TD_OWN,		/* struct timer_list name; in its outermost block */
	TD_OTHER,	/* a pointer, or an object of an inner block */
};

enum tdecl timer_declared_in_function(struct cfile *f, struct fpos at,
				      const char *name);

/*
 * The timer a local `struct timer_list *name = &x->t;` stands for, when
 * the function enclosing `at` never changes it: "& x -> t", or NULL.
 */
char *local_alias(struct cfile *f, struct fpos at, const char *name);

/*
 * What the local `name` of the function enclosing `at` is set to, when it
 * is set once (declaration or assignment) and never changed or taken the
 * address of: the expression, spaced as spatch prints it; else NULL.
 */
char *local_value(struct cfile *f, struct fpos at, const char *name);

/*
 * In the function whose name token is at `at`: the one local declared
 * `struct tag *name = init;` whose init mentions `uses`.  False when
 * there are several; true with *name NULL when there is none.
 */
bool local_of_type(struct cfile *f, struct fpos at, const char *tag,
		   const char *uses, char **name, char **init);

/* Are the tokens at a and b in the body of one function? */
bool same_function(struct cfile *f, struct fpos a, struct fpos b);

/* Parameter names of the function enclosing `at` (empty if none). */
GHashTable *enclosing_params(struct cfile *f, struct fpos at);

#endif
