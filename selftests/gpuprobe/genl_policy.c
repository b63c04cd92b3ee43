// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink interface refuses what it must: control and subscription from
 * unprivileged processes, and malformed requests -- each with an extack
 * message, and without changing anything.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "session.h"

FIXTURE(policy) {
	char edu[32];
	struct genl_sock s;
	struct genl_msg m;
};

FIXTURE_SETUP(policy)
{
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL, &self->s));
}

FIXTURE_TEARDOWN(policy)
{
	genl_close(&self->s);
	mod_unload("gpuprobe");
	mod_unload("gpuprobe_edu");
}

/* Nothing changed: same single target, not running. */
static void assert_unchanged(struct __test_metadata *_metadata,
			     FIXTURE_DATA(policy) *self)
{
	char targets[256];
	struct gp_stats st;

	ASSERT_EQ(0, gp_targets(&self->s, targets));
	EXPECT_STREQ(self->edu, targets);
	ASSERT_EQ(0, gp_stats(&self->s, &st));
	EXPECT_FALSE(st.running);
}

static int send_raw(FIXTURE_DATA(policy) *self, uint8_t cmd, uint16_t type,
		    const void *data, size_t len)
{
	genl_msg_init(&self->m, self->s.family, 0, cmd);
	if (type)
		genl_put(&self->m, type, data, len);
	return genl_xfer(&self->s, &self->m, NULL, NULL);
}

/* Runs fn as nobody with no capabilities; returns its exit status. */
static int as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(99);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int nobody_start(void *arg)
{
	struct genl_sock s;

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 98;
	return -gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
}

static int nobody_target_add(void *arg)
{
	struct genl_sock s;

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 98;
	return -gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, arg, 0, 0);
}

static int nobody_stop(void *arg)
{
	struct genl_sock s;

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 98;
	return -gp_stop(&s);
}

static int nobody_subscribe(void *arg)
{
	struct genl_sock l;
	int err = gp_listen(&l, 0);

	return err ? -err : 0;
}

static int nobody_get_info(void *arg)
{
	struct genl_sock s;
	struct genl_msg *m = calloc(1, sizeof(*m));

	if (genl_open(&s, GPUPROBE_FAMILY_NAME, NULL))
		return 98;
	genl_msg_init(m, s.family, 0, GPUPROBE_CMD_GET_INFO);
	return -genl_xfer(&s, m, NULL, NULL);
}

TEST_F(policy, unprivileged_control_refused)
{
	EXPECT_EQ(EPERM, as_nobody(nobody_start, NULL));
	EXPECT_EQ(EPERM, as_nobody(nobody_target_add, "0000:00:01.0"));
	EXPECT_EQ(EPERM, as_nobody(nobody_stop, NULL));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, unprivileged_subscription_refused)
{
	EXPECT_EQ(EPERM, as_nobody(nobody_subscribe, NULL));
}

TEST_F(policy, unprivileged_query_allowed)
{
	EXPECT_EQ(0, as_nobody(nobody_get_info, NULL));
}

TEST_F(policy, target_add_missing_bdf)
{
	EXPECT_EQ(-EINVAL, send_raw(self, GPUPROBE_CMD_TARGET_ADD, 0, NULL, 0));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_add_wrong_type)
{
	uint32_t v = 0x41414141;	/* not NUL-terminated */

	EXPECT_EQ(-EINVAL, send_raw(self, GPUPROBE_CMD_TARGET_ADD,
				    GPUPROBE_A_BDF, &v, sizeof(v)));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_add_oversized)
{
	char big[200];

	memset(big, '0', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-EINVAL, send_raw(self, GPUPROBE_CMD_TARGET_ADD,
				    GPUPROBE_A_BDF, big, sizeof(big)));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_add_not_an_address)
{
	EXPECT_EQ(-EINVAL, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD,
				  "0x00:02.0", 0, 0));
	EXPECT_NE(NULL, strstr(self->s.extack, "not a PCI address: want DDDD:BB:DD.F in hex"));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_add_unknown_device)
{
	EXPECT_EQ(-ENODEV, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD,
				  "0000:3f:1f.7", 0, 0));
	EXPECT_NE(NULL, strstr(self->s.extack, "no PCI device at this address"));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_add_duplicate)
{
	EXPECT_EQ(-EEXIST, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD,
				  self->edu, 0, 0));
	EXPECT_NE(NULL, strstr(self->s.extack, "already a target"));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, target_del_not_a_target)
{
	EXPECT_EQ(-ENOENT, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL,
				  "0000:00:00.0", 0, 0));
	EXPECT_NE(NULL, strstr(self->s.extack, "not a target"));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, unknown_attribute_refused)
{
	uint32_t v = 1;

	/* TGID is not part of TARGET_ADD's policy */
	genl_msg_init(&self->m, self->s.family, 0, GPUPROBE_CMD_TARGET_ADD);
	genl_put_str(&self->m, GPUPROBE_A_BDF, self->edu);
	genl_put(&self->m, GPUPROBE_A_TGID, &v, sizeof(v));
	EXPECT_EQ(-EINVAL, genl_xfer(&self->s, &self->m, NULL, NULL));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
	assert_unchanged(_metadata, self);
}

