/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every reason a site can be refused with: what the summary, the JSON
 * report (--report) and a series' cover letter say of each site left
 * alone.  Users sort, count and grep them, so a reason changes only on
 * purpose, and reads as one phrase: lower case (unless it starts with a
 * name from the code), no full stop, %s where a part varies.
 *
 * This is the table tests/unit/test_reasons.c checks the sources against:
 * every reason the code can emit is here, and nothing else.  The code
 * still spells each reason where it refuses (unit_refuse(), site_refuse(),
 * poison(), verify.c's and keep.c's refuse(), the *_reason() helpers;
 * reasons may be joined: "--keep-data: ...", "A (B)"); a new one is
 * added here in the same change (HACKING.md, "Adding a refusal reason").
 * The macros are there for the call sites to use in their place.
 */
#ifndef TIMERCONV_REASONS_H
#define TIMERCONV_REASONS_H

/* scan/scan.c: code left alone on purpose (a site's compat_why) */
#define REASON_DEAD_CODE "dead code (#if 0)"
#define REASON_COMPAT_BRANCH "compat branch"
#define REASON_COMPAT_DEFINITION "compat definition"
#define REASON_COMPAT_DEFINITION_OF "compat definition of %s()"

/* plan/bind.c: sites and callbacks as they are joined (site_refuse(),
 * poison()) */
#define REASON_CALLBACK_NOT_A_NAME "callback is not a function name"
#define REASON_CALLBACK_DEFINED_TWICE "callback %s() is defined more than once"
#define REASON_CALLBACK_IN_MODULES \
	"callback %s() is defined in several modules, and which one %s means is not clear"
#define REASON_CALLBACK_DEFINED_TWICE_IN_MODULE \
	"callback %s() is defined more than once in what links into %s"
#define REASON_CALLBACK_NOT_DEFINED \
	"callback %s() is not defined as void %s(unsigned long) in the tree"
#define REASON_CALLBACK_IN_MACRO "callback %s() is used in a macro definition"
#define REASON_NAME_IS_LOCAL \
	"%s here is a parameter or a local variable, not the function %s()"
#define REASON_CALLBACK_ESCAPES \
	"callback address escapes (stored, compared or passed on)"
#define REASON_UNPARSED_DEFINITION \
	"not parsed: spatch could not parse the definition of %s()"
#define REASON_UNPARSED_PROTOTYPE \
	"not parsed: spatch could not parse the prototype of %s()"
#define REASON_UNPARSED_USE "not parsed: spatch could not parse a use of %s()"
#define REASON_UNPARSED_SETUP "a setup of %s() was not parsed by spatch"

/* plan/types.c: check_field()'s answer, the last %s of
 * REASON_CANNOT_CHECK_FIELD */
#define REASON_FIELD_NOT_UNDERSTOOD "field not understood"
#define REASON_FIELD_STRUCT_UNDEFINED "not defined in the tree"
#define REASON_FIELD_STRUCT_AMBIGUOUS "defined differently in several places"
#define REASON_FIELD_NO_SUCH_TIMER \
	"has no struct timer_list member of that name"

/* plan/decide.c: how the data relates to the timer (relation_reason()) */
#define REASON_DATA_INTEGER "integer data that the callback uses"
#define REASON_DATA_NOT_CONTAINER "data is not the timer's container"
#define REASON_DATA_NOT_MEMBER \
	"callback cannot recover its container (the timer is not a member of a structure)"
#define REASON_DATA_VARIABLE_INDEX \
	"callback cannot recover its container (variable array index)"
#define REASON_DATA_TOO_DEEP \
	"callback cannot recover its container (member path too deep)"
#define REASON_DATA_NOT_UNDERSTOOD "data not understood"

/* plan/decide.c: what the target's timer.h lacks (form_missing()) */
#define REASON_TARGET_NO_FUNC_TYPE \
	"the target's timer_list.function takes unsigned long and its timer.h has no TIMER_FUNC_TYPE to cast a converted callback to"
#define REASON_TARGET_NO_SETUP_ON_STACK \
	"the target's timer.h has neither timer_setup_on_stack() nor TIMER_FUNC_TYPE"
#define REASON_TARGET_NO_SHORT_DEFINE \
	"the target's timer.h has neither DEFINE_TIMER(name, fn) nor TIMER_FUNC_TYPE"
#define REASON_COMPAT_NO_INITIALIZER \
	"a static initialiser has no spelling that builds both before and after v4.15 (DEFINE_TIMER() has)"
#define REASON_TARGET_NO_SHORT_INITIALIZER \
	"the target's timer.h has neither __TIMER_INITIALIZER(fn, flags) nor TIMER_FUNC_TYPE"

