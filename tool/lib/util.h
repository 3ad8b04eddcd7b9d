/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_UTIL_H
#define TIMERCONV_UTIL_H

#include <glib.h>
#include <stdbool.h>

/* Exit codes shared by every command. */
#define EXIT_OK		0
#define EXIT_FINDINGS	1
#define EXIT_ERROR	2

void tc_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void tc_warn(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* Number of online CPUs, at least 1. */
int cpu_count(void);
/* Give the heap's free memory back to the system (main.c has malloc
 * keep it, for the scan, which frees and allocates the same sizes file
 * after file). */
void release_memory(void);

/*
 * Run fn(i, data) for every i in [0, n) on `jobs` threads; indices are
 * handed out dynamically so uneven work stays balanced.
 */
void parallel_for(size_t n, int jobs, void (*fn)(size_t i, void *data),
		  void *data);

/*
 * Write a file atomically: a temporary file in the same directory, then
 * rename(2).  mode < 0 keeps the mode of an existing file (or 0644).
 */
bool write_file_atomic(const char *path, const char *data, size_t len,
		       int mode, GError **error);

/* Pretty-print the document built in b and write it atomically. */
struct _JsonBuilder;
bool write_json_atomic(const char *path, struct _JsonBuilder *b, int mode,
		       GError **error);

/* rm -rf path: a link is removed, never followed. */
void remove_tree(const char *path);

/* Temporary directories removed at exit and on SIGINT/SIGTERM. */
char *tmpdir_create(const char *tag, GError **error);
void tmpdir_remove_all(void);

/* Install SIGINT/SIGTERM handling; returns true once interrupted. */
void interrupt_setup(void);
bool interrupted(void);

/* A command's output as a string: every byte, NULs too, then a NUL. */
char *bytes_to_string(GBytes *bytes);

/* Run a command, capture stdout; stderr is passed through unless quiet.
 * (git goes through git_run(), gitutil.h.) */
bool run_capture(const char *const *argv, const char *cwd, char **out,
		 int *status, bool quiet, GError **error);

/* Parse a command's options (and free ctx); false after an error line. */
bool cli_parse(GOptionContext *ctx, const char *cmd, int *argc,
	       char ***argv);

/* For g_ptr_array_sort() of strings: strcmp() of two elements. */
int cmp_strings(gconstpointer a, gconstpointer b);

/* strdup of [p, p+len) with runs of C's blanks (space, \t, \n, \r, \f,
 * \v) folded to one space and none at either end. */
char *text_normalize(const char *p, size_t len);

#endif
