// SPDX-License-Identifier: GPL-2.0
/*
 * Ops from the launching calls' callbacks (cuptiops.h).  Both domains: an
 * application on the runtime (PyTorch) launches through cudaLaunchKernel,
 * one on the driver (Triton, cuLaunchKernel) directly.  A driver call made
 * inside one of the runtime calls here is the same op: it is not recorded
 * again (the thread's runtime depth, in case CUPTI calls back for it).
 */
#include <string.h>

#include <cupti.h>	/* and the calls' parameter structures */

#include "appwriter.h"
#include "cuptiops.h"

enum op { OP_KERNEL, OP_COPY, OP_SET };

static const struct {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	enum op op;
	bool per_thread;
} calls[] = {
#define RT(id, op, pt)	{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##id, op, pt }
#define DRV(id, op, pt)	{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##id, op, pt }
	RT(cudaLaunchKernel_v7000, OP_KERNEL, false),
	RT(cudaLaunchKernel_ptsz_v7000, OP_KERNEL, true),
	RT(cudaLaunchKernelExC_v11060, OP_KERNEL, false),
	RT(cudaLaunchKernelExC_ptsz_v11060, OP_KERNEL, true),
	RT(cudaMemcpyAsync_v3020, OP_COPY, false),
	RT(cudaMemcpyAsync_ptsz_v7000, OP_COPY, true),
	RT(cudaMemcpy_v3020, OP_COPY, false),
	RT(cudaMemcpy_ptds_v7000, OP_COPY, true),
	RT(cudaMemsetAsync_v3020, OP_SET, false),
	RT(cudaMemsetAsync_ptsz_v7000, OP_SET, true),
	RT(cudaMemset_v3020, OP_SET, false),
	RT(cudaMemset_ptds_v7000, OP_SET, true),
	DRV(cuLaunchKernel, OP_KERNEL, false),
	DRV(cuLaunchKernel_ptsz, OP_KERNEL, true),
	DRV(cuLaunchKernelEx, OP_KERNEL, false),
	DRV(cuLaunchKernelEx_ptsz, OP_KERNEL, true),
	DRV(cuMemcpyHtoDAsync_v2, OP_COPY, false),
	DRV(cuMemcpyHtoDAsync_v2_ptsz, OP_COPY, true),
	DRV(cuMemcpyDtoHAsync_v2, OP_COPY, false),
	DRV(cuMemcpyDtoHAsync_v2_ptsz, OP_COPY, true),
	DRV(cuMemcpyDtoDAsync_v2, OP_COPY, false),
	DRV(cuMemcpyDtoDAsync_v2_ptsz, OP_COPY, true),
	DRV(cuMemcpyAsync, OP_COPY, false),
	DRV(cuMemcpyAsync_ptsz, OP_COPY, true),
	DRV(cuMemsetD8Async, OP_SET, false),
	DRV(cuMemsetD8Async_ptsz, OP_SET, true),
	DRV(cuMemsetD32Async, OP_SET, false),
	DRV(cuMemsetD32Async_ptsz, OP_SET, true),
#undef RT
#undef DRV
};

bool cupti_ops_from_callbacks(const char *value)
{
	return value && !strcmp(value, "callbacks");
}

int cupti_ops_start(CUpti_SubscriberHandle subscriber)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (cuptiEnableCallback(1, subscriber, calls[i].domain, calls[i].cbid) == CUPTI_SUCCESS)
			continue;
		while (i-- > 0)
			cuptiEnableCallback(0, subscriber, calls[i].domain, calls[i].cbid);
		return -1;
	}
	return (int)(sizeof(calls) / sizeof(calls[0]));
}

static int call_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (calls[i].cbid == cbid && calls[i].domain == domain)
			return (int)i;
	return -1;
}

static uint32_t runtime_direction(enum cudaMemcpyKind kind)
{
	switch (kind) {
	case cudaMemcpyHostToDevice:	return GPUPROBE_COPY_HTOD;
	case cudaMemcpyDeviceToHost:	return GPUPROBE_COPY_DTOH;
	case cudaMemcpyDeviceToDevice:	return GPUPROBE_COPY_DTOD;
	case cudaMemcpyHostToHost:	return GPUPROBE_COPY_HTOH;
	default:			return GPUPROBE_COPY_UNKNOWN;
	}
}

