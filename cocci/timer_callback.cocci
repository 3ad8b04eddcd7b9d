// SPDX-License-Identifier: GPL-2.0
/// Convert timer callbacks from void fn(unsigned long data) to
/// void fn(struct timer_list *t).
///
/// The old parameter may be spelled unsigned long, unsigned long int,
/// ulong, u_long or long.  Vendor code also installs callbacks taking a
/// pointer to their container through a cast, (void *)fn: such a
/// callback's parameter becomes the from_timer() local,
///	static void foo_expire(struct foo *p)	->
///	static void foo_expire(struct timer_list *t)
///	{
///		struct foo *p = from_timer(p, t, timer);
/// The callback's cast of data to its container,
///	struct foo *p = (struct foo *)data;	(or (void *)data, or assigned
///						 after the declaration)
/// becomes
///	struct foo *p = from_timer(p, t, timer_field);
/// with the field the setup names (a member path such as hw.watchdog or
/// timers[2]).  When the timer lives in a structure the container points
/// to and the callback only uses the container for that pointer, as in
///	struct request_queue *q = (struct request_queue *)data;
///	... q->backing_dev_info ...
/// the callback recovers that structure instead:
///	struct backing_dev_info *backing_dev_info =
///		from_timer(backing_dev_info, t, laptop_mode_wb_timer);
/// A callback that ignores its data takes struct timer_list *unused.
/// Prototypes change with the definition, in any file; an unnamed
/// parameter stays unnamed.
///
/// Whether a callback can be converted depends on every setup of every
/// timer it runs for, possibly in other files; timerconv decides and
/// passes the field, the names and from_timer() or timer_container_of()
/// in TIMERCONV_PLAN.
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

// A callback's definition: any one parameter, which timerconv judges.
// A constrained identifier cannot be inherited: match again to name it.
@cb_f depends on facts@
identifier fn : script:python () { timerconv.is_callback(fn) };
type PT;
identifier data;
type R;
position p;
@@

R fn@p(PT data) { ... }

@cb_def_f depends on facts@
identifier fn, data;
type R, PT;
position cb_f.p;
@@

R fn@p(PT data) { ... }

@script:python depends on facts@
fn << cb_def_f.fn;
data << cb_def_f.data;
pt << cb_def_f.PT;
r << cb_def_f.R;
p << cb_f.p;
@@

timerconv.emit("callback", p, name=fn, param=data, ptype=pt, ret=r,
	       extent=timerconv.extent(p))

// The one cast of data to the container, as a declaration or assigned
// later: (T *)data, (void *)data, or a typedef'd pointer, (FOO_PTR)data.
@cb_cast_f depends on facts exists@
identifier cb_def_f.fn, cb_def_f.data, v;
type R, PT, T;
position cb_f.p, pv, pd;
@@

R fn@p(PT data) {
  ... when any
(
  T *v@pv = (T *)data@pd;
|
  T *v@pv = (void *)data@pd;
|
  T v@pv = (T)data@pd;
)
  ... when any
}

@script:python depends on facts@
fn << cb_def_f.fn;
v << cb_cast_f.v;
t << cb_cast_f.T;
p << cb_f.p;
pv << cb_cast_f.pv;
pd << cb_cast_f.pd;
@@

timerconv.emit("cast", p, callback=fn, local=v, type=t, form="decl",
	       local_at=timerconv.key(pv), data_at=timerconv.key(pd))

@cb_assign_f depends on facts exists@
identifier cb_def_f.fn, cb_def_f.data;
type R, PT, T;
idexpression T *v;
position cb_f.p, pv, pd;
@@

R fn@p(PT data) {
  ... when any
(
  v@pv = (T *)data@pd;
|
  v@pv = (void *)data@pd;
)
  ... when any
}

@script:python depends on facts@
fn << cb_def_f.fn;
v << cb_assign_f.v;
t << cb_assign_f.T;
p << cb_f.p;
pv << cb_assign_f.pv;
pd << cb_assign_f.pd;
@@

