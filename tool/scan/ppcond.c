// SPDX-License-Identifier: GPL-2.0
/*
 * Recognise compat branches the way an out-of-tree maintainer writes them:
 *
 *	#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 15, 0)
 *		setup_timer(&p->timer, fn, (unsigned long)p);
 *	#else
 *		timer_setup(&p->timer, fn, 0);
 *	#endif
 *
 * and the variants with project-specific version macros, #ifdef on a timer
 * API macro, or a branch whose sibling already uses the new API.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "ppcond.h"

struct group {
	unsigned int first_line;
	unsigned int branch_line;	/* where the current branch starts */
	int constant;			/* #if 0 / #if 1: that value, else -1 */
	bool compat;
	bool branch_old;	/* the current branch uses the old API */
	bool branch_new;
	bool any_old;		/* some earlier branch did */
	bool any_new;
};

static bool ident_has(const struct token *tok, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= tok->len; i++)
		if (!g_ascii_strncasecmp(tok->p + i, needle, n))
			return true;
	return false;
}

static bool versionish(const struct token *tok)
{
	return ident_has(tok, "VERSION") || ident_has(tok, "KERNEL") ||
	       ident_has(tok, "LINUX") || ident_has(tok, "RHEL");
}

static bool timer_macro(const struct token *tok)
{
	static const char *const parts[] = {
		"timer_setup", "from_timer", "setup_timer", "init_timer",
		"timer_container_of", "timer_delete", "timer_data_type",
		"timer_func_type", NULL
	};

	if (api_is_timer_name(tok->p, tok->len))
		return true;
	for (int i = 0; parts[i]; i++)
		if (ident_has(tok, parts[i]))
			return true;
	return false;
}

static long number(const struct token *tok)
{
	char buf[32];
	char *end;
	long v;

	if (tok->kind != TOK_NUMBER || tok->len >= sizeof(buf))
		return -1;
	memcpy(buf, tok->p, tok->len);
	buf[tok->len] = '\0';
	v = strtol(buf, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return *end ? -1 : v;
}

/* (major, minor) at or below 4.15, and plausibly a kernel version. */
static bool old_version(long major, long minor)
{
	if (major < 2 || major > 4 || minor < 0)
		return false;
	return major < 4 || minor <= 15;
}

/*
 * Does the condition in tokens[from, to) name an old kernel version or a
 * timer API macro?
 */
static bool compat_condition(const struct token *t, size_t from, size_t to)
{
	bool version = false;

	for (size_t i = from; i < to; i++) {
		if (t[i].kind == TOK_IDENT && timer_macro(&t[i]))
			return true;
		if (t[i].kind == TOK_IDENT && versionish(&t[i]))
			version = true;
	}
	if (!version)
		return false;
	for (size_t i = from; i < to; i++) {
		long v;

		/* KERNEL_VERSION(4, 15, 0), FOO_AT_LEAST(4, 14, ...) */
		if (i + 4 < to && tok_punct(&t[i], '(') &&
		    tok_punct(&t[i + 2], ',') &&
		    old_version(number(&t[i + 1]), number(&t[i + 3])))
			return true;
		/* LINUX_VERSION_CODE < 0x040f00 */
		v = number(&t[i]);
		if (v >= 0x20600 && v <= 0x40fff &&
		    t[i].len > 2 && (t[i].p[1] == 'x' || t[i].p[1] == 'X'))
			return true;
	}
	return false;
}

/* A condition that is a lone 0 or 1. */
static int constant_condition(const struct token *t, size_t from, size_t to)
{
	if (to != from + 1 || t[from].kind != TOK_NUMBER || t[from].len != 1)
		return -1;
	if (t[from].p[0] == '0')
		return 0;
	return t[from].p[0] == '1' ? 1 : -1;
}

static void dead_branch(GArray *dead, struct group *g, unsigned int line,
			int branch_value)
{
	struct line_range r = { g->branch_line, line };

	if (branch_value == 0)
		g_array_append_val(dead, r);
}

static void close_branch(struct group *g)
{
	g->any_old |= g->branch_old;
	g->any_new |= g->branch_new;
	g->branch_old = false;
	g->branch_new = false;
}

static void new_branch(struct group *g)
{
	/* A branch on the old API whose sibling is on the new one. */
	if ((g->branch_old && g->any_new) || (g->branch_new && g->any_old))
		g->compat = true;
	close_branch(g);
}

GArray *ppcond_compat_ranges(const struct token *t, size_t ntok,
			     const unsigned char *mark, GArray **dead)
{
	GArray *ranges = g_array_new(FALSE, FALSE, sizeof(struct line_range));

	*dead = g_array_new(FALSE, FALSE, sizeof(struct line_range));
	GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct group));

	for (size_t i = 0; i < ntok; i++) {
		enum pp_kind pp = t[i].pp;
		struct group *top = stack->len ?
			&g_array_index(stack, struct group, stack->len - 1) :
			NULL;
		size_t end;

		if (!(t[i].flags & TF_PP)) {
			if (!(mark[i] & (MARK_OLD_API | MARK_NEW_API)))
				continue;
			for (guint s = 0; s < stack->len; s++) {
				struct group *g = &g_array_index(stack,
							struct group, s);

				if (mark[i] & MARK_OLD_API)
					g->branch_old = true;
				if (mark[i] & MARK_NEW_API)
					g->branch_new = true;
			}
			continue;
		}
		/* Only act on the directive name token. */
		if (i == 0 || !tok_punct(&t[i - 1], '#') ||
		    t[i].kind != TOK_IDENT)
			continue;
		end = i + 1;
		while (end < ntok && t[end].kind != TOK_PP_END &&
		       t[end].kind != TOK_EOF)
			end++;
		switch (pp) {
		case PP_IF:
		case PP_IFDEF:
		case PP_IFNDEF: {
			struct group g = { .first_line = t[i].line,
					   .branch_line = t[i].line };

			g.compat = compat_condition(t, i + 1, end);
			g.constant = pp == PP_IF ?
				constant_condition(t, i + 1, end) : -1;
			g_array_append_val(stack, g);
			break;
		}
		case PP_ELIF:
			if (!top)
				break;
			if (top->constant >= 0)
				dead_branch(*dead, top, t[i].line,
					    top->constant);
			top->constant = -1;
			top->branch_line = t[i].line;
			new_branch(top);
			if (compat_condition(t, i + 1, end))
				top->compat = true;
			break;
		case PP_ELSE:
			if (!top)
				break;
			if (top->constant >= 0) {
				dead_branch(*dead, top, t[i].line,
					    top->constant);
				/* The #else of #if 1 is dead, of #if 0 live. */
				top->constant = !top->constant;
			}
			top->branch_line = t[i].line;
			new_branch(top);
			break;
		case PP_ENDIF:
			if (!top)
				break;
			if (top->constant >= 0)
				dead_branch(*dead, top, t[i].line,
					    top->constant);
			new_branch(top);
			if (top->compat) {
				struct line_range r = { top->first_line,
							t[i].line };

				g_array_append_val(ranges, r);
			}
			g_array_set_size(stack, stack->len - 1);
			break;
		default:
			break;
		}
		i = end - 1;
	}
	g_array_free(stack, TRUE);
	return ranges;
}

bool line_in_ranges(const GArray *ranges, unsigned int line)
{
	for (guint i = 0; ranges && i < ranges->len; i++) {
		const struct line_range *r =
			&g_array_index(ranges, struct line_range, i);

		if (line >= r->first && line <= r->last)
			return true;
	}
	return false;
}
