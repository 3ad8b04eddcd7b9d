/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_VERSION_H
#define TIMERCONV_VERSION_H

#define TIMERCONV_VERSION	"0.1.0"
#define TIMERCONV_URL		"https://example.org/timerconv"

#endif
