/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --verify: every .c file a converted unit changes is compiled with the
 * tree's kbuild before and after the conversion.  A unit whose files
 * built before and do not after is refused, and the rewrite loop puts its
 * files back; a file this config does not build is reported, never
 * counted as verified.
 */
#ifndef TIMERCONV_VERIFY_H
#define TIMERCONV_VERIFY_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>
#include <stdio.h>

#include "conv.h"
#include "tree.h"

struct verify_opts {
	const char *config;		/* --config */
	const char *build_dir;		/* --build-dir */
	const char *kernel_headers;	/* out-of-tree: make -C KDIR M=... */
	const char *const *make_args;	/* --make-arg VAR=VALUE, or NULL */
	/* When the run works on a copy of the tree (series): the tree the
	 * build directory is kept for, which holds the sources, and the
	 * files where the copy differs from it (struct overlay_file *). */
	const char *src;
	GPtrArray *base;
};

struct verify;

/* --config, --build-dir and --make-arg: the same options for every
 * command that has --verify (o: its options, with those members). */
#define VERIFY_BUILD_OPTIONS(o)						\
	{ "config", 0, 0, G_OPTION_ARG_FILENAME, &(o).config,		\
	  "--verify with this config instead of the tree's .config",	\
	  "defconfig|allmodconfig|allyesconfig|FILE" },			\
	{ "build-dir", 0, 0, G_OPTION_ARG_FILENAME, &(o).build_dir,	\
	  "--verify: the build directory (kbuild's O=; default: one in ~/.cache/timerconv, kept between runs)", \
	  "DIR" },							\
	{ "make-arg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &(o).make_args,	\
	  "--verify: give VAR=VALUE to every make it runs (repeatable): ARCH=arm64, CROSS_COMPILE=aarch64-linux-gnu-, LLVM=1, CC=gcc-12, HOSTCFLAGS=-fcommon", \
	  "VAR=VALUE" }

struct verify *verify_new(const struct tree *tree, const struct verify_opts *o,
			  int jobs, GError **error);
void verify_free(struct verify *v);

/* Before the first rewrite round: compile the units' files as they are. */
bool verify_before(struct conversion *cv, GError **error);

/*
 * After a rewrite round that came out as planned: compile the units'
 * files as converted; refuse the units that no longer build, adding them
 * to failed.
 */
bool verify_round(struct conversion *cv, GHashTable *failed, GError **error);

/*
 * Whether the .c files among files build with state (struct cfile *, each
 * with its new text) applied to the tree; *why gets the first error.
 */
bool verify_state(struct conversion *cv, GPtrArray *state, GPtrArray *files,
		  char **why, GError **error);

/* Record that u was refused for a build failure (series). */
void verify_refused(struct conversion *cv, struct unit *u, const char *why);

/* "built", "not-built", "failed: ..." for a site, or NULL. */
const char *verify_site(struct conversion *cv, const struct csite *s);

void verify_summary(struct conversion *cv, FILE *out);
/* What was build-tested, for a cover letter. */
char *verify_note(struct conversion *cv);
/* The "verify" member of the report's summary. */
void verify_json(struct conversion *cv, JsonBuilder *b);

#endif