/* plan/decide.c: the setups, the data and its sources */
#define REASON_SETUP_IN_HELPER \
	"setup inside a helper that receives fn/data as parameters"
#define REASON_STATIC_CALLBACK_CAST "static timer whose callback is cast"
#define REASON_STATIC_EXPIRES_NOT_CONSTANT \
	"static timer with an expires that is not a constant 0"
#define REASON_STATIC_EXPIRES_NONZERO \
	"static timer with a nonzero expires (add_timer() would use it)"
#define REASON_INIT_SETS_NO_DATA \
	"%s() uses its data but init_timer() here sets no .data"
#define REASON_FUNCTION_WITHOUT_CONTAINER \
	"%s() is set as .function here, but no setup of that timer passes its container"
#define REASON_NOTHING_SETS_DATA \
	"%s() uses its data but nothing sets the .data of the timer here"
#define REASON_GLOBAL_TIMER_DATA \
	"the timer is a global (DEFINE_TIMER) and %s() uses its data"
#define REASON_DATA_ASSIGNED_ELSEWHERE \
	"the timer's .data is assigned elsewhere (at %s) to something other than its container"
#define REASON_SHARED_DIFFERENT_FIELDS \
	"callback shared by timers in different fields"
#define REASON_SHARED_DIFFERENT_CONTAINERS \
	"callback shared by timers in different container types"
#define REASON_CONTAINER_MISMATCH \
	"container type mismatch: the setup passes %s, %s() expects %s"
#define REASON_NO_SETUP_PASSES_CONTAINER "no setup of %s() passes its container"
#define REASON_DATA_SOURCE_UNKNOWN_CALLBACK \
	"cannot tell which callback the timer whose .data is set at %s runs"
#define REASON_DATA_SIDE_EFFECTS "the timer's data %s has side effects"
#define REASON_FUNCTION_READ \
	"the timer's .function is read at %s, and timer_setup() in place of its init_timer() would set it before the old code did"
#define REASON_DATA_READ_AT \
	"the timer's .data is read at %s: after timer_setup() it no longer holds what the old code put there"
#define REASON_DATA_READ_THROUGH_POINTER \
	"a timer's .data is read through a pointer at %s: which timer, cannot be told"

/* plan/decide.c: the callback's definition and body */
#define REASON_POINTER_CALLBACK_HOP "%s() takes %s but its timer is in %s->%s"
#define REASON_HOP_UNRESOLVED \
	"cannot resolve %s->%s: %s is not defined in the tree"
#define REASON_HOP_USED_OTHERWISE \
	"%s() uses %s for more than %s->%s; it cannot be recovered from the timer"
#define REASON_NAME_CONFLICT_HOP "name conflict: %s() already uses the name %s"
#define REASON_CANNOT_CHECK_FIELD "cannot check field %s: %s %s"
#define REASON_NAME_CONFLICT_PARAM "name conflict: %s() uses t, timer and tl"
#define REASON_NAME_CONFLICT_UNUSED \
	"name conflict: %s() uses unused, t and timer"
#define REASON_CASTS_TO_TWO_TYPES "callback casts data to two different types"
#define REASON_UNPARSED_BODY "not parsed: cannot find the body of %s()"
#define REASON_DATA_USED_TWICE "callback uses data more than once"
#define REASON_DATA_USED_OTHERWISE \
	"callback uses data other than to find its container"
#define REASON_CALLBACK_NOT_VOID "callback %s() returns %s, not void"
#define REASON_CALLBACK_ALREADY_CONVERTED \
	"callback %s() already takes struct timer_list *"
#define REASON_CALLBACK_PARAMETER \
	"callback %s() takes %s, not unsigned long or a pointer to its container"
#define REASON_DIRECT_CALL_SIDE_EFFECTS \
	"a direct call of %s() has an argument with side effects"
#define REASON_DIRECT_CALL_NOT_CONTAINER \
	"callback is called with a non-container argument"
#define REASON_DIRECT_CALL_OTHER_DATA \
	"a direct call of %s() passes %s, not what its timer's data is then"

/* plan/keep.c: --keep-data, its prefix and what follows it */
#define REASON_KEEP_DATA "--keep-data: %s"
#define REASON_KEEP_NOT_PLAIN_MEMBER \
	"a timer of %s() is not a plain member of a struct"
#define REASON_KEEP_DIFFERENT_MEMBERS "%s() runs on timers in different members"
#define REASON_KEEP_NO_SETUP "nothing sets up a timer of %s()"
#define REASON_KEEP_DATA_SET_OTHERWISE \
	"the timer's data is set at %s through something other than its struct"