/* The op's stream handle, bytes and copy direction from the call's parameters. */
static CUstream describe(CUpti_CallbackId cbid, bool runtime, const void *p,
			 uint64_t *bytes, uint32_t *direction)
{
	*bytes = 0;
	*direction = GPUPROBE_COPY_UNKNOWN;
	if (runtime) {
		switch (cbid) {
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
			return (CUstream)((const cudaLaunchKernel_v7000_params *)p)->stream;
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
			const cudaLaunchConfig_t *c = ((const cudaLaunchKernelExC_v11060_params *)p)->config;

			return c ? (CUstream)c->stream : NULL;
		}
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
			const cudaMemcpyAsync_v3020_params *m = p;

			*bytes = m->count;
			*direction = runtime_direction(m->kind);
			return (CUstream)m->stream;
		}
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
			const cudaMemcpy_v3020_params *m = p;

			*bytes = m->count;
			*direction = runtime_direction(m->kind);
			return NULL;
		}
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
			*bytes = ((const cudaMemsetAsync_v3020_params *)p)->count;
			return (CUstream)((const cudaMemsetAsync_v3020_params *)p)->stream;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
			*bytes = ((const cudaMemset_v3020_params *)p)->count;
			return NULL;
		default:
			return NULL;
		}
	}
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		return ((const cuLaunchKernel_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)p)->config;

		return c ? c->hStream : NULL;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
		*direction = GPUPROBE_COPY_HTOD;
		*bytes = ((const cuMemcpyHtoDAsync_v2_params *)p)->ByteCount;
		return ((const cuMemcpyHtoDAsync_v2_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
		*direction = GPUPROBE_COPY_DTOH;
		*bytes = ((const cuMemcpyDtoHAsync_v2_params *)p)->ByteCount;
		return ((const cuMemcpyDtoHAsync_v2_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
		*direction = GPUPROBE_COPY_DTOD;
		*bytes = ((const cuMemcpyDtoDAsync_v2_params *)p)->ByteCount;
		return ((const cuMemcpyDtoDAsync_v2_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
		*bytes = ((const cuMemcpyAsync_params *)p)->ByteCount;
		return ((const cuMemcpyAsync_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
		*bytes = ((const cuMemsetD8Async_params *)p)->N;
		return ((const cuMemsetD8Async_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
		*bytes = 4 * ((const cuMemsetD32Async_params *)p)->N;
		return ((const cuMemsetD32Async_params *)p)->hStream;
	default:
		return NULL;
	}
}

/*
 * The CUPTI id of the stream (the one CUPTI's activity records carry), and
 * the device, as cuptisync.c names them: a default-stream handle is the
 * context's.  The last answer is kept per thread: a loop launches on the
 * same stream again and again.
 */
static __thread struct {
	CUcontext ctx;
	CUstream stream;
	uint8_t per_thread;
	uint32_t id, device;
	bool valid;
} last;

static bool ids_of(CUcontext ctx, CUstream stream, uint8_t per_thread, uint32_t *id, uint32_t *device)
{
	if (stream == CU_STREAM_LEGACY) {
		stream = NULL;
		per_thread = 0;
	} else if (stream == CU_STREAM_PER_THREAD) {
		stream = NULL;
		per_thread = 1;
	}
	if (!last.valid || last.ctx != ctx || last.stream != stream || last.per_thread != per_thread) {
		last.valid = cuptiGetStreamIdEx(ctx, stream, per_thread, &last.id) == CUPTI_SUCCESS &&
			cuptiGetDeviceId(ctx, &last.device) == CUPTI_SUCCESS;
		last.ctx = ctx;
		last.stream = stream;
		last.per_thread = per_thread;
	}
	*id = last.id;
	*device = last.device;
	return last.valid;
}

static __thread int runtime_depth;	/* inside a runtime call of calls[] */

void cupti_ops_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			const CUpti_CallbackData *cb)
{
	static const uint16_t types[] = {
		[OP_KERNEL] = GPUPROBE_APP_KERNEL, [OP_COPY] = GPUPROBE_APP_MEMCPY,
		[OP_SET] = GPUPROBE_APP_MEMSET,
	};
	uint64_t now = appwriter_mono_ns();
	struct gpuprobe_app_event ev;
	uint32_t direction;
	CUstream stream;
	int i;

	if (!cb->correlationData)
		return;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		runtime_depth += cb->callbackSite == CUPTI_API_ENTER ? 1 : -1;
	else if (runtime_depth > 0)
		return;	/* the runtime's own driver call: its op is recorded there */
	if (cb->callbackSite == CUPTI_API_ENTER) {
		*cb->correlationData = now;
		return;
	}
	i = call_of(domain, cbid);
	if (i < 0 || cb->callbackSite != CUPTI_API_EXIT || !*cb->correlationData || !cb->functionParams)
		return;
	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, types[calls[i].op]);
	stream = describe(cbid, domain == CUPTI_CB_DOMAIN_RUNTIME_API, cb->functionParams,
			  &ev.bytes, &direction);
	if (!ids_of(cb->context, stream, calls[i].per_thread, &ev.stream, &ev.device))
		return;
	if (calls[i].op == OP_COPY)
		ev.kind = direction;
	ev.correlation = cb->correlationId;
	ev.start_ns = *cb->correlationData;	/* tid 0: an op, as the activity records' */
	ev.end_ns = now;
	appwriter_set_name(&ev, calls[i].op == OP_KERNEL ? cb->symbolName :
			   calls[i].op == OP_COPY ? "memcpy" : "memset");
	appwriter_put(&ev);
}
