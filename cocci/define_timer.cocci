// SPDX-License-Identifier: GPL-2.0
/// Convert the static timer initialisers to their v4.15 form.
///
/// DEFINE_TIMER(name, fn, expires, data) becomes DEFINE_TIMER(name, fn),
/// and TIMER_INITIALIZER(fn, expires, data) (with its _PINNED_ and
/// _DEFERRED_ variants, and the 4-argument __TIMER_INITIALIZER) becomes
/// __TIMER_INITIALIZER(fn, flags).  Their callbacks receive the timer, a
/// global, so they become void fn(struct timer_list *unused).  timerconv
/// refuses a site whose expires is not 0 (add_timer() would see another
/// expiry) or whose data the callback uses.  A v4.14 tree keeps the old
/// forms, with the callback cast to TIMER_FUNC_TYPE and DEFINE_TIMER()'s
/// data the timer's own address, as timer_setup() hands it.
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@define_f depends on facts@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position p, pf;
@@

DEFINE_TIMER@p(tname, fn@pf, e, d);

@script:python depends on facts@
tname << define_f.tname;
fn << define_f.fn;
e << define_f.e;
d << define_f.d;
p << define_f.p;
pf << define_f.pf;
@@

timerconv.emit("define", p, api="DEFINE_TIMER", name=tname, fn=fn,
	       expires=e, data=d, flags=None, fn_line=int(pf[0].line),
	       fn_col=int(pf[0].column))

@initializer_f depends on facts@
identifier api = {TIMER_INITIALIZER, TIMER_PINNED_INITIALIZER,
	TIMER_DEFERRED_INITIALIZER, TIMER_PINNED_DEFERRED_INITIALIZER};
expression fn, e, d;
position p, pf;
@@

api@p(fn@pf, e, d)

@script:python depends on facts@
api << initializer_f.api;
fn << initializer_f.fn;
e << initializer_f.e;
d << initializer_f.d;
p << initializer_f.p;
pf << initializer_f.pf;
@@

timerconv.emit("define", p, api=api, name=None, fn=fn, expires=e, data=d,
	       flags=None, fn_line=int(pf[0].line), fn_col=int(pf[0].column))

@initializer4_f depends on facts@
identifier api = {__TIMER_INITIALIZER};
expression fn, e, d, fl;
position p, pf;
@@

api@p(fn@pf, e, d, fl)

@script:python depends on facts@
fn << initializer4_f.fn;
e << initializer4_f.e;
d << initializer4_f.d;
fl << initializer4_f.fl;
p << initializer4_f.p;
pf << initializer4_f.pf;
@@

timerconv.emit("define", p, api="__TIMER_INITIALIZER", name=None, fn=fn,
	       expires=e, data=d, flags=fl, fn_line=int(pf[0].line),
	       fn_col=int(pf[0].column))

// patch: DEFINE_TIMER() is named by its timer, an initialiser by the
// variable it initialises, its macro and callback.
@define_p depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position p;
@@

DEFINE_TIMER@p(tname, fn, e, d);

@script:python define_mk depends on patch@
tname << define_p.tname;
@@

e = timerconv.planned("defines", "DEFINE_TIMER", tname)
if e is None or "fn" in e:
	cocci.include_match(False)

@define_x depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position define_p.p;
@@

DEFINE_TIMER@p(tname, fn
- , e, d
  );

@script:python@
tname << define_x.tname;
@@

timerconv.done("defines", "DEFINE_TIMER", tname)

// patch: DEFINE_TIMER(name, NULL, 0, 0), its .function set later, is
// given the timer's one callback.
@define_f_p depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position p;
@@

DEFINE_TIMER@p(tname, fn, e, d);

@script:python define_f_mk depends on patch@
tname << define_f_p.tname;
nf;
@@

e = timerconv.planned("defines", "DEFINE_TIMER", tname)
if e is None or "fn" not in e or "data" in e:
	cocci.include_match(False)
else:
	coccinelle.nf = cocci.make_ident(e["fn"])

@define_f_x depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
identifier define_f_mk.nf;
expression e, d;
position define_f_p.p;
@@

DEFINE_TIMER@p(tname,
- fn
+ nf
- , e, d
  );

@script:python@
tname << define_f_x.tname;
@@

timerconv.done("defines", "DEFINE_TIMER", tname)

// patch, v4.14: the old form stays, its callback cast to TIMER_FUNC_TYPE
// and its data the timer's own address, as timer_setup() would hand it.
@define_l_p depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position p;
@@

DEFINE_TIMER@p(tname, fn, e, d);

@script:python define_l_mk depends on patch@
tname << define_l_p.tname;
nf;
nd;
@@

e = timerconv.planned("defines", "DEFINE_TIMER", tname)
if e is None or "data" not in e:
	cocci.include_match(False)
else:
	coccinelle.nf = cocci.make_ident(e["fn"])
	coccinelle.nd = cocci.make_ident(e["data"])

@define_l_x depends on patch@
declarer name DEFINE_TIMER;
identifier tname, fn;
identifier define_l_mk.nf, define_l_mk.nd;
expression e, d;
position define_l_p.p;
@@

DEFINE_TIMER@p(tname,
- fn
+ nf
  , e,
- d
+ nd
  );

@script:python@
tname << define_l_x.tname;
@@

timerconv.done("defines", "DEFINE_TIMER", tname)

