// SPDX-License-Identifier: GPL-2.0
/// Remove .data assignments and the .function assignments that
/// timer_setup() made redundant; drop the casts on the others.
///
/// Since v4.15 a timer has no .data: its callback recovers its container
/// from the timer.  Wherever the old code set t.data to the timer's
/// container, in the function that arms the timer, before init_timer() or
/// in the callback itself, the assignment goes:
///	sk->sk_timer.data = (unsigned long)sk;	->	(removed)
/// A .function assignment that an init_timer() now turned into
/// timer_setup() provides goes too; one that stays loses its cast, which
/// only served a callback taking its container:
///	t->tl.function = (void *)foo_expire;	->
///	t->tl.function = foo_expire;
/// Which assignments go is timerconv's decision (TIMERCONV_PLAN): every
/// .data assignment of a timer must say the same thing, and be its
/// container, when the callback uses it.
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`; facts mode
//  feeds it.  ptr_to_array is disabled: it would turn p->ch[1].t into
//  p->ch->t.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

// facts: every .function and .data assignment.
@assign_f depends on facts disable ptr_to_array@
expression E, V;
identifier fld = {function, data};
position pe, pv;
@@

E@pe.fld = V@pv

@script:python depends on facts@
e << assign_f.E;
v << assign_f.V;
fld << assign_f.fld;
pe << assign_f.pe;
pv << assign_f.pv;
@@

timerconv.emit("assign", pe, field=fld, object=e, timer="& " + e, value=v,
	       value_at=timerconv.key(pv))

@assign_arrow_f depends on facts disable ptr_to_array@
expression E, V;
identifier fld = {function, data};
position pe, pv;
@@

E@pe->fld = V@pv

@script:python depends on facts@
e << assign_arrow_f.E;
v << assign_arrow_f.V;
fld << assign_arrow_f.fld;
pe << assign_arrow_f.pe;
pv << assign_arrow_f.pv;
@@

timerconv.emit("assign", pe, field=fld, object=e, timer=e, value=v,
	       value_at=timerconv.key(pv))

// facts: every read of .data or .function, a compound assignment (|=)
// included.
@read_f depends on facts disable ptr_to_array@
expression E;
identifier fld = {data, function};
position pe != {assign_f.pe, assign_arrow_f.pe};
@@

E@pe.fld

@script:python depends on facts@
e << read_f.E;
fld << read_f.fld;
pe << read_f.pe;
@@

timerconv.emit("read", pe, field=fld, object=e, timer="& " + e)

@read_arrow_f depends on facts disable ptr_to_array@
expression E;
identifier fld = {data, function};
position pe != {assign_f.pe, assign_arrow_f.pe};
@@

E@pe->fld

@script:python depends on facts@
e << read_arrow_f.E;
fld << read_arrow_f.fld;
pe << read_arrow_f.pe;
@@

timerconv.emit("read", pe, field=fld, object=e, timer=e)

// The type of the variable an assigned timer is reached from, for the
// usual shapes: t.fld, p->t.fld, p->a.t.fld, p->a->t.fld, p->t[i].fld,
// p->a.b.t.fld; and of the variables in the value, cs in (long)cs.
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
|
B@pb->f1.f2.f3.fld = V
|
B@pb.f1.f2.f3.fld = V
)

@script:python depends on facts@
b << assign_ty.B;
ty << assign_ty.TY;
pb << assign_ty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

// ... and a read one (an assignment's twin is harmless: the same type).
@read_ty depends on facts disable ptr_to_array@
expression I;
identifier fld = {data};
identifier f1, f2;
type TY;
idexpression TY B;
position pb;
@@

(
B@pb.fld
|
B@pb->fld
|
B@pb->f1.fld
|
B@pb.f1.fld
|
B@pb->f1[I].fld
|
B@pb->f1.f2.fld
|
B@pb->f1->f2.fld
|
B@pb.f1.f2.fld
)

@script:python depends on facts@
b << read_ty.B;
ty << read_ty.TY;
pb << read_ty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

@assign_vty depends on facts disable ptr_to_array@
expression E;
identifier fld = {function, data};
type TY;
idexpression TY B;
position pb;
@@

(
E.fld = <+... B@pb ...+>
|
E->fld = <+... B@pb ...+>
)

@script:python depends on facts@
b << assign_vty.B;
ty << assign_vty.TY;
pb << assign_vty.pb;
@@

timerconv.emit("type", pb, name=b, type=ty)

// patch: an assignment is named by its function, object, field and
// value; the plan says whether it goes ("delete") or keeps a new value.
@field_del_p depends on patch disable ptr_to_array@
expression E, V;
identifier fld = {function, data};
position p;
@@

(
E@p.fld = V;
|
E@p->fld = V;
)

@script:python depends on patch@
p << field_del_p.p;
e << field_del_p.E;
fld << field_del_p.fld;
v << field_del_p.V;
@@

entry = timerconv.planned("fields", p[0].current_element, e, fld, v)
if entry is None or entry["op"] != "delete":
	cocci.include_match(False)

@field_del_x depends on patch disable ptr_to_array@
expression E, V;
identifier fld;
position field_del_p.p, px;
@@

(
- E@p@px.fld = V;
|
- E@p@px->fld = V;
)

@script:python@
p << field_del_x.px;
e << field_del_x.E;
fld << field_del_x.fld;
v << field_del_x.V;
@@

timerconv.done("fields", p[0].current_element, e, fld, v)

@field_set_p depends on patch disable ptr_to_array@
expression E, V;
identifier fld = {function};
position p;
@@

(
E@p.fld = V;
|
E@p->fld = V;
)

@script:python field_set_mk depends on patch@
p << field_set_p.p;
e << field_set_p.E;
fld << field_set_p.fld;
v << field_set_p.V;
nv;
@@

entry = timerconv.planned("fields", p[0].current_element, e, fld, v)
if entry is None or entry["op"] != "set":
	cocci.include_match(False)
else:
	coccinelle.nv = cocci.make_ident(entry["value"])

@field_set_x depends on patch disable ptr_to_array@
expression E, V;
identifier fld;
identifier field_set_mk.nv;
position field_set_p.p, px;
@@

(
  E@p@px.fld =
- V
+ nv
  ;
|
  E@p@px->fld =
- V
+ nv
  ;
)

@script:python@
p << field_set_x.px;
e << field_set_x.E;
fld << field_set_x.fld;
v << field_set_x.V;
@@

timerconv.done("fields", p[0].current_element, e, fld, v)

// patch, --keep-data: a .data assignment sets the member beside the timer
// instead, and a read of .data reads it.
@field_keep_p depends on patch disable ptr_to_array@
expression E, V;
identifier fld = {data};
position p;
@@

(
E@p.fld = V;
|
E@p->fld = V;
)

@script:python field_keep_mk depends on patch@
p << field_keep_p.p;
e << field_keep_p.E;
fld << field_keep_p.fld;
v << field_keep_p.V;
lv;
@@

entry = timerconv.planned("fields", p[0].current_element, e, fld, v)
if entry is None or entry["op"] != "keep":
	cocci.include_match(False)
else:
	coccinelle.lv = cocci.make_ident(entry["lvalue"])

@field_keep_x depends on patch disable ptr_to_array@
expression E, V;
identifier fld;
identifier field_keep_mk.lv;
position field_keep_p.p, px;
@@

(
- E@p@px.fld = V;
+ lv = V;
|
- E@p@px->fld = V;
+ lv = V;
)

@script:python@
p << field_keep_x.px;
e << field_keep_x.E;
fld << field_keep_x.fld;
v << field_keep_x.V;
@@

timerconv.done("fields", p[0].current_element, e, fld, v)

@read_any_p depends on patch disable ptr_to_array@
expression E, V;
identifier fld = {data};
position pe;
@@

(
E@pe.fld = V
|
E@pe->fld = V
)

@read_p depends on patch disable ptr_to_array@
expression E;
identifier fld = {data};
position pe != read_any_p.pe;
@@

(
E@pe.fld
|
E@pe->fld
)

@script:python read_mk depends on patch@
pe << read_p.pe;
e << read_p.E;
lv;
@@

entry = timerconv.planned("reads", pe[0].current_element, e)
if entry is None:
	cocci.include_match(False)
else:
	coccinelle.lv = cocci.make_ident(entry["lvalue"])

@read_x depends on patch disable ptr_to_array@
expression E;
identifier fld;
identifier read_mk.lv;
position read_p.pe, px;
@@

(
- E@pe@px.fld
+ lv
|
- E@pe@px->fld
+ lv
)

@script:python@
px << read_x.px;
e << read_x.E;
@@

timerconv.done("reads", px[0].current_element, e)

// report: each .data assignment, which only timerconv can judge.
@data_r depends on report disable ptr_to_array@
expression E, D;
position p;
@@

(
E.data@p = D;
|
E->data@p = D;
)

@script:python depends on report@
p << data_r.p;
d << data_r.D;
@@

print("%s:%s: note: .data is set to %s here; timerconv removes it if it is the timer's container (or unused), and refuses the timer otherwise" %
      (p[0].file, p[0].line, d))
