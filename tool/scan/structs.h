/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An index of the struct and union definitions (and typedefs of them) in
 * a tree's files, so that member chains like q->backing_dev_info->t can
 * be resolved without asking spatch to parse every header.
 */
#ifndef TIMERCONV_STRUCTS_H
#define TIMERCONV_STRUCTS_H

#include <glib.h>
#include <stdbool.h>

struct ctype {
	char *tag;	/* "struct foo", "union bar", or a type name */
	int ptr;	/* levels of pointer */
	bool array;
	char *text;	/* as declared, e.g. "struct backing_dev_info *" */
};

struct member {
	char *name;
	struct ctype type;
};

struct sdef {
	char *tag;
	char *file;
	unsigned int line;
	GPtrArray *members;	/* struct member *, anonymous ones inlined */
};

struct struct_index;

struct struct_index *structs_new(void);
void structs_free(struct struct_index *si);

/* Where <x.h> is looked for, after include/ (a path as the files of the
 * index are named). */
void structs_add_include_dir(struct struct_index *si, const char *dir);

/* Index the definitions in one file (thread-safe). */
void structs_add_file(struct struct_index *si, const char *path,
		      const char *text, size_t len);

/*
 * Parse a type as spatch or a declaration writes it: "struct foo *",
 * "foo_t *", "const struct foo".  Typedefs of structs are resolved.
 */
bool ctype_parse(struct struct_index *si, const char *text,
		 struct ctype *out);
/* The same, with typedefs as `file` sees them through its includes. */
bool ctype_parse_in(struct struct_index *si, const char *text,
		    const char *file, struct ctype *out);
void ctype_clear(struct ctype *t);
bool ctype_same_object(const struct ctype *a, const struct ctype *b);

/*
 * The member `name` of the struct `tag`, when every definition of `tag`
 * that could be meant (those prefer_file sees through its includes, if
 * any, else all) agrees on its type.  NULL if unknown or ambiguous.
 */
const struct member *structs_member(struct struct_index *si, const char *tag,
				    const char *name, const char *prefer_file);

/* The same; *ambiguous when definitions that could be meant disagree
 * (one has the member and another lacks it, or types differ). */
const struct member *structs_member_amb(struct struct_index *si,
					const char *tag, const char *name,
					const char *prefer_file,
					bool *ambiguous);

/* The file defining `tag` that `file` sees through its includes, when
 * it sees exactly one; NULL otherwise.  Owned by the index. */
const char *structs_def_file(struct struct_index *si, const char *tag,
			     const char *file);

bool structs_known(struct struct_index *si, const char *tag);

#endif
