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

/*
 * The timer a local `struct timer_list *name = &x->t;` stands for, when
 * the function enclosing `at` never changes it: "& x -> t", or NULL.
 */
char *local_alias(struct cfile *f, struct fpos at, const char *name);

/* Parameter names of the function enclosing `at` (empty if none). */
GHashTable *enclosing_params(struct cfile *f, struct fpos at);

#endif
