// SPDX-License-Identifier: GPL-2.0
/* GET_INFO round trip over the "gpuprobe" generic netlink family. */
#include <linux/gpuprobe.h>
#include <sys/utsname.h>
#include <time.h>

#include "kselftest_harness.h"
#include "session.h"

struct info {
	char version[64];
	char release[128];
	uint32_t clock;
	uint64_t caps;
	uint32_t record_version;
	int seen;
};

static void info_cb(struct nlmsghdr *nlh, void *arg)
{
	struct info *info = arg;
	struct nlattr *nla;
	int rem;

	info->seen++;
	for (nla = genl_attrs(nlh, &rem); GENL_ATTR_OK(nla, rem);
	     nla = GENL_ATTR_NEXT(nla, rem)) {
		void *d = GENL_ATTR_DATA(nla);

		switch (nla->nla_type) {
		case GPUPROBE_A_VERSION:
			snprintf(info->version, sizeof(info->version), "%s",
				 (char *)d);
			break;
		case GPUPROBE_A_KERNEL_RELEASE:
			snprintf(info->release, sizeof(info->release), "%s",
				 (char *)d);
			break;
		case GPUPROBE_A_CLOCK:
			info->clock = *(uint32_t *)d;
			break;
		case GPUPROBE_A_CAPS:
			memcpy(&info->caps, d, sizeof(info->caps));
			break;
		case GPUPROBE_A_RECORD_VERSION:
			info->record_version = *(uint32_t *)d;
			break;
		}
	}
}

FIXTURE(info) {
	struct genl_sock s;
	struct genl_msg m;
};

FIXTURE_SETUP(info)
{
	if (!mod_loaded("gpuprobe"))
		ASSERT_EQ(0, mod_load(GPUPROBE_KO, NULL));
	ASSERT_EQ(0, genl_open(&self->s, GPUPROBE_FAMILY_NAME,
			       GPUPROBE_MCGRP_EVENTS));
}

FIXTURE_TEARDOWN(info)
{
	genl_close(&self->s);
	mod_unload("gpuprobe");
}

TEST_F(info, round_trip)
{
	struct info info = {};
	struct utsname u;
	char modver[64];

	genl_msg_init(&self->m, self->s.family, 0, GPUPROBE_CMD_GET_INFO);
	ASSERT_EQ(0, genl_xfer(&self->s, &self->m, info_cb, &info));
	ASSERT_EQ(1, info.seen);

	ASSERT_EQ(0, read_file("/sys/module/gpuprobe/version", modver,
			       sizeof(modver)));
	EXPECT_STREQ(modver, info.version);
	ASSERT_EQ(0, uname(&u));
	EXPECT_STREQ(u.release, info.release);
	EXPECT_EQ(CLOCK_MONOTONIC, info.clock);
	EXPECT_EQ(GPUPROBE_RECORD_VERSION, info.record_version);
	/* Debian's 6.1.192 has GENL_MCAST_CAP_SYS_ADMIN by backport. */
	EXPECT_TRUE(info.caps & GPUPROBE_CAP_MCAST_PRIV);
	EXPECT_NE(0, self->s.events_group);
}

TEST_F(info, unknown_command_refused)
{
	genl_msg_init(&self->m, self->s.family, 0, 200);
	EXPECT_EQ(-EOPNOTSUPP, genl_xfer(&self->s, &self->m, NULL, NULL));
}

TEST_F(info, family_gone_after_unload)
{
	struct genl_sock s2;

	genl_close(&self->s);
	ASSERT_EQ(0, mod_unload("gpuprobe"));
	EXPECT_EQ(-ENOENT, genl_open(&s2, GPUPROBE_FAMILY_NAME, NULL));
	genl_close(&s2);
	self->s.fd = -1;
}

/* Every display-class PCI function, "a,b,c" in sysfs (readdir) order. */
static void display_devices(char *out, size_t len)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	char path[512], cls[32];

	out[0] = '\0';
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/class",
			 e->d_name);
		if (read_file(path, cls, sizeof(cls)) ||
		    (strtoul(cls, NULL, 16) >> 16) != 0x03)
			continue;
		if (*out)
			strncat(out, ",", len - strlen(out) - 1);
		strncat(out, e->d_name, len - strlen(out) - 1);
	}
	if (d)
		closedir(d);
}

/* insmod with no target= watches every display-class device, nothing else. */
TEST(default_targets_are_display_devices)
{
	struct genl_sock s;
	char want[256], got[256];

	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	display_devices(want, sizeof(want));
	ASSERT_NE('\0', want[0]);	/* the test VM has a VGA adapter */
	ASSERT_EQ(0, mod_load(GPUPROBE_KO, NULL));
	ASSERT_EQ(0, genl_open(&s, GPUPROBE_FAMILY_NAME, NULL));
	ASSERT_EQ(0, gp_targets(&s, got));
	EXPECT_STREQ(want, got);
	genl_close(&s);
	ASSERT_EQ(0, mod_unload("gpuprobe"));
}

TEST_HARNESS_MAIN
