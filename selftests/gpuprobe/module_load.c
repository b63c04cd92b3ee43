// SPDX-License-Identifier: GPL-2.0
/* gpuprobe.ko loads and unloads cleanly, and refuses bad targets. */
#include <errno.h>

#include "kselftest_harness.h"
#include "vmutil.h"

FIXTURE(module) {
	char edu[32];
	char param[64];
};

FIXTURE_SETUP(module)
{
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
	snprintf(self->param, sizeof(self->param), "target=%s", self->edu);
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
}

FIXTURE_TEARDOWN(module)
{
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
}

TEST_F(module, load_unload_20)
{
	for (int i = 0; i < 20; i++) {
		ASSERT_EQ(0, mod_load(GPUPROBE_KO, self->param));
		ASSERT_TRUE(mod_loaded("gpuprobe"));
		ASSERT_EQ(0, mod_unload("gpuprobe"));
		ASSERT_FALSE(mod_loaded("gpuprobe"));
	}
}

TEST_F(module, load_without_target)
{
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, NULL));
	ASSERT_EQ(0, mod_unload("gpuprobe"));
}

TEST_F(module, target_not_an_address)
{
	ASSERT_EQ(-EINVAL, mod_load(GPUPROBE_KO, "target=gpu0"));
	ASSERT_FALSE(mod_loaded("gpuprobe"));
	ASSERT_EQ(-EINVAL, mod_load(GPUPROBE_KO, "target=0000:00:20.0"));
	ASSERT_EQ(-EINVAL, mod_load(GPUPROBE_KO, "target=0000:00:03.0x"));
	ASSERT_FALSE(mod_loaded("gpuprobe"));
}

TEST_F(module, target_absent_device)
{
	ASSERT_EQ(-ENODEV, mod_load(GPUPROBE_KO, "target=0000:7f:1f.7"));
	ASSERT_FALSE(mod_loaded("gpuprobe"));
}

TEST_F(module, target_list_with_duplicates)
{
	char param[128];

	snprintf(param, sizeof(param), "target=%s,%s", self->edu, self->edu);
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, mod_unload("gpuprobe"));
}

TEST_HARNESS_MAIN
