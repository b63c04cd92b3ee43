// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA API calls attribution uses (cuptiselect.h).  Names, not callback
 * ids: the ids are numbered per CUPTI release and a call has several (the
 * _v2, _ptsz and _ptds variants), while the names keep their stem; the
 * library walks CUPTI's ids once at start and enables those whose name
 * matches.
 */
#include <string.h>

#include "cuptiselect.h"

/*
 * Stems matched at the start of the name.  Launches (kernels, cooperative,
 * host functions, graphs) and copies and memsets issue the ops whose
 * correlation id names their call; the synchronizations are the calls CUPTI's
 * sync records belong to and the blocking waits whose return ends an op's
 * last phase; the stream waits are sync records too.  Nothing in the
 * analysis reads any other call: not cudaEventRecord (an event sync is
 * matched to the ops by thread, not by the event), nor the queries that
 * allocators poll (cudaEventQuery, cudaStreamQuery), nor cudaGetDevice.
 */
static const char *const driver_stems[] = {
	"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset",
	"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
	"cuStreamWaitEvent",
};

static const char *const runtime_stems[] = {
	"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset",
	"cudaDeviceSynchronize", "cudaThreadSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize", "cudaStreamWaitEvent",
};

enum cupti_api_mode cupti_api_mode_of(const char *value)
{
	if (!value || !*value || !strcmp(value, "attribution"))
		return CUPTI_API_ATTRIBUTION;
	if (!strcmp(value, "all"))
		return CUPTI_API_ALL;
	return CUPTI_API_INVALID;
}

/* Every variant of a call shares its stem: cuMemcpyHtoDAsync_v2_ptsz is a cuMemcpy. */
static bool has_stem(const char *name, const char *stem)
{
	return !strncmp(name, stem, strlen(stem));
}

bool cupti_api_selected(bool runtime, const char *name)
{
	const char *const *stems = runtime ? runtime_stems : driver_stems;
	size_t n = runtime ? sizeof(runtime_stems) / sizeof(runtime_stems[0]) :
		sizeof(driver_stems) / sizeof(driver_stems[0]);

	if (!name)
		return false;
	for (size_t i = 0; i < n; i++)
		if (has_stem(name, stems[i]))
			return true;
	return false;
}

bool cupti_api_blocks(const char *name)
{
	return strstr(name, "Synchronize") ||
	       (!strncmp(name, "cuMemcpy", 8) && !strstr(name, "Async")) ||
	       (!strncmp(name, "cudaMemcpy", 10) && !strstr(name, "Async"));
}
