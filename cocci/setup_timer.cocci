// SPDX-License-Identifier: GPL-2.0
/// Convert setup_timer() and its variants to timer_setup().
///
/// Since v4.15 a timer callback receives the timer itself and recovers its
/// container with from_timer(), so the data argument goes and the flags
/// that the variant's name implied become timer_setup()'s third argument:
/// setup_deferrable_timer() -> TIMER_DEFERRABLE, setup_pinned_timer() ->
/// TIMER_PINNED, the _on_stack variants -> timer_setup_on_stack(), and
/// __setup_timer(t, fn, data, flags) keeps its flags.  A v4.14 tree has
/// timer_setup() but no timer_setup_on_stack(): there an on-stack timer
/// becomes __setup_timer_on_stack(t, (TIMER_FUNC_TYPE)fn,
/// (TIMER_DATA_TYPE)t, flags), which is what timer_setup() does.
///
/// A setup is only rewritten together with its callback, its prototypes
/// and every other user of that callback, possibly in other files; that
/// decision is timerconv's (tool/), which passes it in TIMERCONV_PLAN.
/// In report mode the rule works alone and lists each setup with the
/// reasons visible in this file why it could not be converted.
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`; facts mode
//  feeds it.  ptr_to_array is disabled: it would turn &p->ch[1].t into
//  &p->ch->t.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@setup_f depends on facts disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack};
expression T, F, D;
position p, pf;
@@

api@p(T, F@pf, D)

@script:python depends on facts@
api << setup_f.api;
t << setup_f.T;
f << setup_f.F;
d << setup_f.D;
p << setup_f.p;
pf << setup_f.pf;
@@

timerconv.emit("setup", p, api=api, timer=t, fn=f, data=d, flags=None,
	       fn_line=int(pf[0].line), fn_col=int(pf[0].column))

@setup4_f depends on facts disable ptr_to_array@
identifier api = {__setup_timer, __setup_timer_on_stack};
expression T, F, D, FL;
position p, pf;
@@

api@p(T, F@pf, D, FL)

@script:python depends on facts@
api << setup4_f.api;
t << setup4_f.T;
f << setup4_f.F;
d << setup4_f.D;
fl << setup4_f.FL;
p << setup4_f.p;
pf << setup4_f.pf;
@@

timerconv.emit("setup", p, api=api, timer=t, fn=f, data=d, flags=fl,
	       fn_line=int(pf[0].line), fn_col=int(pf[0].column))

// The types of the variables the timer and data expressions are built
// from, where this file declares them.
@setup_ty depends on facts disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack, __setup_timer,
	__setup_timer_on_stack};
type TY;
idexpression TY B;
position p, pb;
@@

api@p(..., <+... B@pb ...+>, ...)

@script:python depends on facts@
b << setup_ty.B;
ty << setup_ty.TY;
p << setup_ty.p;
pb << setup_ty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

// patch: rewrite the setups the plan names.  The plan names a setup by
// function, API and operands (see timerconv.py); the position only pins
// the rewrite to the match.
@setup_p depends on patch disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack};
expression T, F, D;
position p;
@@

api@p(T, F, D)

@script:python setup_mk depends on patch@
p << setup_p.p;
api << setup_p.api;
t << setup_p.T;
f << setup_p.F;
new_api;
flags;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "fn" in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.flags = cocci.make_ident(e["flags"])

@setup_x depends on patch disable ptr_to_array@
identifier setup_mk.new_api, setup_mk.flags;
identifier api;
expression T, F, D;
position setup_p.p, px;
@@

- api@p@px
+ new_api
  (T, F,
- D
+ flags
  )

@script:python@
p << setup_x.px;
api << setup_x.api;
t << setup_x.T;
f << setup_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

@setup4_p depends on patch disable ptr_to_array@
identifier api = {__setup_timer, __setup_timer_on_stack};
expression T, F, D, FL;
position p;
@@

api@p(T, F, D, FL)

@script:python setup4_mk depends on patch@
p << setup4_p.p;
api << setup4_p.api;
t << setup4_p.T;
f << setup4_p.F;
new_api;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "fn" in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])

@setup4_x depends on patch disable ptr_to_array@
identifier setup4_mk.new_api;
identifier api;
expression T, F, D, FL;
position setup4_p.p, px;
@@

- api@p@px
+ new_api
  (T, F,
- D,
  FL)

@script:python@
p << setup4_x.px;
api << setup4_x.api;
t << setup4_x.T;
f << setup4_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

// patch: a callback installed through a cast, (void *)fn, loses the
// cast with the data: the plan names the function.
@setup_c_p depends on patch disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack};
expression T, F, D;
position p;
@@

api@p(T, F, D)

@script:python setup_c_mk depends on patch@
p << setup_c_p.p;
api << setup_c_p.api;
t << setup_c_p.T;
f << setup_c_p.F;
new_api;
fn;
flags;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "fn" not in e or "data" in e or "keep" in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.flags = cocci.make_ident(e["flags"])

@setup_c_x depends on patch disable ptr_to_array@
identifier setup_c_mk.new_api, setup_c_mk.fn, setup_c_mk.flags;
identifier api;
expression T, F, D;
position setup_c_p.p, px;
@@

- api@p@px
+ new_api
  (T,
- F, D
+ fn, flags
  )

@script:python@
p << setup_c_x.px;
api << setup_c_x.api;
t << setup_c_x.T;
f << setup_c_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

@setup4_c_p depends on patch disable ptr_to_array@
identifier api = {__setup_timer, __setup_timer_on_stack};
expression T, F, D, FL;
position p;
@@

api@p(T, F, D, FL)

@script:python setup4_c_mk depends on patch@
p << setup4_c_p.p;
api << setup4_c_p.api;
t << setup4_c_p.T;
f << setup4_c_p.F;
new_api;
fn;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "fn" not in e or "data" in e or "keep" in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.fn = cocci.make_ident(e["fn"])

@setup4_c_x depends on patch disable ptr_to_array@
identifier setup4_c_mk.new_api, setup4_c_mk.fn;
identifier api;
expression T, F, D, FL;
position setup4_c_p.p, px;
@@

- api@p@px
+ new_api
  (T,
- F, D,
+ fn,
  FL)

@script:python@
p << setup4_c_x.px;
api << setup4_c_x.api;
t << setup4_c_x.T;
f << setup4_c_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

// patch: an on-stack timer where the target lacks timer_setup_on_stack()
// (v4.14): __setup_timer_on_stack() with the callback cast to
// TIMER_FUNC_TYPE and the timer itself as data, as timer_setup() does.
@setup_l_p depends on patch disable ptr_to_array@
identifier api = {setup_timer_on_stack, setup_pinned_timer_on_stack,
	setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack};
expression T, F, D;
position p;
@@

api@p(T, F, D)

@script:python setup_l_mk depends on patch@
p << setup_l_p.p;
api << setup_l_p.api;
t << setup_l_p.T;
f << setup_l_p.F;
new_api;
fn;
data;
flags;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "data" not in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.data = cocci.make_ident(e["data"])
	coccinelle.flags = cocci.make_ident(e["flags"])

@setup_l_x depends on patch disable ptr_to_array@
identifier setup_l_mk.new_api, setup_l_mk.fn, setup_l_mk.data;
identifier setup_l_mk.flags;
identifier api;
expression T, F, D;
position setup_l_p.p, px;
@@

- api@p@px
+ new_api
  (T,
- F, D
+ fn, data, flags
  )

@script:python@
p << setup_l_x.px;
api << setup_l_x.api;
t << setup_l_x.T;
f << setup_l_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

@setup4_l_p depends on patch disable ptr_to_array@
identifier api = {__setup_timer_on_stack};
expression T, F, D, FL;
position p;
@@

api@p(T, F, D, FL)

@script:python setup4_l_mk depends on patch@
p << setup4_l_p.p;
api << setup4_l_p.api;
t << setup4_l_p.T;
f << setup4_l_p.F;
fn;
data;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "data" not in e:
	cocci.include_match(False)
else:
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.data = cocci.make_ident(e["data"])

@setup4_l_x depends on patch disable ptr_to_array@
identifier setup4_l_mk.fn, setup4_l_mk.data;
identifier api;
expression T, F, D, FL;
position setup4_l_p.p, px;
@@

  api@p@px(T,
- F, D,
+ fn, data,
  FL)

@script:python@
p << setup4_l_x.px;
api << setup4_l_x.api;
t << setup4_l_x.T;
f << setup4_l_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

// patch, --keep-data: the setup's data goes to the member beside the
// timer, set right after it (a statement of its own).
@setup_k_p depends on patch disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer};
expression T, F, D;
position p;
@@

api@p(T, F, D);

@script:python setup_k_mk depends on patch@
p << setup_k_p.p;
api << setup_k_p.api;
t << setup_k_p.T;
f << setup_k_p.F;
new_api;
fn;
flags;
lv;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "keep" not in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.flags = cocci.make_ident(e["flags"])
	coccinelle.lv = cocci.make_ident(e["keep"])

@setup_k_x depends on patch disable ptr_to_array@
identifier setup_k_mk.new_api, setup_k_mk.fn, setup_k_mk.flags;
identifier setup_k_mk.lv;
identifier api;
expression T, F, D;
position setup_k_p.p, px;
@@

- api@p@px(T, F, D);
+ new_api(T, fn, flags);
+ lv = D;

@script:python@
p << setup_k_x.px;
api << setup_k_x.api;
t << setup_k_x.T;
f << setup_k_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

@setup4_k_p depends on patch disable ptr_to_array@
identifier api = {__setup_timer};
expression T, F, D, FL;
position p;
@@

api@p(T, F, D, FL);

@script:python setup4_k_mk depends on patch@
p << setup4_k_p.p;
api << setup4_k_p.api;
t << setup4_k_p.T;
f << setup4_k_p.F;
new_api;
fn;
lv;
@@

e = timerconv.planned("setups", p[0].current_element, api, t, f)
if e is None or "keep" not in e:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(e["api"])
	coccinelle.fn = cocci.make_ident(e["fn"])
	coccinelle.lv = cocci.make_ident(e["keep"])

@setup4_k_x depends on patch disable ptr_to_array@
identifier setup4_k_mk.new_api, setup4_k_mk.fn, setup4_k_mk.lv;
identifier api;
expression T, F, D, FL;
position setup4_k_p.p, px;
@@

- api@p@px(T, F, D, FL);
+ new_api(T, fn, FL);
+ lv = D;

@script:python@
p << setup4_k_x.px;
api << setup4_k_x.api;
t << setup4_k_x.T;
f << setup4_k_x.F;
@@

timerconv.done("setups", p[0].current_element, api, t, f)

// report: each setup, with what can be told from this file alone.
@setup_r depends on report disable ptr_to_array@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack, __setup_timer,
	__setup_timer_on_stack};
expression T, D;
identifier F;
position p;
@@

api@p(T, F, D, ...)

@script:python depends on report@
api << setup_r.api;
t << setup_r.T;
f << setup_r.F;
d << setup_r.D;
p << setup_r.p;
@@

import re
words = t.split()
data = re.sub(r"^(\( [^()]* \) )+", "", d)
if re.search(r"\[ [a-z_][a-z0-9_]* \]", t):
	why = "refused: callback cannot recover its container (variable array index)"
elif not t.startswith("& "):
	why = "refused unless %s() ignores its data: the timer is not a member of a structure" % f
elif not (t.startswith("& " + data + " -> ") or
	  (data.startswith("& ") and t.startswith("& " + data[2:] + " ."))):
	why = "refused unless %s() ignores its data: data is not the timer's container" % f
else:
	why = "can become timer_setup(); %s() then recovers its container with from_timer()" % f
print("%s:%s: %s(): %s" % (p[0].file, p[0].line, api, why))

@setup_helper_r depends on report@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack, __setup_timer,
	__setup_timer_on_stack};
identifier helper, fn;
expression T, D;
type R, FT;
position p;
@@

R helper(..., FT fn, ...)
{
	<+...
	api@p(T, fn, D, ...)
	...+>
}

@script:python depends on report@
fn << setup_helper_r.fn;
p << setup_helper_r.p;
@@

print("%s:%s: refused: setup inside a helper that receives %s as a parameter" %
      (p[0].file, p[0].line, fn))