/* Every op, do and dump alike, rejects an attribute it does not take. */
static const struct {
	uint8_t cmd;
	uint16_t flags;
} every_op[] = {
	{ GPUPROBE_CMD_GET_INFO, 0 },
	{ GPUPROBE_CMD_TARGET_ADD, 0 },
	{ GPUPROBE_CMD_TARGET_DEL, 0 },
	{ GPUPROBE_CMD_TARGET_GET, NLM_F_DUMP },
	{ GPUPROBE_CMD_START, 0 },
	{ GPUPROBE_CMD_STOP, 0 },
	{ GPUPROBE_CMD_STATS_GET, 0 },
	{ GPUPROBE_CMD_STATS_GET, NLM_F_DUMP },
	{ GPUPROBE_CMD_TGID_ADD, 0 },
	{ GPUPROBE_CMD_TGID_DEL, 0 },
	{ GPUPROBE_CMD_SUMMARY_GET, 0 },
};

static int send_with_attr(FIXTURE_DATA(policy) *self, uint8_t cmd,
			  uint16_t flags, uint16_t type)
{
	uint32_t v = 1;

	genl_msg_init(&self->m, self->s.family, flags, cmd);
	genl_put(&self->m, type, &v, sizeof(v));
	return genl_xfer(&self->s, &self->m, NULL, NULL);
}

TEST_F(policy, unknown_attribute_refused_by_every_op)
{
	for (size_t i = 0; i < sizeof(every_op) / sizeof(every_op[0]); i++) {
		/* beyond the family's attributes */
		EXPECT_EQ(-EINVAL, send_with_attr(self, every_op[i].cmd,
						  every_op[i].flags,
						  GPUPROBE_A_MAX + 1));
		TH_LOG("cmd %u%s, attr %u: %s", every_op[i].cmd,
		       every_op[i].flags ? " (dump)" : "", GPUPROBE_A_MAX + 1,
		       self->s.extack);
		EXPECT_NE('\0', self->s.extack[0]);
		/* the family's, but no op takes it in a request */
		EXPECT_EQ(-EINVAL, send_with_attr(self, every_op[i].cmd,
						  every_op[i].flags,
						  GPUPROBE_A_MISSED));
		EXPECT_NE('\0', self->s.extack[0]);
	}
	assert_unchanged(_metadata, self);
}

/* Targets beyond max_targets are refused, not silently unwatched. */
TEST_F(policy, targets_beyond_max_targets_refused)
{
	char nvme[32], vga[32], targets[256], param[96];

	ASSERT_EQ(0, pci_find(0x1b36, 0x0010, nvme, sizeof(nvme)));
	ASSERT_EQ(0, pci_find(0x1234, 0x1111, vga, sizeof(vga)));
	genl_close(&self->s);
	ASSERT_EQ(0, mod_unload("gpuprobe"));
	snprintf(param, sizeof(param), "target=%s max_targets=2", self->edu);
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, param));
	ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME, NULL));

	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, nvme, 0, 0));
	EXPECT_EQ(-ENOSPC, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, vga, 0, 0));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE(NULL, strstr(self->s.extack, "too many targets"));
	ASSERT_EQ(0, gp_targets(&self->s, targets));
	EXPECT_EQ(NULL, strstr(targets, vga));
	/* a freed place can be taken */
	ASSERT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_DEL, nvme, 0, 0));
	EXPECT_EQ(0, gp_cmd(&self->s, GPUPROBE_CMD_TARGET_ADD, vga, 0, 0));

	/* a load naming more than max_targets fails and says why */
	genl_close(&self->s);
	ASSERT_EQ(0, mod_unload("gpuprobe"));
	snprintf(param, sizeof(param), "target=%s,%s max_targets=1",
		 self->edu, nvme);
	EXPECT_EQ(-ENOSPC, mod_load(GPUPROBE_KO, param));
	EXPECT_FALSE(mod_loaded("gpuprobe"));
	ASSERT_EQ(0, gp_setup_edu(self->edu, sizeof(self->edu), NULL,
				  &self->s));
}

