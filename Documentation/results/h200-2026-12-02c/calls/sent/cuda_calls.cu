#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define BATCH 100
__global__ void empty(void)
{
}
static unsigned long long now_ns(void)
{
struct timespec ts;
clock_gettime(CLOCK_MONOTONIC, &ts);
return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)
static cudaStream_t s;
static cudaEvent_t done, rec;
static CUfunction fn;
static void *dbuf, *hbuf;
static void one(int kind)
{
int dev;
CUcontext ctx;
switch (kind) {
case 0: empty<<<1, 1, 0, s>>>(); break;
case 1: CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, NULL, NULL)); break;
case 2: CK(cudaMemcpyAsync(dbuf, hbuf, 64, cudaMemcpyHostToDevice, s)); break;
case 3: CK(cudaMemsetAsync(dbuf, 0, 64, s)); break;
case 4: CK(cudaGetDevice(&dev)); break;
case 5: CK(cudaEventQuery(done)); break;
case 6: CK(cudaEventRecord(rec, s)); break;
case 7: CK(cuCtxGetCurrent(&ctx)); break;
case 8: CK(cudaStreamSynchronize(s)); break;
case 9: CK(cudaEventSynchronize(done)); break;
}
}
static const char *const names[] = {
"rt_launch", "drv_launch", "rt_memcpy_async", "rt_memset_async", "rt_get_device",
"rt_event_query", "rt_event_record", "drv_ctx_current", "rt_stream_sync", "rt_event_sync",
};
int main(int argc, char **argv)
{
long n = argc > 1 ? atol(argv[1]) : 20000;
CK(cudaSetDevice(0));
CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
CK(cudaEventCreateWithFlags(&rec, cudaEventDisableTiming));
CK(cudaMalloc(&dbuf, 4096));
CK(cudaMallocHost(&hbuf, 4096));
CK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)empty));
CK(cudaEventRecord(done, s));
CK(cudaStreamSynchronize(s));
for (int kind = 0; kind < (int)(sizeof(names) / sizeof(names[0])); kind++) {
unsigned long long spent = 0;
for (int i = 0; i < 500; i++)
one(kind);
CK(cudaStreamSynchronize(s));
CK(cudaEventRecord(done, s));
CK(cudaStreamSynchronize(s));
for (long i = 0; i < n; i += BATCH) {
unsigned long long t0 = now_ns();
for (long j = i; j < i + BATCH && j < n; j++)
one(kind);
spent += now_ns() - t0;
if (kind <= 3 || kind == 6)
CK(cudaStreamSynchronize(s));
}
CK(cudaStreamSynchronize(s));
printf("cuda_calls %s ns_per_call %.1f calls %ld\n", names[kind], (double)spent / n, n);
fflush(stdout);
}
CK(cudaDeviceSynchronize());
return 0;
}
