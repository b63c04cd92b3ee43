// SPDX-License-Identifier: GPL-2.0
/*
 * The edu test driver raises exactly the interrupts and DMA it is asked for,
 * as the kernel's own accounting (/proc/interrupts) sees them.
 */
#include "kselftest_harness.h"
#include "vmutil.h"

FIXTURE(edu) {
	char bdf[32];
	int irq;
};

FIXTURE_SETUP(edu)
{
	ASSERT_EQ(0, edu_find(self->bdf, sizeof(self->bdf)));
	if (!mod_loaded("gpuprobe_edu"))
		ASSERT_EQ(0, mod_load(EDU_KO, NULL));
	self->irq = (int)edu_stat(self->bdf, "irq");
	ASSERT_GT(self->irq, 0);
}

FIXTURE_TEARDOWN(edu)
{
	mod_unload("gpuprobe_edu");
}

TEST_F(edu, n_interrupts_in_proc_interrupts)
{
	const long long n = 1000;
	long long before = proc_irq_count(self->irq);
	long long handled = edu_stat(self->bdf, "irq_handled");
	char cmd[32];

	ASSERT_GE(before, 0);
	snprintf(cmd, sizeof(cmd), "%lld", n);
	ASSERT_EQ(0, edu_ctl(self->bdf, "irq", cmd));
	EXPECT_EQ(n, proc_irq_count(self->irq) - before);
	EXPECT_EQ(n, edu_stat(self->bdf, "irq_handled") - handled);
	EXPECT_EQ(n, edu_stat(self->bdf, "irq_raised"));
}

TEST_F(edu, dma_round_trip_verified)
{
	long long before = proc_irq_count(self->irq);

	/* 5 chunks of 2 KiB each way, one interrupt per device transfer */
	ASSERT_EQ(0, edu_ctl(self->bdf, "dma", "verify 10000"));
	EXPECT_EQ(0, edu_stat(self->bdf, "verify_failures"));
	EXPECT_EQ(10000, edu_stat(self->bdf, "dma_bytes_to_device"));
	EXPECT_EQ(10000, edu_stat(self->bdf, "dma_bytes_from_device"));
	EXPECT_EQ(10, edu_stat(self->bdf, "dma_transfers"));
	EXPECT_EQ(2, edu_stat(self->bdf, "dma_maps"));
	EXPECT_EQ(10, edu_stat(self->bdf, "dma_irqs"));
	EXPECT_EQ(10, proc_irq_count(self->irq) - before);
}

TEST_F(edu, bad_requests_refused)
{
	EXPECT_NE(0, edu_ctl(self->bdf, "dma", "sideways 4096"));
	EXPECT_NE(0, edu_ctl(self->bdf, "dma", "to_device 0"));
	EXPECT_NE(0, edu_ctl(self->bdf, "dma", "to_device 99999999"));
	EXPECT_NE(0, edu_ctl(self->bdf, "irq", "many"));
	EXPECT_EQ(0, edu_stat(self->bdf, "dma_maps"));
}

TEST_HARNESS_MAIN
