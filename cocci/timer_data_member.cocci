// SPDX-License-Identifier: GPL-2.0
/// --keep-data: a member beside the timer, to hold what its .data held.
///
/// Since v4.15 a timer has no .data.  When a callback needs the value its
/// timer carried and nothing else leads back to it, timerconv keeps it in
/// the timer's own struct:
///	struct timer_list timer;		struct timer_list timer;
///						unsigned long timer_data;
/// set where the old code set .data and read by the callback through
/// from_timer().  Which struct and member is timerconv's decision
/// (TIMERCONV_PLAN).
//
// Confidence: High
// Comments: patch mode needs the plan of `timerconv convert --keep-data`.
// Options: --no-includes --include-headers

virtual patch
virtual report
virtual facts

@member_p depends on patch@
identifier tag : script:python () { timerconv.keeps_in(tag) };
identifier fld;
type T;
@@

struct tag { ... T fld; ... };

@script:python member_mk depends on patch@
tag << member_p.tag;
fld << member_p.fld;
tg;
fl;
mem;
@@

e = timerconv.planned("members", tag, fld)
if e is None:
	cocci.include_match(False)
else:
	coccinelle.tg = cocci.make_ident(tag)
	coccinelle.fl = cocci.make_ident(fld)
	coccinelle.mem = cocci.make_ident(e["member"])

@member_x depends on patch@
identifier member_mk.tg, member_mk.fl, member_mk.mem;
type T;
position px;
@@

struct tg {
  ...
  T fl@px;
+ unsigned long mem;
  ...
};

@script:python@
tg << member_mk.tg;
fl << member_mk.fl;
px << member_x.px;
@@

timerconv.done("members", tg, fl)

// A file-scope timer gets a static of its own beside it.
@static_p depends on patch@
identifier X : script:python () { timerconv.keeps_beside(X) };
declarer name DEFINE_TIMER;
position pp;
@@

(
struct timer_list X@pp;
|
struct timer_list X@pp = ...;
|
DEFINE_TIMER(X@pp, ...);
)

@script:python static_mk depends on patch@
x << static_p.X;
pp << static_p.pp;
tx;
decl;
@@

e = timerconv.planned("statics", x)
# a function's own timer of the same name is not the file's (at file
# scope, spatch names the declaration as the element)
if e is None or pp[0].current_element not in (x, "something_else"):
	cocci.include_match(False)
else:
	coccinelle.tx = cocci.make_ident(x)
	coccinelle.decl = cocci.make_ident(e["decl"])

@static_x depends on patch@
identifier static_mk.tx, static_mk.decl;
declarer name DEFINE_TIMER;
position static_p.pp, px;
@@

(
struct timer_list tx@pp@px;
+ static unsigned long decl;
|
struct timer_list tx@pp@px = ...;
+ static unsigned long decl;
|
DEFINE_TIMER(tx@pp@px, ...);
+ static unsigned long decl;
)

@script:python@
tx << static_mk.tx;
px << static_x.px;
@@

timerconv.done("statics", tx)

// Declared among other timers: the static goes after the declaration,
// found by where it ends (a declaration's text, with the comments in it,
// may hold bytes Python cannot decode).
@static_m depends on patch@
declaration d;
position pm : script:python () { timerconv.kept_among(pm) is not None };
@@

d@pm

@script:python static_mm depends on patch@
pm << static_m.pm;
tx;
decl;
@@

x = timerconv.kept_among(pm)
if x is None:
	cocci.include_match(False)
else:
	coccinelle.tx = cocci.make_ident(x)
	coccinelle.decl = cocci.make_ident(timerconv.planned("statics",
							       x)["decl"])

@static_mx depends on patch@
declaration static_m.d;
position static_m.pm;
identifier static_mm.decl;
@@

d@pm
+ static unsigned long decl;

@script:python depends on static_mx@
tx << static_mm.tx;
@@

timerconv.done("statics", tx)
