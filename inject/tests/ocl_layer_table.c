// SPDX-License-Identifier: GPL-2.0
/*
 * The OpenCL layer's fast path: every call the layer does not need for
 * attribution must go straight to the next layer (the loader's table entry
 * handed back unchanged: no wrapper, no cost).  The calls it may take are
 * written here from what the analysis reads (user/analysis/attribute*.c):
 * the enqueues whose commands are ops (kernels, reads, writes, rects,
 * copies, maps), the waits whose return ends an op (clFinish,
 * clWaitForEvents), and the queue calls that make the device times
 * readable (creation forces profiling on) and flush them (release).
 * A fake dispatch table of distinct addresses goes in; the entries that come
 * back changed must be exactly those.  Run by user/tests/inject.sh.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl_layer.h>

#define ENTRIES (sizeof(struct _cl_icd_dispatch) / sizeof(void *))
#define OFF(f) (offsetof(struct _cl_icd_dispatch, f) / sizeof(void *))

int main(void)
{
	static const struct { size_t slot; const char *name; } allowed[] = {
		{ OFF(clCreateCommandQueue), "clCreateCommandQueue" },
		{ OFF(clCreateCommandQueueWithProperties), "clCreateCommandQueueWithProperties" },
		{ OFF(clReleaseCommandQueue), "clReleaseCommandQueue" },
		{ OFF(clEnqueueNDRangeKernel), "clEnqueueNDRangeKernel" },
		{ OFF(clEnqueueReadBuffer), "clEnqueueReadBuffer" },
		{ OFF(clEnqueueWriteBuffer), "clEnqueueWriteBuffer" },
		{ OFF(clEnqueueReadBufferRect), "clEnqueueReadBufferRect" },
		{ OFF(clEnqueueWriteBufferRect), "clEnqueueWriteBufferRect" },
		{ OFF(clEnqueueCopyBuffer), "clEnqueueCopyBuffer" },
		{ OFF(clEnqueueMapBuffer), "clEnqueueMapBuffer" },
		{ OFF(clFinish), "clFinish" },
		{ OFF(clWaitForEvents), "clWaitForEvents" },
	};
	void *target[ENTRIES];
	const struct _cl_icd_dispatch *layer = NULL;
	const void *const *got;
	char path[] = "/tmp/gpuprobe-ocl-table.XXXXXX";
	size_t changed = 0, bad = 0;
	cl_uint n = 0;
	int fd = mkstemp(path);

	if (fd < 0)
		return 2;
	setenv("GPUPROBE_APP_EVENTS", path, 1);	/* recording: the layer installs its calls */
	for (size_t i = 0; i < ENTRIES; i++)
		target[i] = (char *)0x1000 + i;
	if (clInitLayer((cl_uint)ENTRIES, (const struct _cl_icd_dispatch *)target, &n, &layer) ||
	    !layer || n != ENTRIES) {
		fprintf(stderr, "clInitLayer refused the table\n");
		return 1;
	}
	got = (const void *const *)layer;
	for (size_t i = 0; i < ENTRIES; i++) {
		bool may = false;

		for (size_t a = 0; a < sizeof(allowed) / sizeof(allowed[0]); a++)
			may |= allowed[a].slot == i;
		if (got[i] == target[i])
			continue;
		changed++;
		if (!may) {
			fprintf(stderr, "entry %zu taken by the layer, not a call attribution reads\n", i);
			bad++;
		}
	}
	for (size_t a = 0; a < sizeof(allowed) / sizeof(allowed[0]); a++)
		if (got[allowed[a].slot] == target[allowed[a].slot]) {
			fprintf(stderr, "%s passed through: its events would be missing\n", allowed[a].name);
			bad++;
		}
	unlink(path);
	printf("ocl_layer_table: %zu of %zu entries taken, %zu wrong\n", changed, ENTRIES, bad);
	return bad ? 1 : 0;
}
