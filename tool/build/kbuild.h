/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building objects with a tree's own kbuild: a build directory (kbuild's
 * O=) configured and prepared once and kept between runs, a source view
 * (overlay.h) so that converted files are built without writing the tree,
 * and one make run per set of objects.  Out-of-tree modules are built
 * through `make -C KDIR M=DIR`, in a copy of the module's tree.
 */
#ifndef TIMERCONV_KBUILD_H
#define TIMERCONV_KBUILD_H

#include <glib.h>
#include <stdbool.h>

struct kbuild_opts {
	const char *src;	/* the sources: the tree, or where it is kept */
	const char *key;	/* the tree the build directory is kept for */
	const char *config;	/* defconfig, allmodconfig, allyesconfig,
				 * a file, or NULL: the tree's .config */
	const char *build_dir;	/* NULL: one in the user's cache */
	const char *kernel_headers; /* out-of-tree: the kernel to build with */
	GPtrArray *base;	/* struct overlay_file *: where the sources
				 * differ from src */
	const char *const *make_args; /* VAR=VALUE for every make, or NULL */
	int jobs;
};

struct kbuild_result {
	bool built;
	char *error;		/* the compiler's first error line */
	GHashTable *deps;	/* the tree's files the compile read (from
				 * kbuild's .cmd file), or NULL */
};

struct kbuild_stats {
	double prepare_s;	/* configuring and preparing; 0 if cached */
	double query_s;
	double compile_s;
	guint makes;		/* make runs that compiled objects */
	guint compiled;		/* objects compiled */
	bool prepared;		/* the build directory was (re)made */
};

struct kbuild;

/* Check the options and take the build directory; builds nothing. */
struct kbuild *kbuild_open(const struct kbuild_opts *o, GError **error);
void kbuild_close(struct kbuild *kb);

/* Configure and prepare the build directory, unless it is already. */
bool kbuild_prepare(struct kbuild *kb, GError **error);

/* The object kbuild makes of a .c file of the tree ("a/b.c" -> "a/b.o"). */
char *kbuild_object(const char *c_path);

enum kbuild_in {
	KB_BUILT,		/* this config builds it */
	KB_NOT_BUILT,
	KB_UNKNOWN,		/* kbuild could not say (its directory's
				 * Makefile failed) */
};

struct kbuild_answer {
	enum kbuild_in in;
	char *why;		/* not built, unknown: where kbuild stops,
				 * "drivers does not build drivers/isdn" */
};

/*
 * Whether this config builds each object (ans[i]).  False, with an
 * error, when kbuild could not be asked at all, or when what it said
 * cannot be right (it builds the objects' directories but compiles
 * nothing in them).
 */
bool kbuild_query(struct kbuild *kb, GPtrArray *objects,
		  struct kbuild_answer *ans, GError **error);
void kbuild_answer_clear(struct kbuild_answer *a);

/*
 * Compile the objects (root-relative .o paths) from the tree with the
 * files in state (struct overlay_file *) in place of the tree's.  False
 * only when kbuild itself failed (or the run was interrupted); a source
 * that does not compile is a result.
 */
bool kbuild_compile(struct kbuild *kb, GPtrArray *objects, GPtrArray *state,
		    struct kbuild_result *res, GError **error);

void kbuild_result_clear(struct kbuild_result *r);

/* "defconfig in DIR", "headers of KDIR", for messages. */
const char *kbuild_describe(const struct kbuild *kb);
const char *kbuild_config(const struct kbuild *kb);
const char *kbuild_dir(const struct kbuild *kb);
const struct kbuild_stats *kbuild_stats(const struct kbuild *kb);

#endif
