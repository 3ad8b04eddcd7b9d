// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel macros that spatch 1.1.1 cannot parse through on its own.
 * timerconv gives spatch this file on every run (--macro-file), after
 * the macros spatch knows (standard.h, in /usr/lib/coccinelle).  A
 * user's --macro-file is appended to it: where both define a name, the
 * user's definition wins.  spatch's own (standard.h) win over both,
 * which is why DECLARE_BITMAP(ids, 64) = { 0 }; cannot be taught here.
 *
 * A function spatch cannot parse is one timerconv cannot convert ("not
 * parsed: spatch could not parse the definition of f()"), and the same
 * goes for a prototype.  Each entry is here because spatch refuses the
 * code around it without it, in the place the kernel writes it
 * (tests/test_macros.py shows each; tests/bench/parse_fails.py counts
 * the functions refused on a tree).  All are the kernel's own
 * (include/), none one driver's.
 *
 * Rule: a definition here expands to nothing, to C keywords, to its own
 * parameters or to one of spatch's hints; never to the timer API, .data,
 * .function or any function.  Blanking (tool/scan/blank.c) decides from
 * the tokens of a body whether spatch must see it, so a macro that
 * expanded to the timer API could hide a site; these cannot, and
 * blanking stays on with them (only a user's --macro-file turns it
 * off).  tests/test_macros.py holds the file to that.
 */

/* ---- statement iterators: spatch guesses those named *for_each* ---- */

/* include/linux/cleanup.h (6.5): scoped_guard(mutex, &lock) { ... } */
#define scoped_guard(_name, args...) YACFE_ITERATOR
#define scoped_cond_guard(_name, _fail, args...) YACFE_ITERATOR

/* include/net/tcp.h (4.15): tcp_skb_tsorted_save(skb) { ... } */
#define tcp_skb_tsorted_save(skb) YACFE_ITERATOR

/* ---- bitmaps declared with an initializer: x(mask) = { 0, }; ---- */

/* include/linux/ethtool.h (4.6) */
#define __ETHTOOL_DECLARE_LINK_MODE_MASK(name) unsigned long name[1]
/* include/net/ip_tunnels.h (6.9) */
#define IP_TUNNEL_DECLARE_FLAGS(name) unsigned long name[1]

/* ---- attributes spatch does not know ---- */

/* after a prototype's parameters: void *f(size_t n) __malloc; */
#define __cold
#define __malloc
#define __alloc_size(args...)
#define __assume_aligned(args...)
#define __scanf(a, b)

/* after a definition's parameters: int f(...) __cond_acquires(x) { */
#define __cond_acquires(x)

/* before a function's name: static int __section(".x") f(void) { */
#define __section(s)

/* after a local's name: static const u8 seed[16] __latent_entropy; */
#define __latent_entropy