timerconv.emit("cast", p, callback=fn, local=v, type=t, form="assign",
	       local_at=timerconv.key(pv), data_at=timerconv.key(pd))

@cb_tassign_f depends on facts exists@
identifier cb_def_f.fn, cb_def_f.data;
type R, PT, T;
idexpression T v;
position cb_f.p, pv, pd;
@@

R fn@p(PT data) {
  ... when any
  v@pv = (T)data@pd;
  ... when any
}

@script:python depends on facts@
fn << cb_def_f.fn;
v << cb_tassign_f.v;
t << cb_tassign_f.T;
p << cb_f.p;
pv << cb_tassign_f.pv;
pd << cb_tassign_f.pd;
@@

timerconv.emit("cast", p, callback=fn, local=v, type=t, form="assign",
	       local_at=timerconv.key(pv), data_at=timerconv.key(pd))

// Casts of data to a struct pointer inside an expression, where no local
// holds them: foo((struct bar *)data).
// (A pattern of the function around it binds one cast only: the casts are
// matched alone, and kept where they are in the callback.)
@cb_icast_f depends on facts@
identifier cb_def_f.data;
type T;
position pd;
@@

 (T *)data@pd

@script:python depends on facts@
fn << cb_def_f.fn;
t << cb_icast_f.T;
p << cb_f.p;
pd << cb_icast_f.pd;
@@

if pd[0].current_element == fn:
	timerconv.emit("icast", p, callback=fn, type=t,
		       data_at=timerconv.key(pd))

@cb_proto_f depends on facts@
identifier fn : script:python () { timerconv.is_callback(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data);

@script:python depends on facts@
fn << cb_proto_f.fn;
pt << cb_proto_f.PT;
p << cb_proto_f.p;
@@

timerconv.emit("proto", p, name=fn, ptype=pt, named=True)

@cb_proto_anon_f depends on facts@
identifier fn : script:python () { timerconv.is_callback(fn) };
type R, PT;
position p;
@@

R fn@p(PT);

@script:python depends on facts@
fn << cb_proto_anon_f.fn;
pt << cb_proto_anon_f.PT;
p << cb_proto_anon_f.p;
@@

timerconv.emit("proto", p, name=fn, ptype=pt, named=False)

// Prototypes, in this file or in a header, before the definitions: spatch
// would otherwise update a prototype in the definition's file itself.
@cb_proto_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

(
R fn@p(PT data);
|
R fn@p(PT);
)

@script:python cb_proto_mk depends on patch@
fn << cb_proto_p.fn;
newp;
@@

e = timerconv.planned("protos", fn)
if e is None:
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])

@cb_proto_x depends on patch@
identifier cb_proto_mk.newp;
identifier fn, data;
type R, PT;
position cb_proto_p.p, px;
@@

(
  R fn@p@px(
- PT data
+ struct timer_list *newp
  );
|
  R fn@p@px(
- PT
+ struct timer_list *
  );
)

@script:python@
fn << cb_proto_x.fn;
@@

timerconv.done("protos", fn)

// patch: the definition, by the plan's kind for it.  Each kind matches
// anew: a position cannot be inherited across a rule that changed code.
@cb_unused_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_unused_mk depends on patch@
fn << cb_unused_p.fn;
newp;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "unused":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])

@cb_unused_x depends on patch@
identifier fn, data, cb_unused_mk.newp;
type R, PT;
position cb_unused_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) { ... }

