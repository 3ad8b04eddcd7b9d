/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A conversion run: the files that take part, what the scan and spatch
 * found in them, the units (sets of changes that must be made together)
 * and what became of every old-API site.
 */
#ifndef TIMERCONV_CONV_H
#define TIMERCONV_CONV_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "facts.h"
#include "lexer.h"
#include "scan.h"
#include "structs.h"
#include "target.h"
#include "tree.h"

struct cb_ref {
	char *name;
	unsigned int line;
	unsigned int col;
	bool in_define;
};

struct cfile {
	char *path;			/* root-relative */
	char *text;			/* as read */
	size_t len;
	struct scan_result *scan;
	struct token *tokens;		/* lexed on demand */
	size_t ntok;
	bool in_scope;			/* under the PATHs asked for */
	bool candidate;			/* has old-API sites to convert */
	struct file_facts *facts;	/* facts pass */
	char *spatch_error;		/* the facts pass failed */
	bool timed_out;
	const char *damage;		/* not given to spatch: damage.h */
	unsigned int damage_line;
	unsigned int conflict_line;	/* conflict markers around #includes
					 * only (converted, with a warning) */
	GPtrArray *refs;		/* struct cb_ref * */
	GPtrArray *cb_names;		/* callback names among its
					 * identifiers, in any context */
	/* rewrite */
	char *new_text;
	size_t new_len;
	struct file_facts *done;	/* patch pass output */
	char *rewrite_error;
	bool is_new;			/* created by the run (compat header) */
	bool compat_include;		/* the plan adds the compat #include */
	bool compat_missing;		/* ... and spatch could not */
	/* the facts+patch pass (speculate.h) */
	char *spec_plan;		/* the plan it was given, canonical;
					 * NULL: no rule asked for one */
	char *spec_text;		/* its result; NULL: unchanged */
	size_t spec_len;
	struct file_facts *spec_done;	/* its "done" records */
	bool spec_ok;			/* spatch ran it to the end */
	bool spec_blanked;		/* spatch read it blanked (blank.h) */
};

struct unit;
struct planner;

/* One change the plan asks spatch for. */
struct plan_item {
	struct unit *unit;		/* the unit it belongs to */
	struct cfile *file;
	const char *section;		/* setups, inits, callbacks, ... */
	char *key;			/* how the rules name it: plan_key() */
	struct fpos at;			/* where the facts pass saw it */
	JsonObject *entry;
	char *what;			/* for messages: "setup_timer()" */
	const char *callback;		/* the callback it belongs to */
};

enum outcome {
	OUT_CONVERTED,
	OUT_REFUSED,
};

struct csite {
	struct cfile *file;
	const struct site *site;
	struct unit *unit;
	enum outcome outcome;
	char *reason;
	char *callback;
};

struct unit {
	guint id;
	GPtrArray *callbacks;		/* struct callback * (plan.c's) */
	GPtrArray *cb_names;		/* their names */
	GPtrArray *items;		/* struct plan_item * */
	GPtrArray *sites;		/* struct csite * */
	GHashTable *files;		/* struct cfile * set */
	GPtrArray *lone;		/* timers set up without a callback */
	GPtrArray *dsrcs;		/* what sets their .data */
	GPtrArray *reads;		/* struct dread *: what reads it */
	char *reason;			/* NULL: converted */
	char *where;			/* "file:line" of the cause */
	/* --keep-data: "struct foo.timer_data", the member that holds the
	 * data now, in the struct defined in keep_file */
	char *kept;
	char *keep_tag;			/* "foo" */
	char *keep_field;		/* the timer: "timer" */
	char *keep_member;		/* "timer_data" */
	struct cfile *keep_file;
	/* ... or a static beside a file-scope timer: its name, and the
	 * value its initialiser gave .data ("0" when none) */
	char *keep_global;
	char *keep_init;
	/* declared with other timers: the line its declaration ends on
	 * (0: declared alone) */
	unsigned int keep_among;
};

struct verify;