#define REASON_KEEP_DATA_SET_THROUGH_POINTER \
	"a timer's .data is set through a pointer at %s: which timer, cannot be told"
#define REASON_KEEP_NOT_FILE_SCOPE \
	"%s is not a timer declared at file scope above its callback"
#define REASON_KEEP_DATA_SET_IN_OTHER_FILE \
	"the data of %s is set in another file"
#define REASON_KEEP_DATA_READ_IN_OTHER_FILE \
	"the data of %s is read in another file"
#define REASON_KEEP_NAME_TAKEN "%s is a name already"
#define REASON_KEEP_NO_BODY "cannot find the body of %s()"
#define REASON_KEEP_NOT_ULONG "%s() does not take unsigned long"
#define REASON_KEEP_UNIT_DIFFERENT_MEMBERS \
	"the unit's timers are in different members (%s)"
#define REASON_KEEP_STRUCT_UNDEFINED "%s is not defined in the tree (once)"
#define REASON_KEEP_MEMBER_TAKEN \
	"%s already has a member named like the new one"

/* plan/decide.c: where the converted code would name the callback */
#define REASON_SETUP_BEFORE_ANY_DECLARATION \
	"timer_setup() here would name %s() before anything declares it in this file"
#define REASON_SETUP_BEFORE_DECLARATION \
	"timer_setup() here would name %s() before its declaration, and %s() already needs a prototype above %s()"
#define REASON_DEFINE_BEFORE_DECLARATION \
	"DEFINE_TIMER() here would name %s() before anything declares it"
#define REASON_INIT_NULL_FUNCTION "init_timer() followed by a NULL .function"
#define REASON_INIT_SEVERAL_CALLBACKS \
	"%s of a timer that runs several callbacks (%s(), %s())"
#define REASON_INIT_NO_FUNCTION_ON_EVERY_PATH \
	"%s without a .function assignment on every path after it"

/* plan/plan.c: sites no unit takes */
#define REASON_SPATCH_TIMED_OUT "not parsed: spatch timed out on this file"
#define REASON_SPATCH_FAILED "not parsed: spatch failed on this file"
#define REASON_SPATCH_COULD_NOT_PARSE \
	"not parsed: spatch could not parse the code around it"
#define REASON_LONE_SETUP \
	"setup with a NULL callback and no .function assignment this tool can convert"
#define REASON_LONE_STATIC \
	"static timer defined with a NULL callback and no .function assignment this tool can convert"
#define REASON_LONE_INIT \
	"init_timer() without a .function assignment on every path after it"
#define REASON_IN_MACRO_DEFINITION "inside a macro definition"
#define REASON_DATA_ASSIGN_WITHOUT_SETUP \
	"a .data assignment with no setup this tool can convert"
#define REASON_DATA_READ "the timer's .data is read here"
#define REASON_CALLBACK_WITHOUT_SETUP \
	"callback with no setup this tool can convert"
#define REASON_RENAME_NOT_PLANNED "rename not planned"
#define REASON_NO_SETUP_FACT "not understood: no setup fact for this site"
#define REASON_SPELLED_AS_COMPAT \
	"spelled as in compat code of the same function"
#define REASON_OUTSIDE_PATHS \
	"unit extends outside the given paths: %s (--follow-units converts it whole)"

/* rewrite/rewrite.c: spatch's result checked against the plan */
#define REASON_REWRITE_INCOMPLETE \
	"rewrite incomplete: spatch did not rewrite the %s here%s%s"
#define REASON_NO_INCLUDE_FOR_COMPAT \
	"could not add the #include of %s to %s (it has no #include to put it after)"
#define REASON_STILL_TAKES_ULONG \
	"rewrite incomplete: %s() still takes unsigned long"
#define REASON_REWRITE_CHECK_FAILED \
	"rewrite check failed: the result of %s does not match the plan"
#define REASON_REWRITE_LOST \
	"internal error: the rewrite left %s unchanged; the unit is not converted"

/* cmd/convert.c: a file edited by someone else while we ran */
#define REASON_CHANGED_ON_DISK \
	"not written: a file of the unit changed on disk while timerconv ran"

/* build/verify.c: --verify, each followed by ": " and the compiler's message */
#define REASON_DOES_NOT_BUILD "does not build after conversion"
#define REASON_DOES_NOT_BUILD_IN_SERIES \
	"does not build on top of the patches before it"

/* cmd/series.c: --upstream */
#define REASON_ALREADY_UPSTREAM "already converted in %s"

#endif
