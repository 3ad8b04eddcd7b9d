// SPDX-License-Identifier: GPL-2.0
#include "series.h"
#include "util.h"

int cmd_series(int argc, char **argv)
{
	tc_error("series: not implemented yet");
	return EXIT_ERROR;
}
