// SPDX-License-Identifier: GPL-2.0
/// Convert direct calls of timer callbacks, and find every other use of
/// a callback's name.
///
/// A callback called directly with its container,
///	foo_timeout((unsigned long)p);
/// is called with the timer instead once it takes struct timer_list *:
///	foo_timeout(&p->timer);
/// and with NULL when it ignores its argument.  In facts mode every use
/// of a callback name is reported, so that timerconv can refuse a
/// callback whose address escapes (an ops table, a comparison, an
/// argument to another function): those uses cannot follow the change of
/// prototype safely.
//
// Confidence: High
// Comments: the callback names come from timerconv
//  (TIMERCONV_CALLBACKS); patch mode needs its plan.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@call_f depends on facts@
identifier cb : script:python () { timerconv.is_callback(cb) };
expression A;
position p;
@@

cb@p(A)

// A constrained identifier cannot be inherited: match again to name it.
@call_name_f depends on facts@
identifier fn;
expression A;
position call_f.p;
@@

fn@p(A)

@script:python depends on facts@
fn << call_name_f.fn;
a << call_name_f.A;
p << call_f.p;
@@

timerconv.emit("call", p, name=fn, arg=a)

@call_ty depends on facts@
identifier fn;
type TY;
idexpression TY B;
position call_f.p, pb;
@@

fn@p(<+... B@pb ...+>)

@script:python depends on facts@
b << call_ty.B;
ty << call_ty.TY;
p << call_f.p;
pb << call_ty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

@ref_f depends on facts@
identifier cb : script:python () { timerconv.is_callback(cb) };
position p;
@@

cb@p

@script:python depends on facts@
p << ref_f.p;
@@

timerconv.emit("ref", p)

// patch: a call is named by its function, the callback and the argument.
// Only calls of a callback the plan names reach Python: spatch cannot hand
// it an argument that is not UTF-8 (a Latin-1 string literal), and that
// failure would cost the file every other rewrite.
@call_p depends on patch@
identifier cb : script:python () { timerconv.called(cb) };
expression A;
position p;
@@

cb@p(A)

@call_name_p depends on patch@
identifier fn;
expression A;
position call_p.p;
@@

fn@p(A)

@script:python call_mk depends on patch@
p << call_p.p;
fn << call_name_p.fn;
a << call_name_p.A;
arg;
@@

e = timerconv.planned("calls", p[0].current_element, fn, a)
if e is None:
	cocci.include_match(False)
else:
	coccinelle.arg = cocci.make_expr(e["arg"])

@call_x depends on patch@
identifier fn;
expression A;
expression call_mk.arg;
position call_p.p, px;
@@

  fn@p@px(
- A
+ arg
  )

@script:python@
p << call_x.px;
fn << call_x.fn;
a << call_x.A;
@@

timerconv.done("calls", p[0].current_element, fn, a)
