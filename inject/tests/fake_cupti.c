// SPDX-License-Identifier: GPL-2.0
/* What the CUDA-less tests of inject/ share (fake_cupti.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appwriter.h"
#include "fake_cupti.h"

unsigned int failures;
bool fake_enabled[2][FAKE_CBIDS];
unsigned int fake_enable_calls, fake_fail_enable_at;

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;

	(void)subscriber;
	if ((!runtime && domain != CUPTI_CB_DOMAIN_DRIVER_API) || cbid >= FAKE_CBIDS)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (enable && ++fake_enable_calls == fake_fail_enable_at)
		return CUPTI_ERROR_NOT_INITIALIZED;
	fake_enabled[runtime][cbid] = enable;
	return CUPTI_SUCCESS;
}

void fake_enable_reset(void)
{
	memset(fake_enabled, 0, sizeof(fake_enabled));
	fake_enable_calls = 0;
	fake_fail_enable_at = 0;
}

unsigned int fake_enabled_count(bool runtime)
{
	unsigned int n = 0;

	for (size_t i = 0; i < FAKE_CBIDS; i++)
		n += fake_enabled[runtime][i];
	return n;
}

uint64_t fake_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int fake_events_open(char *path_template)
{
	int fd = mkstemp(path_template);

	if (fd < 0)
		return -1;
	close(fd);
	setenv(GPUPROBE_APP_EVENTS_ENV, path_template, 1);
	if (!appwriter_open()) {
		fprintf(stderr, "cannot open %s\n", path_template);
		unlink(path_template);
		return -1;
	}
	return 0;
}

size_t fake_events_read(const char *path, struct gpuprobe_app_event *ev, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(ev, sizeof(*ev), max, f);
	fclose(f);
	return n;
}

int fake_finish(const char *name, const char *path)
{
	unlink(path);
	printf("%s: %u failed\n", name, failures);
	return failures ? 1 : 0;
}
