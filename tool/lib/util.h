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
 * rename(2).  mode < 0 keeps the mode of an existing file (or 0644).  An
 * existing file keeps its owner and group where we may set them (root
 * converting another user's tree).
 */
bool write_file_atomic(const char *path, const char *data, size_t len,
		       int mode, GError **error);

/*
 * Create path (it must not exist) with data, flushed to disk.  With like,
 * the file gets like's mode, owner and group (as far as we may set them);
 * else mode.  The name is tracked until write_file_forget(): an exit
 * before then removes it.
 */
struct stat;
bool write_file_new(const char *path, const char *data, size_t len,
		    const struct stat *like, int mode, GError **error);
void write_file_forget(const char *path);
/* Have an exit remove path, as a file write_file_new() made. */
void write_file_track(const char *path);

/* fsync(2) a directory, so that the renames in it are on disk. */
void fsync_dir(const char *dir);

/*
 * Whether a file can be written at path later (--report FILE,
 * --write-baseline FILE): its directory exists and is writable, and path
 * is not a directory.  opt names the option in the error.
 */
bool output_file_ok(const char *opt, const char *path, GError **error);
/* The same for a directory that will be created if need be (--out). */
bool output_dir_ok(const char *opt, const char *path, GError **error);

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
/* The same with stderr captured too (*err: its text, trailing blanks
 * cut), for passing a tool's own message on. */
bool run_capture_err(const char *const *argv, const char *cwd, char **out,
		     char **err, int *status, GError **error);
/* Quietly, with the length of stdout (which may hold NULs). */
bool run_capture_len(const char *const *argv, const char *cwd, char **out,
		     gsize *len, int *status, GError **error);

/*
 * Parse a command's options (and free ctx); false after an error line.
 * It adds --help (ASCII where the locale's charset is not UTF-8) and
 * --version to every command; both print and exit(0).
 */
bool cli_parse(GOptionContext *ctx, const char *cmd, int *argc,
	       char ***argv);

/*
 * The tree a command runs on (*root, to free) and the PATHs in it.  With
 * -C DIR (given), DIR and the PATHs as given.  Run from a subdirectory of
 * a git work tree, the work tree's top, and the PATHs (or, with none,
 * the subdirectory) taken from where the command runs, as git takes
 * them; true then.  Out-of-tree code (own_root: --kernel-headers) keeps
 * the current directory as its tree.
 */
bool cli_tree(const char *given, bool own_root, char ***paths, char **root);

/*
 * --jobs and --timeout: commands start them at CLI_UNSET, and after
 * cli_parse() turn them into the value to use: 0 when not given (the
 * default), an error line and false for 0 or less; --jobs above
 * CLI_JOBS_PER_CPU times the CPUs is capped, with a warning.
 */
#define CLI_UNSET		G_MININT
#define CLI_JOBS_PER_CPU	4
bool cli_jobs(int *jobs);
bool cli_timeout(int *timeout);

/* For g_ptr_array_sort() of strings: strcmp() of two elements. */
int cmp_strings(gconstpointer a, gconstpointer b);

/* strdup of [p, p+len) with runs of C's blanks (space, \t, \n, \r, \f,
 * \v) folded to one space and none at either end. */
char *text_normalize(const char *p, size_t len);

#endif
