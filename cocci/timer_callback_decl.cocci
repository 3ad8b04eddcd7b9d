// SPDX-License-Identifier: GPL-2.0
/// Declare a converted callback above a function that now names it.
///
/// init_timer(&t) with the timer's .function set elsewhere becomes
/// timer_setup(&t, fn, 0): the new code names fn where the old code did
/// not.  When fn is defined further down the file and nothing declares
/// it above, its new prototype goes right above the function:
///	static void fn(struct timer_list *t);
///
///	static void foo_fill_fifo(struct foo *cs)
///	{
///		...
///		timer_setup(&cs->timer, fn, 0);
/// Which functions need one is timerconv's decision (TIMERCONV_PLAN).
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@decl_p depends on patch@
identifier f : script:python () { timerconv.declares_above(f) };
type R;
position p;
@@

R f@p(...) { ... }

@script:python decl_mk depends on patch@
f << decl_p.f;
fn;
param;
@@

e = timerconv.planned("decls", f)
if e is None or e["static"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.param = cocci.make_ident(e["param"])

@decl_x depends on patch@
identifier f, decl_mk.fn, decl_mk.param;
type R;
position decl_p.p;
@@

+ static void fn(struct timer_list *param);
+
  R f@p(...) { ... }

@script:python@
f << decl_x.f;
@@

timerconv.done("decls", f)

@decl_g_p depends on patch@
identifier f : script:python () { timerconv.declares_above(f) };
type R;
position p;
@@

R f@p(...) { ... }

@script:python decl_g_mk depends on patch@
f << decl_g_p.f;
fn;
param;
@@

e = timerconv.planned("decls", f)
if e is None or e["static"] != "no":
	cocci.include_match(False)
else:
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.param = cocci.make_ident(e["param"])

@decl_g_x depends on patch@
identifier f, decl_g_mk.fn, decl_g_mk.param;
type R;
position decl_g_p.p;
@@

+ void fn(struct timer_list *param);
+
  R f@p(...) { ... }

@script:python@
f << decl_g_x.f;
@@

timerconv.done("decls", f)
