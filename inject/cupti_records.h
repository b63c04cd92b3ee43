/* SPDX-License-Identifier: GPL-2.0 */
/* CUPTI activity buffers: handed to CUPTI, turned into application events. */
#ifndef GPUPROBE_CUPTI_RECORDS_H
#define GPUPROBE_CUPTI_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

/* Before cuptiActivityRegisterCallbacks: buffers come zeroed from us. */
void cupti_records_start(void);
/* Our activity buffers' size (GPUPROBE_CUDA_TUNE=hostbuf=), before the first is asked for. */
void cupti_records_set_buffer_size(size_t bytes);
void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records);
void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
				    size_t size, size_t valid_size);
/* Records CUPTI dropped, summed over completed buffers. */
uint64_t cupti_records_dropped(void);
uint64_t cupti_records_written(void);

#endif /* GPUPROBE_CUPTI_RECORDS_H */
