// SPDX-License-Identifier: GPL-2.0
/// Move 4.15-era timer calls to the names of newer kernels.
///
/// from_timer() became timer_container_of() in v6.16; del_timer() and
/// del_timer_sync(), wrappers of timer_delete() and timer_delete_sync()
/// since v6.2, were removed in v6.15, as was destroy_timer_on_stack()
/// in favour of timer_destroy_on_stack().  The arguments do not change.
/// timerconv plans these renames only for a target whose
/// include/linux/timer.h lacks the old names, and never inside code
/// guarded for old kernels.
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@rename_f depends on facts@
identifier old = {from_timer, del_timer, del_timer_sync,
	destroy_timer_on_stack};
expression list ES;
position p;
@@

old@p(ES)

@script:python depends on facts@
old << rename_f.old;
es << rename_f.ES;
p << rename_f.p;
@@

timerconv.emit("rename", p, name=old, args=str(es))

// patch: a call is named by its function, the old name and the
// arguments.
@rename_p depends on patch@
identifier old = {from_timer, del_timer, del_timer_sync,
	destroy_timer_on_stack};
expression list ES;
position p;
@@

old@p(ES)

@script:python rename_mk depends on patch@
p << rename_p.p;
old << rename_p.old;
es << rename_p.ES;
new_name;
@@

e = timerconv.planned("renames", p[0].current_element, old, str(es))
if e is None:
	cocci.include_match(False)
else:
	coccinelle.new_name = cocci.make_ident(e["new"])

@rename_x depends on patch@
identifier rename_mk.new_name;
identifier old;
expression list ES;
position rename_p.p, px;
@@

- old@p@px
+ new_name
  (ES)

@script:python@
p << rename_x.px;
old << rename_x.old;
es << rename_x.ES;
@@

timerconv.done("renames", p[0].current_element, old, str(es))

// report
@rename_r depends on report@
identifier old = {from_timer, del_timer, del_timer_sync,
	destroy_timer_on_stack};
position p;
@@

old@p(...)

@script:python depends on report@
old << rename_r.old;
p << rename_r.p;
@@

new = {"from_timer": "timer_container_of", "del_timer": "timer_delete",
       "del_timer_sync": "timer_delete_sync",
       "destroy_timer_on_stack": "timer_destroy_on_stack"}[old]
print("%s:%s: %s() is gone from current kernels; use %s()" %
      (p[0].file, p[0].line, old, new))
