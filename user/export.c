// SPDX-License-Identifier: GPL-2.0
/* `gpuprobe-trace export`: placeholder until the exporters land. */
#include <getopt.h>
#include "cmds.h"
#include "util.h"

int cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	errorf("export is not implemented yet");
	return 1;
}
