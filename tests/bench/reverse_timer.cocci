// SPDX-License-Identifier: GPL-2.0
/// The benchmark workload: turn v4.15+ timer code back into the old API.
///
/// This is the inverse of what timerconv does, for tests/bench/ only (it
/// lives outside cocci/ on purpose: every rule file there becomes part of
/// the product).  tests/bench/workload.py drives it in two passes:
///
///  -D facts    prints one "REVERSE {json}" line per callback, setup,
///              prototype and DEFINE_TIMER() it sees; the driver joins
///              them across the tree and decides which units reverse
///              whole;
///  -D rewrite  rewrites exactly what the plan in $BENCH_REVERSE_PLAN
///              names, and prints a "done" line for each rewrite.
///
/// What is reversed:
///	void fn(struct timer_list *t)	->  void fn(unsigned long data)
///	T *v = from_timer(v, t, fld);	->  T *v = (T *)data;
///	void fn(struct timer_list *t);	->  void fn(unsigned long data);
///	timer_setup(&E->fld, fn, 0)	->  setup_timer(&E->fld, fn,
///						(unsigned long)E)
///	(TIMER_DEFERRABLE, TIMER_PINNED and _on_stack have their own names)
///	DEFINE_TIMER(name, fn);		->  DEFINE_TIMER(name, fn, 0, 0);
///
/// Plan keys name constructs by file and text, never by line: once a
/// rule has changed a function, later positions in it are unreliable.
//
// Options: --no-includes

virtual facts
virtual rewrite

@initialize:python@
@@
import json
import os
import sys

plan = {}
if os.environ.get("BENCH_REVERSE_PLAN"):
	with open(os.environ["BENCH_REVERSE_PLAN"]) as f:
		plan = json.load(f)


def emit(kind, p, **fields):
	rec = {"kind": kind, "file": p[0].file, "line": int(p[0].line),
	       "func": p[0].current_element}
	rec.update(fields)
	sys.stdout.write("REVERSE " + json.dumps(rec) + "\n")
	sys.stdout.flush()


def words(s):
	return " ".join(str(s).split())


def key(*parts):
	return "|".join(words(x) for x in parts)


def planned(section, *parts):
	return plan.get(section, {}).get(key(*parts))


def done(section, *parts):
	sys.stdout.write("REVERSE " + json.dumps({"kind": "done",
		"section": section, "key": key(*parts)}) + "\n")
	sys.stdout.flush()

// ---------------------------------------------------------------- facts

// A callback whose only use of its timer is one from_timer() declaration.
@cb_f depends on facts@
identifier fn, t, v;
expression fld;
type T;
position p;
@@

void fn@p(struct timer_list *t) {
  ... when != t
  T *v = from_timer(v, t, fld);
  ... when != t
}

@script:python depends on facts@
fn << cb_f.fn;
t << cb_f.t;
v << cb_f.v;
fld << cb_f.fld;
ty << cb_f.T;
p << cb_f.p;
@@

emit("callback", p, name=fn, param=t, local=v, field=words(fld),
     type=ty, use="from_timer",
     first=int(p[0].current_element_line),
     last=int(p[0].current_element_line_end))

// A callback that ignores its timer.
@cb_unused_f depends on facts@
identifier fn, t;
position p;
@@

void fn@p(struct timer_list *t) {
  ... when != t
}

@script:python depends on facts@
fn << cb_unused_f.fn;
t << cb_unused_f.t;
p << cb_unused_f.p;
@@

emit("callback", p, name=fn, param=t, use="unused",
     first=int(p[0].current_element_line),
     last=int(p[0].current_element_line_end))

// Every definition taking a timer, whatever its body: a unit with a
// second definition of its name (another configuration) is not reversed.
@def_f depends on facts@
identifier fn, t;
type R;
position p;
@@

R fn@p(struct timer_list *t) { ... }

@script:python depends on facts@
fn << def_f.fn;
p << def_f.p;
@@

emit("definition", p, name=fn)

@static_f depends on facts@
identifier fn, t;
position p;
@@

static void fn@p(struct timer_list *t) { ... }

@script:python depends on facts@
fn << static_f.fn;
p << static_f.p;
@@

emit("static", p, name=fn)

@proto_f depends on facts@
identifier fn, t;
position p;
@@

(
void fn@p(struct timer_list *t);
|
void fn@p(struct timer_list *);
)

@script:python depends on facts@
fn << proto_f.fn;
p << proto_f.p;
@@

emit("proto", p, name=fn)

@setup_f depends on facts disable ptr_to_array@
identifier api = {timer_setup, timer_setup_on_stack};
expression T, FL;
identifier F;
position p;
@@

api@p(T, F, FL)

@script:python depends on facts@
api << setup_f.api;
t << setup_f.T;
f << setup_f.F;
fl << setup_f.FL;
p << setup_f.p;
@@

emit("setup", p, api=api, timer=words(t), fn=f, flags=words(fl))

