/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an identifier names, as C resolves names, from the tokens alone:
 * is `reset_timer` at this spot the function of that name (or whatever
 * else the file declares by that name at file scope), or a struct member
 * (np->reset_timer, .reset_timer =, a member declaration), a tag, a
 * label, or a parameter, local variable or enumerator that hides it?
 *
 * Only what the tokens prove is taken from them: where a declaration
 * cannot be told from an expression, the identifier stays ordinary (a
 * use), so that a caller that treats ordinary identifiers as uses of a
 * function never misses one.
 */
#ifndef TIMERCONV_NAMES_H
#define TIMERCONV_NAMES_H

#include <glib.h>
#include <stdbool.h>

#include "lexer.h"

enum name_role {
	NAME_ORDINARY,	/* the file-scope binding of the name */
	NAME_MEMBER,	/* p->name, x.name, .name =, a member declaration,
			 * container_of(p, T, name) */
	NAME_TAG,	/* struct name */
	NAME_LABEL,	/* goto name; name: */
	NAME_LOCAL,	/* a parameter, a local or an enumerator in a block,
			 * a macro's parameter, or a use in their scope */
	NAME_DIRECTIVE,	/* #ifdef name, #undef name, #define name */
};

struct name_use {
	guint32 tok;		/* index into the token array */
	guint8 role;		/* enum name_role */
};

enum name_decl_kind {
	DECL_EXTERN,	/* a function declared without static: the file
			 * names the external function */
	DECL_OWN,	/* the file's own: a static function or object, a
			 * typedef, an enumerator */
};

/* A declaration of a name at file scope. */
struct name_decl {
	guint32 tok;
	guint8 kind;		/* enum name_decl_kind */
	bool conditional;	/* under #if (a header's guard aside), or not
				 * at the start of a line */
};

/* Is the identifier token one of the names asked about? */
typedef bool (*name_wanted_fn)(const struct token *tok, void *ctx);

/*
 * Resolve the identifiers of t[0..n) that `wanted` accepts: one
 * struct name_use each in `uses` (in token order), and their file-scope
 * declarations in `decls`.
 */
void names_resolve(const struct token *t, size_t n, name_wanted_fn wanted,
		   void *ctx, GArray *uses, GArray *decls);

#endif
