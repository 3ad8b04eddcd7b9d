// SPDX-License-Identifier: GPL-2.0
/*
 * Data that a callback can have without its timer: a constant that every
 * setup and .data line of its timers gives alike (setup_timer(&t, fn,
 * 10), t.data = POWERDOWN_FREQ), or, with --keep-data, a static variable
 * beside a file-scope timer.  The callback then starts
 *
 *	static void blink(struct timer_list *unused)
 *	{
 *		unsigned long data = 10;	(or blink_timer_data)
 *
 * and goes on as before.  The lexer says what C would: where a name is
 * declared at file scope, and whether it is declared above a line.
 */
#include <string.h>

#include "planner.h"
#include "util.h"

/*
 * Is name at file scope (or #defined) in f above `line`?  With `params`,
 * a parameter name in a function's header counts too.
 */
static bool at_file_scope(struct cfile *f, const char *name,
			  unsigned int line, bool params)
{
	size_t n, len = strlen(name);
	const struct token *t = cfile_tokens(f, &n);
	int depth = 0, paren = 0;

	for (size_t i = 0; i < n && t[i].line < line; i++) {
		if (t[i].flags & TF_PP) {
			if (t[i].pp == PP_DEFINE && i > 0 &&
			    (t[i - 1].flags & TF_PP) &&
			    !(t[i].flags & TF_DEFINE_BODY) &&
			    tok_is(&t[i], name, len) &&
			    TOK_IS(&t[i - 1], "define"))
				return true;
			continue;
		}
		if (tok_punct(&t[i], '{'))
			depth++;
		else if (tok_punct(&t[i], '}') && depth > 0)
			depth--;
		else if (!depth && !params && tok_punct(&t[i], '('))
			paren++;
		else if (!depth && !params && tok_punct(&t[i], ')') &&
			 paren > 0)
			paren--;
		else if (!depth && !paren && tok_is(&t[i], name, len) &&
			 (i == 0 || !(tok_punct(&t[i - 1], '.') ||
				      TOK_IS(&t[i - 1], "->"))))
			return true;
	}
	return false;
}

/* Is name declared at file scope (or #defined) in f above `line`? */
bool declared_at_file_scope(struct cfile *f, const char *name,
			    unsigned int line)
{
	return at_file_scope(f, name, line, true);
}

/* Is name a file-scope name of f (a variable, function or #define: not
 * only a parameter of some function)? */
bool named_at_file_scope(struct cfile *f, const char *name)
{
	return at_file_scope(f, name, G_MAXUINT, false);
}

/*
 * `struct timer_list name;` (or `= ...;`, or DEFINE_TIMER(name, ...)) at
 * file scope: the line the declaration ends on, or 0.  *alone tells
 * whether name is its only declarator; `struct timer_list a, name;`
 * counts, `struct timer_list *name` and `name[2]` do not.
 */
unsigned int timer_declared_at(struct cfile *f, const char *name,
			       bool *alone)
{
	size_t n, len = strlen(name);
	const struct token *t = cfile_tokens(f, &n);
	int depth = 0;

	for (size_t i = 0; i + 2 < n; i++) {
		size_t k, names = 0;
		bool self = false, plain = false;
		int paren = 0;

		if (t[i].flags & TF_PP)
			continue;
		if (tok_punct(&t[i], '{'))
			depth++;
		else if (tok_punct(&t[i], '}') && depth > 0)
			depth--;
		if (depth)
			continue;
		if (TOK_IS(&t[i], "DEFINE_TIMER") && tok_punct(&t[i + 1], '(') &&
		    tok_is(&t[i + 2], name, len)) {
			k = tok_match_close(t, n, i + 1);
			*alone = true;
			return k < n ? t[k].line : 0;
		}
		if (!TOK_IS(&t[i], "struct") || !TOK_IS(&t[i + 1], "timer_list"))
			continue;
		/* the declarators up to ';', outside initialisers */
		for (k = i + 2; k < n && !tok_punct(&t[k], ';'); k++) {
			if (tok_punct(&t[k], '(') || tok_punct(&t[k], '{'))
				paren++;
			else if (tok_punct(&t[k], ')') || tok_punct(&t[k], '}'))
				paren--;
			else if (!paren && tok_punct(&t[k], '='))
				for (k++; k < n && !(tok_punct(&t[k], ';') ||
						     (!paren &&
						      tok_punct(&t[k], ','))); k++)
					paren += tok_punct(&t[k], '(') -
						 tok_punct(&t[k], ')');
			if (k >= n || tok_punct(&t[k], ';'))
				break;
			if (!paren && tok_punct(&t[k], ','))
				names++;
			if (!paren && tok_is(&t[k], name, len)) {
				self = true;
				plain = (tok_punct(&t[k - 1], ',') ||
					 TOK_IS(&t[k - 1], "timer_list")) &&
					k + 1 < n &&
					(tok_punct(&t[k + 1], ',') ||
					 tok_punct(&t[k + 1], ';') ||
					 tok_punct(&t[k + 1], '='));
			}
		}
		if (self) {
			*alone = names == 0;
			return plain && k < n ? t[k].line : 0;
		}
	}
	return 0;
}

