// SPDX-License-Identifier: GPL-2.0
/// Convert init_timer() followed by .function and .data assignments to
/// timer_setup().
///
/// init_timer(&t); t.function = fn; t.data = (unsigned long)x; becomes
/// timer_setup(&t, fn, 0); in either order of the two assignments and
/// with other statements between them, provided both are reached on
/// every path from init_timer() (an assignment made in only one branch
/// of an if is not merged).  init_timer_deferrable(), init_timer_pinned()
/// and init_timer_on_stack() carry their flags or become
/// timer_setup_on_stack().  A .function assignment elsewhere keeps
/// working with the new callback prototype and is left alone; a .data
/// assignment elsewhere has no equivalent any more, so timerconv refuses
/// the timer (facts mode reports every such assignment to it).
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@init_f depends on facts disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E;
position p;
@@

api@p(E)

@script:python depends on facts@
api << init_f.api;
e << init_f.E;
p << init_f.p;
@@

timerconv.emit("init", p, api=api, timer=e)

// init_timer() with its .function (and .data) on every path after it.
@init_pair_f depends on facts disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E, F, D;
position p, pf, pd;
@@

(
api@p(&E);
...
E.function = F@pf;
...
E.data = D@pd;
|
api@p(&E);
...
E.data = D@pd;
...
E.function = F@pf;
|
api@p(E);
...
E->function = F@pf;
...
E->data = D@pd;
|
api@p(E);
...
E->data = D@pd;
...
E->function = F@pf;
)

@script:python depends on facts@
f << init_pair_f.F;
d << init_pair_f.D;
p << init_pair_f.p;
pf << init_pair_f.pf;
pd << init_pair_f.pd;
@@

timerconv.emit("init_pair", p, fn=f, data=d,
	       fn_at=timerconv.key(pf), data_at=timerconv.key(pd))

@init_fn_f depends on facts disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E, F, D;
position p, pf;
@@

(
api@p(&E);
... when != E.data = D
E.function = F@pf;
... when != E.data = D
|
api@p(E);
... when != E->data = D
E->function = F@pf;
... when != E->data = D
)

@script:python depends on facts@
f << init_fn_f.F;
p << init_fn_f.p;
pf << init_fn_f.pf;
@@

timerconv.emit("init_pair", p, fn=f, data=None, fn_at=timerconv.key(pf),
	       data_at=None)

// Every .function and .data assignment, paired or not.
@assign_f depends on facts disable ptr_to_array@
expression E, V;
identifier fld = {function, data};
position pe, pv;
@@

(
E@pe.fld = V@pv
|
E@pe->fld = V@pv
)

@script:python depends on facts@
e << assign_f.E;
v << assign_f.V;
fld << assign_f.fld;
pe << assign_f.pe;
pv << assign_f.pv;
@@

timerconv.emit("assign", pe, field=fld, object=e, value=v,
	       value_at=timerconv.key(pv))

// The type of the variable an assigned timer is reached from, for the
// usual shapes: t.fld, p->t.fld, p->a.t.fld, p->a->t.fld, p->t[i].fld.
@assign_ty depends on facts disable ptr_to_array@
expression V, I;
identifier fld = {function, data};
identifier f1, f2;
type TY;
idexpression TY B;
position pb;
@@

(
B@pb.fld = V
|
B@pb->fld = V
|
B@pb->f1.fld = V
|
B@pb.f1.fld = V
|
B@pb->f1[I].fld = V
|
B@pb->f1.f2.fld = V
|
B@pb->f1->f2.fld = V
|
B@pb.f1.f2.fld = V
)

@script:python depends on facts@
b << assign_ty.B;
ty << assign_ty.TY;
pb << assign_ty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

// patch: merge the planned init_timer() sequences into timer_setup().
@init_p depends on patch disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E;
position p;
@@

api@p(E)

@script:python init_mk depends on patch@
p << init_p.p;
api << init_p.api;
e << init_p.E;
new_api;
flags;
@@

entry = timerconv.planned("inits", p[0].current_element, api, e)
if entry is None:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(entry["api"])
	coccinelle.flags = cocci.make_ident(entry["flags"])

@init_x depends on patch disable ptr_to_array@
identifier init_mk.new_api, init_mk.flags;
identifier api;
expression E, F, D;
position init_p.p, px;
@@

(
- api@p@px(&E);
+ new_api(&E, F, flags);
...
- E.function = F;
...
- E.data = D;
|
- api@p@px(&E);
+ new_api(&E, F, flags);
...
- E.data = D;
...
- E.function = F;
|
- api@p@px(E);
+ new_api(E, F, flags);
...
- E->function = F;
...
- E->data = D;
|
- api@p@px(E);
+ new_api(E, F, flags);
...
- E->data = D;
...
- E->function = F;
|
- api@p@px(&E);
+ new_api(&E, F, flags);
... when != E.data = D
- E.function = F;
... when != E.data = D
|
- api@p@px(E);
+ new_api(E, F, flags);
... when != E->data = D
- E->function = F;
... when != E->data = D
)

// init_timer(&E): E is the timer without its &; the plan names the
// argument as written, so report both spellings (one of them matches).
@script:python@
p << init_x.px;
api << init_x.api;
e << init_x.E;
@@

timerconv.done("inits", p[0].current_element, api, "& " + e)

@script:python@
p << init_x.px;
api << init_x.api;
e << init_x.E;
@@

timerconv.done("inits", p[0].current_element, api, e)

// report: init_timer() sequences that can or cannot be merged.
@init_r depends on report disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E, F;
position p;
@@

(
api@p(&E);
...
E.function = F;
|
api@p(E);
...
E->function = F;
)

@script:python depends on report@
api << init_r.api;
f << init_r.F;
p << init_r.p;
@@

print("%s:%s: %s(): can become timer_setup() with %s()" %
      (p[0].file, p[0].line, api, f))

@init_alone_r depends on report disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E;
position p != init_r.p;
@@

api@p(E)

@script:python depends on report@
api << init_alone_r.api;
p << init_alone_r.p;
@@

print("%s:%s: %s(): refused: no .function assignment on every path after it" %
      (p[0].file, p[0].line, api))

@data_r depends on report disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E, D;
position p;
@@

(
api(&E);
... when any
E.data@p = D;
|
api(E);
... when any
E->data@p = D;
)

@script:python depends on report@
p << data_r.p;
@@

print("%s:%s: note: .data is assigned here; timerconv refuses the timer if this is not merged into timer_setup()" %
      (p[0].file, p[0].line))
