// SPDX-License-Identifier: GPL-2.0
/// The plain-spatch baseline of make bench: the least a forward
/// conversion costs, two rules and no analysis.  setup_timer() becomes
/// timer_setup() and the callback takes the timer; nothing checks that
/// the data was the timer's container, nor fixes the callback's body.
/// Not a conversion to apply: a yardstick for timerconv convert's speed.
//
// Options: --no-includes --include-headers

@setup@
identifier fn;
expression T, D;
@@

- setup_timer(T, fn, D)
+ timer_setup(T, fn, 0)

@depends on setup@
identifier setup.fn, data;
@@

  void fn(
- unsigned long data
+ struct timer_list *t
  ) { ... }
