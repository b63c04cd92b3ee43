// SPDX-License-Identifier: GPL-2.0
#include "probe.h"
int cmd_compare(int argc, char **argv) { (void)argc; (void)argv; return 2; }