/* A value that is the same at every moment: an integer, a constant's
 * name (capitals, by kernel convention), the address of a name. */
static bool constant_value(const char *bare, char **name)
{
	const char *p = bare;

	*name = NULL;
	if (expr_is_integer(bare))
		return true;
	if (p[0] == '&')
		p++;
	while (*p == ' ')
		p++;
	if (!is_ident(p))
		return false;
	for (const char *c = p; bare[0] != '&' && *c; c++)
		if (g_ascii_islower(*c))
			return false;
	*name = g_strdup(p);
	return true;
}

/*
 * Does the statement at `a` run, whenever the one at `b` does, just
 * before it?  Both in one block, `a` a statement of its own (not the body
 * of a braceless if or else), nothing between them that branches, loops,
 * labels or is a preprocessor line; with `no_calls`, no call after the
 * statement at `a` either.
 */
static bool runs_just_before(struct cfile *f, struct fpos a, struct fpos b,
			     bool no_calls)
{
	static const char *const stops[] = {
		"if", "else", "for", "while", "do", "switch", "case",
		"default", "goto", "return", "break", "continue", NULL
	};
	size_t n;
	const struct token *t = cfile_tokens(f, &n);
	size_t ia = token_at(t, n, a), ib = token_at(t, n, b);

	if (ia == 0 || ia >= ib || ib >= n)
		return false;
	if (!tok_punct(&t[ia - 1], ';') && !tok_punct(&t[ia - 1], '{') &&
	    !tok_punct(&t[ia - 1], '}'))
		return false;
	for (size_t k = ia, ends = 0; k < ib; k++) {
		if ((t[k].flags & TF_PP) || tok_punct(&t[k], '{') ||
		    tok_punct(&t[k], '}') || tok_punct(&t[k], ':') ||
		    tok_punct(&t[k], '?') || tok_in(&t[k], stops))
			return false;
		if (no_calls && ends && tok_punct(&t[k], '('))
			return false;
		ends += tok_punct(&t[k], ';');
	}
	return true;
}

/*
 * DEFINE_TIMER(t, NULL, 0, 0)'s data reaches no callback when every way
 * cb becomes t's callback is a .function line with a .data line of t
 * just before it, or just after it with no call between them (nothing
 * can arm t there): the define's data is then never what the callback
 * gets.
 */
static bool define_data_unseen(struct planner *pl, struct callback *cb,
			       const struct dsrc *def)
{
	if (!def->setup || def->setup->kind != FS_DEFINE ||
	    g_strcmp0(def->setup->fn, "NULL"))
		return false;
	for (guint i = 0; i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		bool set = false;

		if (!same_timer(&b->timer, &def->timer))
			continue;
		if (b->kind != B_FUNCTION || !b->assign)
			return false;
		for (guint k = 0; k < pl->dsrcs->len && !set; k++) {
			struct dsrc *d = pl->dsrcs->pdata[k];

			set = d != def && d->assign && d->file == b->file &&
			      same_timer(&b->timer, &d->timer) &&
			      (runs_just_before(b->file, d->assign->at,
						b->assign->at, false) ||
			       runs_just_before(b->file, b->assign->at,
						d->assign->at, true));
		}
		if (!set)
			return false;
	}
	return true;
}

/*
 * Every data source of cb's timers gives the same constant, one the
 * callback's file declares above it: the callback uses it.
 */
bool decide_const(struct planner *pl, struct callback *cb, struct unit *u)
{
	const char *value = NULL;
	char *bare_first = NULL, *name = NULL;
	bool ok = cb->pkind == P_ULONG;

	if (ok && !cb->body.idents)
		ok = cbody_analyse(cb->def_file, cb->def->at, cb->def->param,
				   NULL, (struct fpos){ 0, 0 }, &cb->body);

	for (guint i = 0; ok && i < cb->bindings->len; i++) {
		struct binding *b = cb->bindings->pdata[i];
		bool any = false;

		for (guint k = 0; ok && k < pl->dsrcs->len; k++) {
			struct dsrc *d = pl->dsrcs->pdata[k];
			char *bare;

			if (!same_timer(&b->timer, &d->timer) ||
			    (passthrough(cb, d) && on_own_timer(cb, d)) ||
			    define_data_unseen(pl, cb, d))
				continue;
			any = true;
			bare = d->value ? strip_casts(d->value) : NULL;
			if (!bare)
				ok = false;
			else if (!bare_first) {
				bare_first = expr_compact(bare);
				value = d->value;
			} else {
				char *c = expr_compact(bare);

				ok = !strcmp(c, bare_first);
				g_free(c);
			}
			g_free(bare);
		}
		ok &= any;
	}
	ok = ok && bare_first && constant_value(bare_first, &name) &&
	     (!name || declared_at_file_scope(cb->def_file, name,
					       cb->def->at.line));
	if (ok) {
		cb->value = expr_compact(value);
		cb->uses_data = true;
	}
	g_free(bare_first);
	g_free(name);
	return ok;
}
