// SPDX-License-Identifier: GPL-2.0
/*
 * Expressions as spatch prints them (scan/expr.c): member chains, casts,
 * and how a setup's data relates to its timer, which decides whether a
 * callback can find its container with from_timer() and by which field.
 */
#include "expr.h"
#include "unit.h"

/* ---- chain_parse() ---- */

struct chain_case {
	const char *text;
	bool addr;
	const char *base;
	bool base_opaque;
	/* the segments, spelled back: "->hw", ".watchdog", ".chan[2]" */
	const char *segs[4];
	bool index_const;	/* of the segment with an index, if any */
};

static const struct chain_case chains[] = {
	{ "&priv->timer", true, "priv", false, { "->timer" } },
	/* spatch's spacing */
	{ "& p -> hw . watchdog", true, "p", false, { "->hw", ".watchdog" } },
	{ "(&p->t)", true, "p", false, { "->t" } },
	{ "((&p->t))", true, "p", false, { "->t" } },
	{ "p", false, "p", false, { NULL } },
	{ "&t", true, "t", false, { NULL } },
	/* an accessor or an element as the base, kept whole */
	{ "priv(dev)->timer", false, "priv(dev)", true, { "->timer" } },
	{ "&ports[i].timer", true, "ports[i]", true, { ".timer" } },
	{ "regs(bus, 2)->t", false, "regs(bus,2)", true, { "->t" } },
	/* an index on a member: constant when a number or in capitals */
	{ "&dev->chan[2].timer", true, "dev", false,
	  { "->chan[2]", ".timer" }, true },
	{ "&dev->chan[CHAN_TX].timer", true, "dev", false,
	  { "->chan[CHAN_TX]", ".timer" }, true },
	{ "&dev->chan[i].timer", true, "dev", false,
	  { "->chan[i]", ".timer" }, false },
};

static const char *const not_chains[] = {
	"", "&", "*p", "p + 1", "&p->", "p->3", "&p->a[i][j]",
	"f(a + b)->t", "(p", "p.", "&&p", "p->a b",
};

static char *segs_text(const struct chain *c, size_t i)
{
	const struct seg *s = c->segs->pdata[i];

	return g_strdup_printf("%s%s%s%s%s", s->arrow ? "->" : ".", s->name,
			       s->index ? "[" : "", s->index ? s->index : "",
			       s->index ? "]" : "");
}

static void test_chain_parse_member_chains(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(chains); i++) {
		const struct chain_case *k = &chains[i];
		struct chain c;
		size_t n = 0;

		g_test_message("%s", k->text);
		g_assert_true(chain_parse(k->text, &c));
		g_assert_cmpint(c.addr, ==, k->addr);
		g_assert_cmpstr(c.base, ==, k->base);
		g_assert_cmpint(c.base_opaque, ==, k->base_opaque);
		while (n < G_N_ELEMENTS(k->segs) && k->segs[n])
			n++;
		g_assert_cmpuint(c.segs->len, ==, n);
		for (size_t s = 0; s < n; s++) {
			const struct seg *g = c.segs->pdata[s];
			char *text = segs_text(&c, s);

			g_assert_cmpstr(text, ==, k->segs[s]);
			if (g->index)
				g_assert_cmpint(g->index_const, ==,
						k->index_const);
			g_free(text);
		}
		chain_clear(&c);
	}
}

static void test_chain_parse_refuses_other_expressions(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(not_chains); i++) {
		struct chain c;

		g_test_message("\"%s\"", not_chains[i]);
		g_assert_false(chain_parse(not_chains[i], &c));
		/* and leaves nothing to free */
		g_assert_null(c.base);
		g_assert_null(c.segs);
	}
}

static void test_chain_last_field_is_after_the_last_arrow(void)
{
	static const struct {
		const char *text, *field;
		size_t start;
	} cases[] = {
		{ "&p->a->b.c", "b.c", 1 },
		{ "&p->hw.watchdog", "hw.watchdog", 0 },
		{ "&q->backing_dev_info->laptop_mode_wb_timer",
		  "laptop_mode_wb_timer", 1 },
		{ "&dev->chan[2].timer", "chan[2].timer", 0 },
		/* no arrow: the base is the container */
		{ "&s.t", "t", 0 },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct chain c;
		size_t start = 99;
		char *field;

		g_assert_true(chain_parse(cases[i].text, &c));
		field = chain_last_field(&c, &start);
		g_assert_cmpstr(field, ==, cases[i].field);
		g_assert_cmpuint(start, ==, cases[i].start);
		g_free(field);
		chain_clear(&c);
	}
}

/* ---- strip_casts(), expr_compact() and friends ---- */

static void test_strip_casts_removes_integer_casts_only(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "( unsigned long ) p", "p" },
		{ "(unsigned long)&p->t", "& p -> t" },
		{ "(unsigned long)(p)", "p" },
		{ "(u32)(uintptr_t)p", "p" },
		{ "(unsigned long int) p", "p" },
		{ "(long)p", "p" },
		{ "(x)", "x" },
		/* a pointer cast to a struct stays: it names a type */
		{ "(struct foo *)p", "( struct foo * ) p" },
		{ "(a) + (b)", "( a ) + ( b )" },
		{ "p", "p" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *out = strip_casts(cases[i].in);

		g_assert_cmpstr(out, ==, cases[i].out);
		g_free(out);
	}
	g_assert_null(strip_casts(NULL));
}