@script:python@
fn << cb_unused_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_direct_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_direct_mk depends on patch@
fn << cb_direct_p.fn;
newp;
v;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "direct":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.v = cocci.make_ident(e["local"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_direct_x depends on patch exists@
identifier fn, data;
identifier cb_direct_mk.newp, cb_direct_mk.v, cb_direct_mk.fld;
identifier cb_direct_mk.cof;
type R, PT, T;
position cb_direct_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
  ... when any
(
  T *v =
- (T *)data
+ cof(v, newp, fld)
  ;
|
  T *v =
- (void *)data
+ cof(v, newp, fld)
  ;
|
  T v =
- (T)data
+ cof(v, newp, fld)
  ;
|
  v =
- (T *)data
+ cof(v, newp, fld)
  ;
|
  v =
- (void *)data
+ cof(v, newp, fld)
  ;
|
  v =
- (T)data
+ cof(v, newp, fld)
  ;
)
  ... when any
  }

@script:python@
fn << cb_direct_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_hop_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_hop_mk depends on patch@
fn << cb_hop_p.fn;
newp;
v;
hop;
nt;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "hop":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.v = cocci.make_ident(e["local"])
	coccinelle.hop = cocci.make_ident(e["hop"])
	coccinelle.nt = cocci.make_type(e["hop_type"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_hop_x depends on patch exists@
identifier fn, data;
identifier cb_hop_mk.newp, cb_hop_mk.v, cb_hop_mk.hop, cb_hop_mk.fld;
identifier cb_hop_mk.cof;
type cb_hop_mk.nt;
type R, PT, T;
position cb_hop_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
  ... when any
(
- T *v = (T *)data;
+ nt hop = cof(hop, newp, fld);
|
- T *v = (void *)data;
+ nt hop = cof(hop, newp, fld);
)
  <...
- v->hop
+ hop
  ...>
  }

@script:python@
fn << cb_hop_x.fn;
@@

timerconv.done("callbacks", fn)

// A callback taking a pointer to its container: the parameter becomes
// the local that from_timer() sets, followed by a blank line unless more
// declarations follow (the plan says which).
@cb_ptr_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_ptr_mk depends on patch@
fn << cb_ptr_p.fn;
newp;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "ptr" or e["blank"] != "no":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_ptr_x depends on patch@
identifier fn, data;
identifier cb_ptr_mk.newp, cb_ptr_mk.fld, cb_ptr_mk.cof;
type R, PT;
position cb_ptr_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ PT data = cof(data, newp, fld);
  ...
  }

@script:python@
fn << cb_ptr_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_ptrb_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_ptrb_mk depends on patch@
fn << cb_ptrb_p.fn;
newp;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "ptr" or e["blank"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_ptrb_x depends on patch@
identifier fn, data;
identifier cb_ptrb_mk.newp, cb_ptrb_mk.fld, cb_ptrb_mk.cof;
type R, PT;
position cb_ptrb_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ PT data = cof(data, newp, fld);
+
  ...
  }

@script:python@
fn << cb_ptrb_x.fn;
@@

timerconv.done("callbacks", fn)

// patch: data only ever cast to its container in an expression,
// foo((struct bar *)data): a local of the container, from from_timer(),
// takes the casts' places.
@cb_icast_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_icast_mk depends on patch@
fn << cb_icast_p.fn;
newp;
v;
ct;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "icast" or e["blank"] != "no":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.v = cocci.make_ident(e["local"])
	coccinelle.ct = cocci.make_type(e["ctype"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_icast_x depends on patch@
identifier fn, data;
identifier cb_icast_mk.newp, cb_icast_mk.v, cb_icast_mk.fld;
identifier cb_icast_mk.cof;
type cb_icast_mk.ct;
type R, PT, T;
position cb_icast_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ ct v = cof(v, newp, fld);
  <...
(
- ((T *)data)
+ v
|
- (T *)data
+ v
)
  ...>
  }

@script:python@
fn << cb_icast_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_icastb_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_icastb_mk depends on patch@
fn << cb_icastb_p.fn;
newp;
v;
ct;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "icast" or e["blank"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.v = cocci.make_ident(e["local"])
	coccinelle.ct = cocci.make_type(e["ctype"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_icastb_x depends on patch@
identifier fn, data;
identifier cb_icastb_mk.newp, cb_icastb_mk.v, cb_icastb_mk.fld;
identifier cb_icastb_mk.cof;
type cb_icastb_mk.ct;
type R, PT, T;
position cb_icastb_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ ct v = cof(v, newp, fld);
+
  <...
(
- ((T *)data)
+ v
|
- (T *)data
+ v
)
  ...>
  }

@script:python@
fn << cb_icastb_x.fn;
@@

timerconv.done("callbacks", fn)

// patch, --keep-data: the callback starts from its timer's container and
// reads its old data from the member beside the timer; the rest of its
// body stays as it was.
@cb_keep_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_keep_mk depends on patch@
fn << cb_keep_p.fn;
newp;
c;
ct;
fld;
mem;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "keep" or e["blank"] != "no":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.c = cocci.make_ident(e["local"])
	coccinelle.ct = cocci.make_type(e["ctype"] + " *")
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.mem = cocci.make_ident(e["member"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_keep_x depends on patch@
identifier fn, data;
identifier cb_keep_mk.newp, cb_keep_mk.c, cb_keep_mk.fld, cb_keep_mk.mem;
identifier cb_keep_mk.cof;
type cb_keep_mk.ct;
type R, PT;
position cb_keep_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ ct c = cof(c, newp, fld);
+ PT data = c->mem;
  ...
  }

@script:python@
fn << cb_keep_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_keepb_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_keepb_mk depends on patch@
fn << cb_keepb_p.fn;
newp;
c;
ct;
fld;
mem;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "keep" or e["blank"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.c = cocci.make_ident(e["local"])
	coccinelle.ct = cocci.make_type(e["ctype"] + " *")
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.mem = cocci.make_ident(e["member"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_keepb_x depends on patch@
identifier fn, data;
identifier cb_keepb_mk.newp, cb_keepb_mk.c, cb_keepb_mk.fld;
identifier cb_keepb_mk.mem, cb_keepb_mk.cof;
type cb_keepb_mk.ct;
type R, PT;
position cb_keepb_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ ct c = cof(c, newp, fld);
+ PT data = c->mem;
+
  ...
  }

@script:python@
fn << cb_keepb_x.fn;
@@

timerconv.done("callbacks", fn)

// patch: data that leads back from the container (tool/plan/back.c): the
// container's local takes from_timer(), the data's local the member that
// leads back to it, or goes where it only led to the container.  The
// data's local is found first (its cast has two spellings), then
// rewritten where it was found.
@cb_back_p depends on patch exists@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data, v;
type R, PT, T;
position p, pd;
@@

R fn@p(PT data) {
  ... when any
(
  T *v@pd = (T *)data;
|
  T *v@pd = (void *)data;
)
  ... when any
}

@script:python cb_back_mk depends on patch@
fn << cb_back_p.fn;
v << cb_back_p.v;
newp;
c;
ct;
fld;
mem;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "back" or e["local"] != v or e["acc"] != "no":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.c = cocci.make_ident(e["c"])
	coccinelle.ct = cocci.make_type(e["ctype"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.mem = cocci.make_ident(e["member"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_back_x depends on patch exists@
identifier fn, data, v;
identifier cb_back_mk.newp, cb_back_mk.c, cb_back_mk.fld, cb_back_mk.mem;
identifier cb_back_mk.cof;
type cb_back_mk.ct;
type R, PT, T;
expression E;
position cb_back_p.p, cb_back_p.pd, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
  ... when any
- T *v@pd = E;
+ ct c = cof(c, newp, fld);
+ T *v = c->mem;
  ... when any
  }

@script:python@
fn << cb_back_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_backacc_p depends on patch exists@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data, v;
type R, PT, T;
position p, pd;
@@

R fn@p(PT data) {
  ... when any
(
  T *v@pd = (T *)data;
|
  T *v@pd = (void *)data;
)
  ... when any
}

@script:python cb_backacc_mk depends on patch@
fn << cb_backacc_p.fn;
v << cb_backacc_p.v;
newp;
c;
ct;
fld;
mem;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "back" or e["local"] != v or e["acc"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.c = cocci.make_ident(e["c"])
	coccinelle.ct = cocci.make_type(e["ctype"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.mem = cocci.make_ident(e["member"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_backacc_x depends on patch exists@
identifier fn, data, v;
identifier cb_backacc_mk.newp, cb_backacc_mk.c, cb_backacc_mk.fld;
identifier cb_backacc_mk.mem, cb_backacc_mk.cof;
type cb_backacc_mk.ct;
type R, PT, T, T2;
expression E, E2;
position cb_backacc_p.p, cb_backacc_p.pd, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
  ... when any
- T *v@pd = E;
+ ct c = cof(c, newp, fld);
+ T *v = c->mem;
  ... when any
- T2 c = E2;
  ... when any
  }

@script:python@
fn << cb_backacc_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_acc_p depends on patch exists@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data, v;
type R, PT, T;
position p, pd;
@@

R fn@p(PT data) {
  ... when any
(
  T *v@pd = (T *)data;
|
  T *v@pd = (void *)data;
)
  ... when any
}

@script:python cb_acc_mk depends on patch@
fn << cb_acc_p.fn;
v << cb_acc_p.v;
newp;
c;
fld;
cof;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "acc" or e["local"] != v:
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.c = cocci.make_ident(e["c"])
	coccinelle.fld = cocci.make_ident(e["field"])
	coccinelle.cof = cocci.make_ident(e["container_of"])

@cb_acc_x depends on patch exists@
identifier fn, data, v;
identifier cb_acc_mk.newp, cb_acc_mk.c, cb_acc_mk.fld, cb_acc_mk.cof;
type R, PT, T, T2;
expression E, E2;
position cb_acc_p.p, cb_acc_p.pd, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
  ... when any
- T *v@pd = E;
  ... when any
  T2 c =
- E2
+ cof(c, newp, fld)
  ;
  ... when any
  }

@script:python@
fn << cb_acc_x.fn;
@@

timerconv.done("callbacks", fn)

// patch: a callback whose data needs no timer (the constant every setup
// gives it, or with --keep-data a static beside its timer) starts with a
// local of its old parameter's name holding it.
@cb_value_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_value_mk depends on patch@
fn << cb_value_p.fn;
newp;
val;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "value" or e["blank"] != "no":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.val = cocci.make_ident(e["value"])

@cb_value_x depends on patch@
identifier fn, data;
identifier cb_value_mk.newp, cb_value_mk.val;
type R, PT;
position cb_value_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ PT data = val;
  ...
  }

@script:python@
fn << cb_value_x.fn;
@@

timerconv.done("callbacks", fn)

@cb_valueb_p depends on patch@
identifier fn : script:python () { timerconv.plans(fn) };
identifier data;
type R, PT;
position p;
@@

R fn@p(PT data) { ... }

@script:python cb_valueb_mk depends on patch@
fn << cb_valueb_p.fn;
newp;
val;
@@

e = timerconv.planned("callbacks", fn)
if e is None or e["kind"] != "value" or e["blank"] != "yes":
	cocci.include_match(False)
else:
	coccinelle.newp = cocci.make_ident(e["param"])
	coccinelle.val = cocci.make_ident(e["value"])

@cb_valueb_x depends on patch@
identifier fn, data;
identifier cb_valueb_mk.newp, cb_valueb_mk.val;
type R, PT;
position cb_valueb_p.p, px;
@@

R fn@p@px(
- PT data
+ struct timer_list *newp
  ) {
+ PT data = val;
+
  ...
  }

@script:python@
fn << cb_valueb_x.fn;
@@

timerconv.done("callbacks", fn)

// report: the callbacks this file hands to the old API.
@cb_r_handed depends on report@
identifier api = {setup_timer, setup_pinned_timer, setup_deferrable_timer,
	setup_pinned_deferrable_timer, setup_timer_on_stack,
	setup_pinned_timer_on_stack, setup_deferrable_timer_on_stack,
	setup_pinned_deferrable_timer_on_stack, __setup_timer,
	__setup_timer_on_stack};
identifier fn;
expression T, D;
@@

api(T, fn, D, ...)

@cb_r depends on report@
identifier cb_r_handed.fn, data;
type R;
position p;
@@

R fn@p(unsigned long data) { ... }

@script:python depends on report@
fn << cb_r_handed.fn;
p << cb_r.p;
@@

print("%s:%s: %s() takes unsigned long: it becomes %s(struct timer_list *t) with its setups" %
      (p[0].file, p[0].line, fn, fn))
