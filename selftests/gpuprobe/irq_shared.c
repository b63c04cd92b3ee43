// SPDX-License-Identifier: GPL-2.0
/*
 * A shared INTx line runs every handler on it for each interrupt.  With the
 * edu driver on its INTx line (intx=1), shared with a second handler of
 * another owner, only edu's handler is the target's: N interrupts give
 * exactly N records, as the edu driver and /proc/interrupts count them.
 */
#include "kselftest_harness.h"
#include "session.h"

FIXTURE(shared) {
	char edu[32];
	int irq;
	struct genl_sock s, l;
	struct gp_tally t;
};

FIXTURE_SETUP(shared)
{
	self->s.fd = self->l.fd = -1;
	ASSERT_EQ(0, edu_find(self->edu, sizeof(self->edu)));
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	if (mod_loaded("gpuprobe_edu"))
		mod_unload("gpuprobe_edu");
	ASSERT_EQ(0, mod_load(EDU_KO, "intx=1"));
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
	ASSERT_EQ(0, gp_listen(&self->l, 4 << 20));
	self->irq = (int)edu_stat(self->edu, "irq");
	ASSERT_GT(self->irq, 0);
	memset(&self->t, 0, sizeof(self->t));
	self->t.bdf = gp_bdf(self->edu);
}

FIXTURE_TEARDOWN(shared)
{
	genl_close(&self->l);
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

TEST_F(shared, only_the_targets_handler_recorded)
{
	const int n = 500;
	long long line, handled;
	char cmd[32];

	handled = edu_stat(self->edu, "irq_handled");
	line = proc_irq_count(self->irq);
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	snprintf(cmd, sizeof(cmd), "%d", n);
	ASSERT_EQ(0, edu_ctl(self->edu, "irq", cmd));
	ASSERT_EQ(0, gp_stop(&self->s));
	line = proc_irq_count(self->irq) - line;
	handled = edu_stat(self->edu, "irq_handled") - handled;
	gp_drain(&self->l, &self->t);

	TH_LOG("irq %d (INTx, shared): %lld on the line, %lld handled by edu, "
	       "%llu records (%llu handled), %llu unhandled",
	       self->irq, line, handled,
	       (unsigned long long)(self->t.irq[0] + self->t.irq[1]),
	       (unsigned long long)self->t.irq[1],
	       (unsigned long long)self->t.unhandled);
	EXPECT_EQ(n, handled);
	EXPECT_GE(line, n);
	EXPECT_EQ(n, self->t.irq[0] + self->t.irq[1]);
	EXPECT_EQ(n, self->t.irq[1]);
	EXPECT_EQ(0, self->t.unhandled);
	EXPECT_EQ(0, self->t.lost);
}

TEST_HARNESS_MAIN