static void test_expr_compact_drops_spatch_spacing(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "& p -> hw . watchdog", "&p->hw.watchdog" },
		{ "&p->hw.watchdog", "&p->hw.watchdog" },
		{ "( unsigned long ) p", "(unsigned long)p" },
		{ "f ( a , b )", "f(a, b)" },
		{ "a+b", "a + b" },
		{ "a|b", "a | b" },
		{ "x ? y : z", "x ? y : z" },
		{ "p ++", "p++" },
		{ "ports [ i ] . t", "ports[i].t" },
		{ "", "" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *out = expr_compact(cases[i].in);

		g_assert_cmpstr(out, ==, cases[i].out);
		g_free(out);
	}
}

static void test_expr_is_integer_is_one_number(void)
{
	g_assert_true(expr_is_integer("0"));
	g_assert_true(expr_is_integer("0x10"));
	g_assert_true(expr_is_integer("10UL"));
	g_assert_true(expr_is_integer(" 7 "));
	g_assert_false(expr_is_integer("-1"));
	g_assert_false(expr_is_integer("HZ"));
	g_assert_false(expr_is_integer("1 + 1"));
	g_assert_false(expr_is_integer(""));
}

static void test_expr_has_side_effects(void)
{
	static const char *const yes[] = {
		"p++", "--p", "i = 1", "x += 2", "a <<= 1", "f(x)",
		"(unsigned long)get(dev)", "&p->t[i++]",
	};
	static const char *const no[] = {
		"p", "&p->t", "(unsigned long)p", "(p)", "&p->t[i]",
		"a == b", "a != b", "a <= b", "a >= b", "a + 1",
	};

	for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
		g_test_message("%s", yes[i]);
		g_assert_true(expr_has_side_effects(yes[i]));
	}
	for (size_t i = 0; i < G_N_ELEMENTS(no); i++) {
		g_test_message("%s", no[i]);
		g_assert_false(expr_has_side_effects(no[i]));
	}
}

/* ---- data_relation() ---- */

struct rel_case {
	const char *timer, *data;
	enum relation rel;
	const char *field, *hop;
	bool data_addr;
};

static const struct rel_case rels[] = {
	{ "&p->timer", "(unsigned long)p", REL_CONTAINER, "timer" },
	{ "& p -> hw . watchdog", "( unsigned long ) p", REL_CONTAINER,
	  "hw.watchdog" },
	/* data points into the container: the field is what is left */
	{ "&p->hw.watchdog", "(unsigned long)&p->hw", REL_CONTAINER,
	  "watchdog", NULL, true },
	{ "&dev->chan[i].timer", "(unsigned long)&dev->chan[i]",
	  REL_CONTAINER, "timer", NULL, true },
	/* one pointer member between them: the seed's backing_dev_info */
	{ "&q->backing_dev_info->laptop_mode_wb_timer", "(unsigned long)q",
	  REL_CONTAINER, "laptop_mode_wb_timer", "backing_dev_info" },
	{ "&p->timer", "0", REL_INTEGER },
	{ "&p->timer", "(unsigned long)42", REL_INTEGER },
	{ "&p->timer", "(unsigned long)other", REL_NOT_CONTAINER },
	{ "&p->timer", "(unsigned long)p->next", REL_NOT_CONTAINER },
	{ "&t", "(unsigned long)&t", REL_NOT_MEMBER },
	{ "&p->timers[i]", "(unsigned long)p", REL_VARIABLE_INDEX },
	{ "&p->a->b->t", "(unsigned long)p", REL_TOO_DEEP },
};

static void test_data_relation_finds_the_container(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(rels); i++) {
		const struct rel_case *k = &rels[i];
		struct data_rel r;
		struct chain t;

		g_test_message("timer %s, data %s", k->timer, k->data);
		g_assert_true(chain_parse(k->timer, &t));
		data_relation(&t, k->data, &r);
		g_assert_cmpint(r.rel, ==, k->rel);
		if (k->rel == REL_CONTAINER) {
			g_assert_cmpstr(r.field, ==, k->field);
			g_assert_cmpstr(r.hop, ==, k->hop);
			g_assert_cmpint(r.data_addr, ==, k->data_addr);
		}
		data_rel_clear(&r);
		chain_clear(&t);
	}
}

int main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/expr/chain-parse/member-chains",
			test_chain_parse_member_chains);
	g_test_add_func("/expr/chain-parse/refuses-other-expressions",
			test_chain_parse_refuses_other_expressions);
	g_test_add_func("/expr/chain-last-field/after-the-last-arrow",
			test_chain_last_field_is_after_the_last_arrow);
	g_test_add_func("/expr/strip-casts/integer-casts-only",
			test_strip_casts_removes_integer_casts_only);
	g_test_add_func("/expr/compact/drops-spatch-spacing",
			test_expr_compact_drops_spatch_spacing);
	g_test_add_func("/expr/is-integer/one-number",
			test_expr_is_integer_is_one_number);
	g_test_add_func("/expr/has-side-effects",
			test_expr_has_side_effects);
	g_test_add_func("/expr/data-relation/finds-the-container",
			test_data_relation_finds_the_container);
	return g_test_run();
}