TEST_F(policy, start_bad_event_mask)
{
	EXPECT_EQ(-EINVAL, gp_start(&self->s, 1U << 31));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
	EXPECT_EQ(-EINVAL, gp_start(&self->s, 0));
	EXPECT_NE(NULL, strstr(self->s.extack, "event mask selects nothing to capture"));
	assert_unchanged(_metadata, self);
}

/* Every event type this kernel can hook starts; the rest is refused. */
/*
 * Every event this kernel can hook: KVM's only while kvm.ko is loaded (the
 * test VM has none; the nested tier's host does); without it, asking for
 * them is refused, with the reason.
 */
TEST_F(policy, start_every_available_event)
{
	uint32_t mask = GPUPROBE_EVMASK_ALL;

	if (access("/sys/module/kvm", F_OK)) {
		EXPECT_EQ(-EOPNOTSUPP, gp_start(&self->s, mask));
		EXPECT_NE(NULL, strstr(self->s.extack, "cannot hook"));
		mask &= ~GPUPROBE_EVMASK(GPUPROBE_EV_KVM);
	}
	ASSERT_EQ(0, gp_start(&self->s, mask));
	ASSERT_EQ(0, gp_stop(&self->s));
	assert_unchanged(_metadata, self);
}

/*
 * The IOMMU parts: attached with the IOMMU events (the parts' bit in the
 * mask or not: tools older than the flag never set it), not with
 * GPUPROBE_A_NO_IOMMU_PARTS; the bit without the IOMMU events refused.
 * The module's hook list says which, and why, while the session runs.
 */
TEST_F(policy, iommu_parts_attached_unless_left_out)
{
	const uint32_t iommu = GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU);
	const uint32_t part = GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	const char *hook = "kretprobe:alloc_iova_fast";
	char reason[160];

	EXPECT_EQ(-EINVAL, gp_start(&self->s, part | GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	EXPECT_NE(NULL, strstr(self->s.extack, "the IOMMU parts come with the IOMMU events"));
	assert_unchanged(_metadata, self);

	/* as a tool before the flag asks: IOMMU events, no parts' bit */
	ASSERT_EQ(0, gp_start(&self->s, iommu));
	EXPECT_EQ(1, gp_hook_attached(&self->s, hook));
	ASSERT_EQ(0, gp_stop(&self->s));
	ASSERT_EQ(0, gp_start(&self->s, iommu | part));
	EXPECT_EQ(1, gp_hook_attached(&self->s, hook));
	ASSERT_EQ(0, gp_stop(&self->s));

	ASSERT_EQ(0, gp_start_flag(&self->s, iommu | part, GPUPROBE_A_NO_IOMMU_PARTS));
	EXPECT_EQ(0, gp_hook_attached(&self->s, hook));
	ASSERT_EQ(0, gp_hook_reason(&self->s, hook, reason, sizeof(reason)));
	EXPECT_STREQ("left out: the session did not ask for IOMMU parts", reason);
	ASSERT_EQ(0, gp_stop(&self->s));
	/* after its STOP, and with no IOMMU events at all: no reason */
	ASSERT_EQ(0, gp_hook_reason(&self->s, hook, reason, sizeof(reason)));
	EXPECT_STREQ("", reason);
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	ASSERT_EQ(0, gp_hook_reason(&self->s, hook, reason, sizeof(reason)));
	EXPECT_STREQ("", reason);
	ASSERT_EQ(0, gp_stop(&self->s));
	/* and attached again by the next session that wants them */
	ASSERT_EQ(0, gp_start(&self->s, iommu));
	EXPECT_EQ(1, gp_hook_attached(&self->s, hook));
	ASSERT_EQ(0, gp_stop(&self->s));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, start_twice_and_stop_twice)
{
	ASSERT_EQ(0, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	EXPECT_EQ(-EBUSY, gp_start(&self->s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ)));
	EXPECT_NE(NULL, strstr(self->s.extack, "already started: STOP first"));
	ASSERT_EQ(0, gp_stop(&self->s));
	EXPECT_EQ(-EALREADY, gp_stop(&self->s));
	EXPECT_NE(NULL, strstr(self->s.extack, "not started"));
	assert_unchanged(_metadata, self);
}

TEST_F(policy, tgid_zero_refused)
{
	EXPECT_EQ(-ERANGE, gp_cmd(&self->s, GPUPROBE_CMD_TGID_ADD, NULL,
				  GPUPROBE_A_TGID, 0));
	TH_LOG("extack: %s", self->s.extack);
	EXPECT_NE('\0', self->s.extack[0]);
}

TEST_HARNESS_MAIN