struct conversion {
	const struct tree *tree;
	const struct target *target;
	GPtrArray *files;		/* struct cfile * */
	GHashTable *by_path;
	struct struct_index *structs;
	bool structs_cached;		/* read from the cache */
	GPtrArray *include_dirs;	/* absolute: -I, --kernel-headers */
	GPtrArray *all_files;		/* the whole tree, for the index */
	int jobs;
	char *compat_header;		/* --compat-header, root-relative */
	GPtrArray *sites;		/* struct csite * */
	GPtrArray *units;		/* struct unit * */
	struct planner *planner;	/* plan.c's, for the units' lifetime */
	struct verify *verify;		/* --verify (verify.h), or NULL */
	bool keep_data;			/* --keep-data */
	/* the planner may read more files into the run (a struct to add a
	 * member to): not in the speculation's sub-conversions */
	bool may_add_files;
	GHashTable *scope;		/* paths under the PATHs, when they
					 * narrow the run; NULL: all */
};

/* cfile.c */
struct cfile *cfile_new(const char *path, char *text, size_t len);
void cfile_free(struct cfile *f);
const struct token *cfile_tokens(struct cfile *f, size_t *n);
/* Write f's text as dir/PATH, for spatch; its absolute path. */
char *cfile_scratch_copy(const struct cfile *f, const char *dir,
			 GError **error);
/* f's text with the function bodies that cannot matter blanked (blank.h),
 * or NULL; *blanked: how many bytes. */
char *cfile_blanked_text(struct cfile *f, size_t *blanked);
/* The same with other text in it. */
char *cfile_scratch_write(const struct cfile *f, const char *dir,
			  const char *text, size_t len, GError **error);
/* Free them (32 bytes a token): they are lexed again when next asked. */
void cfile_forget_tokens(struct cfile *f);
struct cfile *conv_file(struct conversion *cv, const char *path);
/* For g_ptr_array_sort() of struct cfile *: by path. */
int cfile_cmp_path(gconstpointer a, gconstpointer b);
/* Where f's #include "name" leads: name beside f, normalised. */
char *cfile_include_path(const struct cfile *f, const char *name);
/* Does f #include "..." the file at path (root-relative)? */
bool cfile_includes(const struct cfile *f, const char *path);
struct struct_index *conv_structs(struct conversion *cv);

/* refs.c: uses of callback names, as C resolves them (names.h) */
struct cb_names {
	GHashTable *all;	/* every callback name */
	GHashTable *global;	/* those a callback of external linkage has */
	GHashTable *homes;	/* name -> GPtrArray of the files whose own
				 * static callback has it */
};

void cb_names_init(struct cb_names *cn);
void cb_names_clear(struct cb_names *cn);
/*
 * The callbacks the files' old-API sites name, which are static in the
 * file that names them (their home) and which are not.  The files'
 * tokens are forgotten.
 */
void cb_names_collect(struct cb_names *cn, GPtrArray *files);
/* f's uses of the callbacks (f->refs), and the names it uses
 * (f->cb_names). */
void refs_find(struct cfile *f, const struct cb_names *cn);
/* Where in f the names denote a function (or whatever the file declares
 * by that name at file scope), not a parameter, local or member: a set
 * of refs_pos_key()s. */
GHashTable *refs_functions(struct cfile *f, GHashTable *names);
static inline gint64 refs_pos_key(unsigned int line, unsigned int col)
{
	return (gint64)line << 32 | col;
}
/* The files of `files` that may use one of the names (external linkage)
 * as C resolves them; *mentioned: how many spell one. */
GPtrArray *refs_files(const struct tree *tree, GPtrArray *files,
		      GHashTable *names, int jobs, guint *mentioned);

/* plan.c */
/* The rules' name for a construct: its parts, blank-normalised, joined by
 * "|" (cocci/timerconv.py computes the same). NULL ends the list. */
char *plan_key(const char *first, ...) G_GNUC_NULL_TERMINATED;
void plan_build(struct conversion *cv);
void plan_settle(struct conversion *cv);
void plan_free(struct conversion *cv);
/* Refuse the units that would change files outside the PATHs given. */
void plan_keep_in_scope(struct conversion *cv);
void unit_refuse(struct unit *u, const char *where, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
/* The items of converted units that change file f. */
GPtrArray *plan_items(struct conversion *cv, struct cfile *f);
JsonObject *plan_for_file(struct conversion *cv, struct cfile *f);

/* rewrite.c */
struct spatch_env;
bool rewrite_run(struct conversion *cv, struct spatch_env *env,
		 GError **error);

#endif
