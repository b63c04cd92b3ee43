// SPDX-License-Identifier: GPL-2.0
/*
 * The selected CUDA API calls timed from CUPTI's callbacks (cuptiapi.h).
 * The ids are walked once at start, as for the activity selection
 * (cupti_inject.c enable_selected): each selected id keeps its CUPTI name
 * and whether it blocks, so a call costs two clock reads and one record.
 */
#include "appwriter.h"
#include "cupti_devices.h"
#include "cuptiapi.h"
#include "cuptiselect.h"

struct api_call {
	const char *name;		/* NULL: not recorded */
	bool blocks;
};

static struct api_call driver_calls[CUPTI_DRIVER_TRACE_CBID_SIZE];
static struct api_call runtime_calls[CUPTI_RUNTIME_TRACE_CBID_SIZE];

static struct api_call *call_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
		return &driver_calls[cbid];
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
		return &runtime_calls[cbid];
	return NULL;
}

/* Under the all-or-none rule: every id enabled so far of domain switched off again. */
static void disable_all(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
			uint32_t ids)
{
	for (uint32_t cbid = 1; cbid < ids; cbid++) {
		struct api_call *c = call_of(domain, cbid);

		if (c && c->name) {
			cuptiEnableCallback(0, subscriber, domain, cbid);
			c->name = NULL;
		}
	}
}

static int enable_domain(CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
			 uint32_t ids)
{
	bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	int n = 0;

	for (uint32_t cbid = 1; cbid < ids; cbid++) {
		struct api_call *c = call_of(domain, cbid);
		const char *name = NULL;

		if (!c || cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS ||
		    !cupti_api_selected(runtime, name))
			continue;
		if (cuptiEnableCallback(1, subscriber, domain, cbid) != CUPTI_SUCCESS)
			return -1;
		c->name = name;
		c->blocks = cupti_api_blocks(name);
		n++;
	}
	return n;
}

int cupti_api_callbacks_start(CUpti_SubscriberHandle subscriber, bool runtime)
{
	int nd = enable_domain(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
	int nr = 0;

	if (nd >= 0 && runtime)
		nr = enable_domain(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
				   CUPTI_RUNTIME_TRACE_CBID_SIZE);
	if (nd < 0 || nr < 0) {
		disable_all(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
		disable_all(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
		return -1;
	}
	return nd + nr;
}

void cupti_api_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			const CUpti_CallbackData *cb)
{
	const struct api_call *c = call_of(domain, cbid);
	struct gpuprobe_app_event ev;
	uint64_t now, start;

	if (!c || !c->name || !cb->correlationData || cupti_clock_in_check())
		return;
	now = appwriter_mono_ns();
	if (cb->callbackSite == CUPTI_API_ENTER) {
		*cb->correlationData = now;
		return;
	}
	start = *cb->correlationData;
	if (cb->callbackSite != CUPTI_API_EXIT || !start || start > now)
		return;
	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_API);
	ev.kind = cbid;
	ev.tid = appwriter_tid();
	ev.correlation = cb->correlationId;
	ev.start_ns = start;
	ev.end_ns = now;
	if (c->blocks)
		ev.flags = GPUPROBE_APPF_BLOCKING;
	appwriter_set_name(&ev, c->name);
	appwriter_put(&ev);
}
