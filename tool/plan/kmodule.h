/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which definition of a non-static callback a file links against, when
 * several drivers of the tree define the same name (staging drivers
 * copied from one vendor source do): the one in the kbuild module the
 * file's object links into, as the directory's Makefile or Kbuild lists
 * it (foo-y += a.o, foo-objs := a.o b.o, obj-$(CONFIG_FOO) += foo.o);
 * where no kbuild file lists it, the one in its own directory.
 */
#ifndef TIMERCONV_KMODULE_H
#define TIMERCONV_KMODULE_H

#include <stdbool.h>

struct planner;
struct cfile;

/*
 * The module whose definition of `name` file f means, when the tree
 * holds non-static definitions of it in more than one module: a name for
 * it ("drivers/staging/foo/foo.o", "drivers/foo/bar.o" for an object of
 * its own, "drivers/foo/" for a directory no kbuild file lists), or "?"
 * for a header no one module owns.  NULL when the name has definitions
 * in one module at most: it is then the tree's one callback of that
 * name.
 */
const char *kmodule_scope(struct planner *pl, const struct cfile *f,
			  const char *name);

/* Does file f belong to module m (a .c file linked into it; a header
 * in its directories or included by one of its files)? */
bool kmodule_sees(struct planner *pl, const char *m, const struct cfile *f);

/*
 * A file that names `name` (outside its own static of that name) and is
 * not of exactly one of the modules that define it, when more than one
 * does: a header two of them see, a file of a module that defines none;
 * which definition it means is not clear.  NULL when there is none.
 */
const char *kmodule_unclear(struct planner *pl, const char *name);

void kmodule_free(struct planner *pl);

/*
 * For the fuzzer: what kbuild text says of object obj ("sub/a.o"): the
 * composite it links into ("foo" for foo-y += sub/a.o), "" when an obj-
 * list names it on its own, NULL when nothing lists it.
 */
char *kmodule_parse_member(const char *text, const char *obj);

#endif
