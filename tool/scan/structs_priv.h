/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The struct index's insides, for structs.c (building and looking up)
 * and structs_cache.c (saving and loading it).
 */
#ifndef TIMERCONV_STRUCTS_PRIV_H
#define TIMERCONV_STRUCTS_PRIV_H

#include "structs.h"

/* A typedef of a struct (or of another typedef), where it is written. */
struct tdef {
	char *file;
	char *value;		/* "struct foo", "struct foo *", "foo_t *" */
};

struct struct_index {
	GMutex lock;
	GHashTable *defs;	/* tag -> GPtrArray of struct sdef * */
	GHashTable *typedefs;	/* name -> GPtrArray of struct tdef * */
	GHashTable *includes;	/* file -> GPtrArray: "\"x.h\"", "<x.h>" */
	GPtrArray *inc_dirs;	/* where <x.h> is looked for */
	GHashTable *closures;	/* file -> set of the files it includes */
	guint anon;
};

void free_member(gpointer p);
void free_sdef(gpointer p);
void free_tdef(gpointer p);
void free_defs(gpointer p);

#endif
