// SPDX-License-Identifier: GPL-2.0
#include "convert.h"
#include "util.h"

int cmd_convert(int argc, char **argv)
{
	tc_error("convert: not implemented yet");
	return EXIT_ERROR;
}
