/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File names as the outputs need them.  A Linux file name is bytes: it
 * may hold a space, a quote, #, %, and bytes that are not UTF-8 (a
 * Latin-1 é).  JSON must be UTF-8, and a SARIF location is a URI.
 */
#ifndef TIMERCONV_PATHNAME_H
#define TIMERCONV_PATHNAME_H

/*
 * s as valid UTF-8, for JSON: as it is when it is valid, else with each
 * byte that is not part of a valid character written as \xNN
 * ("lat\xe9.c"), as git and ls -b show such names.
 */
char *text_utf8(const char *s);

/* A relative path as a URI reference (RFC 3986): every byte but letters,
 * digits, - . _ ~ and / percent-encoded ("sp%20ace%23100%25.c"). */
char *path_uri(const char *path);

#endif
