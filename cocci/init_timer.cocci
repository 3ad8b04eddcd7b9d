// SPDX-License-Identifier: GPL-2.0
/// Convert init_timer() to timer_setup().
///
/// init_timer(&t); t.function = fn; becomes timer_setup(&t, fn, 0), and
/// so does t.function = fn; init_timer(&t); (init_timer() never cleared
/// .function): the .function assignment goes when it is reached on every
/// path from init_timer(), or init_timer() on every path from it.  An
/// init_timer() with no such assignment (the fields set in another
/// function, init_timer() again before add_timer()) becomes
/// timer_setup(&t, fn, 0) with the one callback the timer ever runs,
/// which timerconv finds across the tree.  init_timer_deferrable(),
/// init_timer_pinned() and init_timer_on_stack() carry their flags or
/// become timer_setup_on_stack() (on v4.14, which lacks it,
/// __setup_timer_on_stack() with TIMER_FUNC_TYPE).  .data assignments
/// are timer_fields.cocci's.
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

// init_timer() with its .function on every path after it, or before it
// with init_timer() on every path from the assignment.
@init_pair_f depends on facts disable ptr_to_array@
identifier api = {init_timer, init_timer_pinned, init_timer_deferrable,
	init_timer_pinned_deferrable, init_timer_on_stack};
expression E, F, F2;
position p, pf;
@@

(
api@p(&E);
... when != E.function = F2
E.function = F@pf;
|
api@p(E);
... when != E->function = F2
E->function = F@pf;
|
E.function = F@pf;
... when != E.function = F2
api@p(&E);
|
E->function = F@pf;
... when != E->function = F2
api@p(E);
)

@script:python depends on facts@
f << init_pair_f.F;
p << init_pair_f.p;
pf << init_pair_f.pf;
@@

timerconv.emit("init_pair", p, fn=f, fn_at=timerconv.key(pf))

// patch: the planned init_timer() calls become timer_setup(), with the
// callback the plan names.
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
fn;
flags;
@@

entry = timerconv.planned("inits", p[0].current_element, api, e)
if entry is None or "data" in entry:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(entry["api"])
	coccinelle.fn = cocci.make_expr(entry["fn"])
	coccinelle.flags = cocci.make_ident(entry["flags"])

@init_x depends on patch disable ptr_to_array@
identifier init_mk.new_api, init_mk.flags;
expression init_mk.fn;
identifier api;
expression E;
position init_p.p, px;
@@

- api@p@px(E)
+ new_api(E, fn, flags)

@script:python@
p << init_x.px;
api << init_x.api;
e << init_x.E;
@@

timerconv.done("inits", p[0].current_element, api, e)

// patch: init_timer_on_stack() where the target lacks
// timer_setup_on_stack() (v4.14): __setup_timer_on_stack() with the cast
// callback and the timer itself as data.
@init_l_p depends on patch disable ptr_to_array@
identifier api = {init_timer_on_stack};
expression E;
position p;
@@

api@p(E)

@script:python init_l_mk depends on patch@
p << init_l_p.p;
api << init_l_p.api;
e << init_l_p.E;
new_api;
fn;
data;
flags;
@@

entry = timerconv.planned("inits", p[0].current_element, api, e)
if entry is None or "data" not in entry:
	cocci.include_match(False)
else:
	coccinelle.new_api = cocci.make_ident(entry["api"])
	coccinelle.fn = cocci.make_ident(entry["fn"])
	coccinelle.data = cocci.make_ident(entry["data"])
	coccinelle.flags = cocci.make_ident(entry["flags"])

@init_l_x depends on patch disable ptr_to_array@
identifier init_l_mk.new_api, init_l_mk.fn, init_l_mk.data;
identifier init_l_mk.flags;
identifier api;
expression E;
position init_l_p.p, px;
@@

- api@p@px(E)
+ new_api(E, fn, data, flags)

@script:python@
p << init_l_x.px;
api << init_l_x.api;
e << init_l_x.E;
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

print("%s:%s: %s(): refused unless timerconv finds the timer's only callback: no .function assignment on every path after it" %
      (p[0].file, p[0].line, api))
