// SPDX-License-Identifier: GPL-2.0
/*
 * What a failed make most likely needs, from its own words: kbuild's
 * configure and prepare steps stop on a missing host tool (flex, bison,
 * bc...) or header (libelf, openssl...), on a cross compiler that is
 * not installed, and on old trees on host code that newer compilers
 * reject (objtool's -Werror, dtc's common symbols).  Make's message
 * names the tool or the header; the hint names the Debian package or
 * the option that gets past it.
 */
#include <string.h>

#include "kbuild_int.h"

/* Host tools kbuild runs, and the Debian packages they come in. */
static const char *const tool_pkgs[][2] = {
	{ "flex", "flex" }, { "lex", "flex" }, { "bison", "bison" },
	{ "yacc", "bison" }, { "bc", "bc" }, { "perl", "perl" },
	{ "python3", "python3" }, { "openssl", "openssl" },
	{ "cpio", "cpio" }, { "lz4", "lz4" }, { "lzop", "lzop" },
	{ "xz", "xz-utils" }, { "zstd", "zstd" }, { "bzip2", "bzip2" },
	{ "pahole", "dwarves" }, { "rsync", "rsync" }, { "depmod", "kmod" },
	{ "gcc", "gcc" }, { "cc", "gcc" }, { "ld", "binutils" },
	{ "as", "binutils" }, { "objcopy", "binutils" }, { "clang", "clang" },
	{ "ld.lld", "lld" }, { "dtc", "device-tree-compiler" },
	{ "mkimage", "u-boot-tools" }, { "rustc", "rustc" },
	{ "bindgen", "bindgen" }, { "make", "make" },
};

/* Headers of host libraries kbuild's helpers include. */
static const char *const header_pkgs[][2] = {
	{ "gelf.h", "libelf-dev" }, { "libelf.h", "libelf-dev" },
	{ "openssl/", "libssl-dev" }, { "gmp.h", "libgmp-dev" },
	{ "mpc.h", "libmpc-dev" }, { "zlib.h", "zlib1g-dev" },
	{ "ncurses.h", "libncurses-dev" }, { "curses.h", "libncurses-dev" },
	{ "dwarf.h", "libdw-dev" }, { "elfutils/", "libdw-dev" },
	{ "gcc-plugin.h", "the gcc-N-plugin-dev of your gcc" },
};

static const char *const binutils[] = {
	"ld", "as", "ar", "nm", "objcopy", "objdump", "strip", "readelf",
	NULL,
};

/* The Debian package of a command, cross tools included
 * ("aarch64-linux-gnu-gcc" -> "gcc-aarch64-linux-gnu"). */
static char *tool_package(const char *cmd)
{
	const char *base = strrchr(cmd, '/');
	const char *dash;

	base = base ? base + 1 : cmd;
	for (size_t i = 0; i < G_N_ELEMENTS(tool_pkgs); i++)
		if (!strcmp(base, tool_pkgs[i][0]))
			return g_strdup(tool_pkgs[i][1]);
	if (g_str_has_prefix(base, "llvm-"))
		return g_strdup("llvm");
	dash = strrchr(base, '-');
	/* a GNU triplet: aarch64-linux-gnu-, arm-none-eabi-... */
	if (!dash || !(g_strstr_len(base, dash - base, "-linux") ||
		       g_strstr_len(base, dash - base, "-none") ||
		       g_strstr_len(base, dash - base, "-elf")))
		return NULL;
	if (!strcmp(dash + 1, "gcc"))
		return g_strdup_printf("gcc-%.*s", (int)(dash - base), base);
	for (int i = 0; binutils[i]; i++)
		if (!strcmp(dash + 1, binutils[i]))
			return g_strdup_printf("binutils-%.*s",
					       (int)(dash - base), base);
	return NULL;
}

/* The command a shell or make could not find on this line, or NULL:
 *   /bin/sh: 1: flex: not found
 *   bash: line 1: bison: command not found
 *   make[2]: bc: No such file or directory     (make ran it directly)
 *   make: aarch64-linux-gnu-gcc: Command not found
 *   scripts/Kconfig.include:39: C compiler 'aarch64-linux-gnu-gcc' not found
 */
