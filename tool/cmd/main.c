// SPDX-License-Identifier: GPL-2.0
/*
 * timerconv: move kernel code off the timer API that v4.15 removed.
 */
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "convert.h"
#include "series.h"
#include "util.h"
#include "version.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "convert", cmd_convert,
	  "rewrite old-API timers to timer_setup(); print a diff or edit in place" },
	{ "series", cmd_series,
	  "write the conversion as per-subsystem git format-patch series" },
	{ "check", cmd_check,
	  "report leftover old timer API code (a CI gate, no spatch needed)" },
};

static void usage(FILE *out)
{
	/* "…" only where the locale's charset has it (see cli_parse()) */
	const char *dots = g_get_charset(NULL) ? "…" : "...";

	fprintf(out,
		"Usage: timerconv COMMAND [OPTION%s] [PATH%s]\n"
		"\n"
		"Move Linux kernel code from setup_timer()/init_timer() and\n"
		"callbacks taking unsigned long to timer_setup() and from_timer().\n"
		"\n"
		"Commands:\n", dots, dots);
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out,
		"\n"
		"\n"
		"Options:\n"
		"  -h, --help     Show this help and exit\n"
		"  --version      Print the version and exit\n"
		"\n"
		"Run 'timerconv COMMAND --help' for the options of a command.\n"
		"Exit status: 0 success, 1 findings (check), 2 error.\n");
}

int main(int argc, char **argv)
{
#ifdef M_MMAP_THRESHOLD
	/*
	 * The scan allocates a token array of a few hundred kB per file and
	 * frees it: keep such blocks in the heap for the next file instead
	 * of mapping and faulting in fresh pages each time.
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
	/* messages and --help in the user's language and charset; numbers
	 * printed the C way whatever the locale ("24.0 s") */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	if (argc < 2) {
		usage(stderr);
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("timerconv %s\n", TIMERCONV_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		interrupt_setup();
		argv[1] = g_strdup_printf("timerconv %s", commands[i].name);
		return commands[i].run(argc - 1, argv + 1);
	}
	tc_error("unknown command '%s' (see timerconv --help)", argv[1]);
	return EXIT_ERROR;
}