@define_f depends on facts@
declarer name DEFINE_TIMER;
identifier tname, fn;
position p;
@@

DEFINE_TIMER@p(tname, fn);

@script:python depends on facts@
tname << define_f.tname;
fn << define_f.fn;
p << define_f.p;
@@

emit("define", p, name=tname, fn=fn)

// -------------------------------------------------------------- rewrite

// Prototypes first: spatch would otherwise follow the definition's new
// parameter list into a prototype of the same file on its own.
@proto_p depends on rewrite@
identifier fn, t;
position p;
@@

(
void fn@p(struct timer_list *t);
|
void fn@p(struct timer_list *);
)

@script:python proto_mk depends on rewrite@
fn << proto_p.fn;
p << proto_p.p;
np;
@@

e = planned("protos", p[0].file, fn)
if e is None:
	cocci.include_match(False)
else:
	coccinelle.np = cocci.make_ident(e["param"])

@proto_x depends on rewrite@
identifier proto_mk.np;
identifier fn, t;
position proto_p.p, px;
@@

(
  void fn@p@px(
- struct timer_list *t
+ unsigned long np
  );
|
  void fn@p@px(
- struct timer_list *
+ unsigned long
  );
)

@script:python depends on rewrite@
fn << proto_x.fn;
p << proto_x.px;
@@

done("protos", p[0].file, fn)

@cb_p depends on rewrite@
identifier fn, t;
position p;
@@

void fn@p(struct timer_list *t) { ... }

@script:python cb_mk depends on rewrite@
fn << cb_p.fn;
p << cb_p.p;
np;
@@

e = planned("callbacks", p[0].file, fn)
if e is None or e["use"] != "from_timer":
	cocci.include_match(False)
else:
	coccinelle.np = cocci.make_ident(e["param"])

@cb_x depends on rewrite exists@
identifier cb_mk.np;
identifier fn, t, v;
expression fld;
type T;
position cb_p.p, px;
@@

void fn@p@px(
- struct timer_list *t
+ unsigned long np
  ) {
  ... when any
  T *v =
- from_timer(v, t, fld)
+ (T *)np
  ;
  ... when any
}

@script:python depends on rewrite@
fn << cb_x.fn;
p << cb_x.px;
@@

done("callbacks", p[0].file, fn)

@cb_unused_p depends on rewrite@
identifier fn, t;
position p;
@@

void fn@p(struct timer_list *t) { ... }

@script:python cb_unused_mk depends on rewrite@
fn << cb_unused_p.fn;
p << cb_unused_p.p;
np;
@@

e = planned("callbacks", p[0].file, fn)
if e is None or e["use"] != "unused":
	cocci.include_match(False)
else:
	coccinelle.np = cocci.make_ident(e["param"])

@cb_unused_x depends on rewrite@
identifier cb_unused_mk.np;
identifier fn, t;
position cb_unused_p.p, px;
@@

void fn@p@px(
- struct timer_list *t
+ unsigned long np
  ) { ... }

@script:python depends on rewrite@
fn << cb_unused_x.fn;
p << cb_unused_x.px;
@@

done("callbacks", p[0].file, fn)

@setup_p depends on rewrite disable ptr_to_array@
identifier api = {timer_setup, timer_setup_on_stack};
expression T, FL;
identifier F;
position p;
@@

api@p(T, F, FL)

@script:python setup_mk depends on rewrite@
p << setup_p.p;
api << setup_p.api;
t << setup_p.T;
f << setup_p.F;
old_api;
data;
@@

e = planned("setups", p[0].file, api, f, t)
if e is None:
	cocci.include_match(False)
else:
	coccinelle.old_api = cocci.make_ident(e["api"])
	coccinelle.data = cocci.make_expr(e["data"])

@setup_x depends on rewrite disable ptr_to_array@
identifier setup_mk.old_api;
expression setup_mk.data;
identifier api, F;
expression T, FL;
position setup_p.p, px;
@@

- api@p@px
+ old_api
  (T, F,
- FL
+ data
  )

@script:python depends on rewrite@
p << setup_x.px;
api << setup_x.api;
t << setup_x.T;
f << setup_x.F;
@@

done("setups", p[0].file, api, f, t)

@define_p depends on rewrite@
declarer name DEFINE_TIMER;
identifier tname, fn;
position p;
@@

DEFINE_TIMER@p(tname, fn);

@script:python define_mk depends on rewrite@
tname << define_p.tname;
fn << define_p.fn;
p << define_p.p;
@@

if planned("defines", p[0].file, fn, tname) is None:
	cocci.include_match(False)

@define_x depends on rewrite@
declarer name DEFINE_TIMER;
identifier tname, fn;
position define_p.p, px;
@@

DEFINE_TIMER@p@px(tname, fn
+ , 0, 0
  );

@script:python depends on rewrite@
tname << define_x.tname;
fn << define_x.fn;
p << define_x.px;
@@

done("defines", p[0].file, fn, tname)
