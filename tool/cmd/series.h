/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TIMERCONV_SERIES_H
#define TIMERCONV_SERIES_H

int cmd_series(int argc, char **argv);

#endif