@initializer_p depends on patch@
identifier api = {TIMER_INITIALIZER, TIMER_PINNED_INITIALIZER,
	TIMER_DEFERRED_INITIALIZER, TIMER_PINNED_DEFERRED_INITIALIZER};
expression fn, e, d;
position p;
@@

api@p(fn, e, d)

@script:python initializer_mk depends on patch@
p << initializer_p.p;
api << initializer_p.api;
fn << initializer_p.fn;
flags;
@@

entry = timerconv.planned("defines", p[0].current_element, api, fn)
if entry is None or "fn" in entry:
	cocci.include_match(False)
else:
	coccinelle.flags = cocci.make_ident(entry["flags"])

@initializer_x depends on patch@
identifier initializer_mk.flags;
identifier api;
expression fn, e, d;
position initializer_p.p, px;
@@

- api@p@px(fn, e, d)
+ __TIMER_INITIALIZER(fn, flags)

@script:python@
p << initializer_x.px;
api << initializer_x.api;
fn << initializer_x.fn;
@@

timerconv.done("defines", p[0].current_element, api, fn)

@initializer4_p depends on patch@
identifier api = {__TIMER_INITIALIZER};
expression fn, e, d, fl;
position p;
@@

api@p(fn, e, d, fl)

@script:python initializer4_mk depends on patch@
p << initializer4_p.p;
fn << initializer4_p.fn;
@@

e = timerconv.planned("defines", p[0].current_element, "__TIMER_INITIALIZER",
		      fn)
if e is None or "fn" in e:
	cocci.include_match(False)

@initializer4_x depends on patch@
identifier api;
expression fn, e, d, fl;
position initializer4_p.p, px;
@@

  api@p@px(fn,
- e, d,
  fl)

@script:python@
p << initializer4_x.px;
fn << initializer4_x.fn;
@@

timerconv.done("defines", p[0].current_element, "__TIMER_INITIALIZER", fn)

// patch, v4.14: the initialisers stay, their callback cast.
@initializer_l_p depends on patch@
identifier api = {TIMER_INITIALIZER, TIMER_PINNED_INITIALIZER,
	TIMER_DEFERRED_INITIALIZER, TIMER_PINNED_DEFERRED_INITIALIZER};
expression fn, e, d;
position p;
@@

api@p(fn, e, d)

@script:python initializer_l_mk depends on patch@
p << initializer_l_p.p;
api << initializer_l_p.api;
fn << initializer_l_p.fn;
nf;
@@

entry = timerconv.planned("defines", p[0].current_element, api, fn)
if entry is None or "fn" not in entry:
	cocci.include_match(False)
else:
	coccinelle.nf = cocci.make_ident(entry["fn"])

@initializer_l_x depends on patch@
identifier initializer_l_mk.nf;
identifier api;
expression fn, e, d;
position initializer_l_p.p, px;
@@

  api@p@px(
- fn
+ nf
  , e, d)

@script:python@
p << initializer_l_x.px;
api << initializer_l_x.api;
fn << initializer_l_x.fn;
@@

timerconv.done("defines", p[0].current_element, api, fn)

@initializer4_l_p depends on patch@
identifier api = {__TIMER_INITIALIZER};
expression fn, e, d, fl;
position p;
@@

api@p(fn, e, d, fl)

@script:python initializer4_l_mk depends on patch@
p << initializer4_l_p.p;
fn << initializer4_l_p.fn;
nf;
@@

entry = timerconv.planned("defines", p[0].current_element,
			  "__TIMER_INITIALIZER", fn)
if entry is None or "fn" not in entry:
	cocci.include_match(False)
else:
	coccinelle.nf = cocci.make_ident(entry["fn"])

@initializer4_l_x depends on patch@
identifier initializer4_l_mk.nf;
identifier api;
expression fn, e, d, fl;
position initializer4_l_p.p, px;
@@

  api@p@px(
- fn
+ nf
  , e, d, fl)

@script:python@
p << initializer4_l_x.px;
fn << initializer4_l_x.fn;
@@

timerconv.done("defines", p[0].current_element, "__TIMER_INITIALIZER", fn)

// report
@define_r depends on report@
declarer name DEFINE_TIMER;
identifier tname, fn;
expression e, d;
position p;
@@

DEFINE_TIMER@p(tname, fn, e, d);

@script:python depends on report@
fn << define_r.fn;
e << define_r.e;
d << define_r.d;
p << define_r.p;
@@

if e.strip() != "0":
	why = "refused: expires is %s, not 0" % e
else:
	why = "can become DEFINE_TIMER(name, %s); %s() then takes struct timer_list *unused" % (fn, fn)
	if d.strip() != "0":
		why += " (if it ignores data %s)" % d
print("%s:%s: DEFINE_TIMER(): %s" % (p[0].file, p[0].line, why))

@initializer_r depends on report@
identifier api = {TIMER_INITIALIZER, TIMER_PINNED_INITIALIZER,
	TIMER_DEFERRED_INITIALIZER, TIMER_PINNED_DEFERRED_INITIALIZER};
expression fn, e, d;
position p;
@@

api@p(fn, e, d)

@script:python depends on report@
api << initializer_r.api;
fn << initializer_r.fn;
p << initializer_r.p;
@@

print("%s:%s: %s(): can become __TIMER_INITIALIZER(%s, flags)" %
      (p[0].file, p[0].line, api, fn))
