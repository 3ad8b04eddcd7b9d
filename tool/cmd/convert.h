/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_CONVERT_H
#define TIMERCONV_CONVERT_H

int cmd_convert(int argc, char **argv);

#endif