static char *missing_command(const char *l)
{
	static const char *const tails[] = {
		": not found", ": command not found", ": Command not found",
		": No such file or directory", NULL,
	};
	const char *q;

	if ((q = strstr(l, "compiler '")) && strstr(q, "' not found")) {
		q += strlen("compiler '");
		return g_strndup(q, strchr(q, '\'') - q);
	}
	for (int i = 0; tails[i]; i++) {
		const char *end = strstr(l, tails[i]);
		const char *start;

		if (!end || end[strlen(tails[i])] != '\0')
			continue;
		start = end;
		while (start > l && start[-1] != ' ')
			start--;
		/* make's own "make[2]: x: No such..." or a shell's */
		if (i == 3 && !g_str_has_prefix(l, "make"))
			return NULL;
		if (start == end || start == l)
			return NULL;
		return g_strndup(start, end - start);
	}
	return NULL;
}

/* "x.c:3:10: fatal error: gelf.h: No such file or directory" */
static const char *missing_header(const char *l)
{
	const char *p = strstr(l, "fatal error: ");

	if (!p || !strstr(p, ": No such file or directory"))
		return NULL;
	p += strlen("fatal error: ");
	for (size_t i = 0; i < G_N_ELEMENTS(header_pkgs); i++)
		if (g_str_has_prefix(p, header_pkgs[i][0]))
			return header_pkgs[i][1];
	return NULL;
}

static void add(GPtrArray *hints, char *h)
{
	for (guint i = 0; i < hints->len; i++) {
		if (!strcmp(hints->pdata[i], h)) {
			g_free(h);
			return;
		}
	}
	g_ptr_array_add(hints, h);
}

char *kb_hint(struct kbuild *kb, const char *raw)
{
	char *out = kb_unprefix(kb, raw);
	char **lines = g_strsplit(out, "\n", -1);
	GPtrArray *hints = g_ptr_array_new_with_free_func(g_free);
	bool objtool = false, common = false;
	char *res = NULL;

	for (int i = 0; lines[i]; i++) {
		const char *l = g_strchomp(lines[i]);
		char *cmd = missing_command(l);
		const char *pkg = missing_header(l);

		if (cmd) {
			char *p = tool_package(cmd);

			if (p)
				add(hints, g_strdup_printf(
					"%s is not installed (Debian: apt-get install %s)",
					cmd, p));
			g_free(p);
			g_free(cmd);
		}
		if (pkg)
			add(hints, g_strdup_printf(
				"a host library's header is missing (Debian: apt-get install %s)",
				pkg));
		if (strstr(l, "please install libelf-dev"))
			add(hints, g_strdup("objtool needs libelf (Debian: apt-get install libelf-dev)"));
		if (strstr(l, "objtool") &&
		    (strstr(l, "error: ") || strstr(l, "*** [")))
			objtool = true;
		if (strstr(l, "multiple definition of `yylloc'") ||
		    strstr(l, "multiple definition of 'yylloc'"))
			common = true;
	}
	if (objtool)
		add(hints, g_strdup("objtool, which CONFIG_STACK_VALIDATION and CONFIG_UNWINDER_ORC need, did not build (an old tree's objtool fails under a newer gcc): verify with a config without them (scripts/config --file FILE -d UNWINDER_ORC -e UNWINDER_FRAME_POINTER -d STACK_VALIDATION -d RETPOLINE, then --config FILE), or with the compiler the tree was written for (--make-arg HOSTCC=gcc-N --make-arg CC=gcc-N)"));
	if (common)
		add(hints, g_strdup("this tree's dtc predates gcc 10's -fno-common: --make-arg HOSTCFLAGS=-fcommon"));
	if (hints->len) {
		g_ptr_array_add(hints, NULL);
		res = g_strjoinv("\n", (char **)hints->pdata);
	}
	g_ptr_array_free(hints, TRUE);
	g_strfreev(lines);
	g_free(out);
	return res;
}
