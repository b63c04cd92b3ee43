// SPDX-License-Identifier: GPL-2.0
/*
 * CUPTI's clock checked with brackets (inject/cudaclock.c): a mapping off by
 * a known offset is found inside the interval the brackets give, the bound
 * covers it, tighter tries narrow it; an offset that moves between tries is
 * flagged and the hull covers every offset; PCI bus ids as libcuda prints them.
 */
#include <string.h>

#include <linux/gpuprobe.h>

#include "cudaclock.h"
#include "testlib.h"
#include "tests.h"

/* An op truly run over [run, run + len] inside [before, after], reported off by offset. */
static struct cuda_clock_try bracket(uint64_t before, uint64_t run, uint64_t len, uint64_t after,
				     int64_t offset)
{
	return (struct cuda_clock_try){ before, after, run + (uint64_t)offset,
					run + len + (uint64_t)offset };
}

void test_cudaclock_bracket(void)
{
	struct cuda_clock_try tries[4] = { 0 };
	struct cuda_clock_fit fit, one;
	const int64_t offset = 3000;	/* CUPTI's times 3 us late */

	CHECK(!cuda_clock_fit(tries, 0, &fit), "fit without a try");
	/* 20 us brackets, the 2 us op at different places in each */
	tries[0] = bracket(100000, 104000, 2000, 120000, offset);
	tries[1] = bracket(200000, 215000, 2000, 220000, offset);
	tries[2] = bracket(300000, 301000, 2000, 318000, offset);
	tries[3] = bracket(400000, 407000, 2000, 410000, offset);	/* tightest: 10 us */
	CHECK(cuda_clock_fit(tries, 1, &one) && one.consistent, "one try");
	CHECK(one.offset_lo <= offset && offset <= one.offset_hi, "one try: %lld not in [%lld, %lld]",
	      (long long)offset, (long long)one.offset_lo, (long long)one.offset_hi);
	CHECK(cuda_clock_fit(tries, 4, &fit) && fit.consistent, "four tries");
	CHECK(fit.offset_lo <= offset && offset <= fit.offset_hi, "%lld not in [%lld, %lld]",
	      (long long)offset, (long long)fit.offset_lo, (long long)fit.offset_hi);
	CHECK(fit.offset_hi - fit.offset_lo < one.offset_hi - one.offset_lo,
	      "more tries do not narrow: %lld vs %lld", (long long)(fit.offset_hi - fit.offset_lo),
	      (long long)(one.offset_hi - one.offset_lo));
	/* intersection: lo from try 3 (407000+2000+3000-410000), hi from try 2 (301000+3000-300000) */
	CHECK_EQ_U64((uint64_t)fit.offset_lo, 2000);
	CHECK_EQ_U64((uint64_t)fit.offset_hi, 4000);
	CHECK_EQ_U64(fit.bound_ns, 4000);
	CHECK_EQ_U64(fit.host_ns, 405000);

	/* a negative offset: the bound is its magnitude side */
	tries[0] = bracket(100000, 101000, 2000, 104000, -5000);
	CHECK(cuda_clock_fit(tries, 1, &fit) && fit.consistent, "negative");
	CHECK(fit.offset_lo == -6000 && fit.offset_hi == -4000 && fit.bound_ns == 6000,
	      "[%lld, %lld] bound %llu", (long long)fit.offset_lo, (long long)fit.offset_hi,
	      (unsigned long long)fit.bound_ns);

	/* the offset jumps by 50 us between tries: no offset fits both, flagged, hull covers both */
	tries[0] = bracket(100000, 104000, 2000, 110000, 0);
	tries[1] = bracket(200000, 204000, 2000, 210000, 50000);
	CHECK(cuda_clock_fit(tries, 2, &fit) && !fit.consistent, "moving offset not flagged");
	CHECK(fit.offset_lo <= 0 && fit.offset_hi >= 50000 && fit.bound_ns >= 50000,
	      "hull [%lld, %lld]", (long long)fit.offset_lo, (long long)fit.offset_hi);

	/* an op longer on the GPU than its host bracket: the mapping's rate is wrong */
	tries[0] = (struct cuda_clock_try){ 100000, 105000, 100000, 108000 };
	CHECK(cuda_clock_fit(tries, 1, &fit) && !fit.consistent, "inverted try not flagged");
	CHECK(fit.offset_lo <= fit.offset_hi, "hull inverted");
}

void test_cudaclock_pci_bus_id(void)
{
	static const struct { const char *s; bool ok; uint32_t bdf; } cases[] = {
		{ "0000:00:06.0", true, GPUPROBE_BDF(0, 0x00, 0x30) },
		{ "00000000:65:00.0", true, GPUPROBE_BDF(0, 0x65, 0x00) },
		{ "0001:c1:1f.7", true, GPUPROBE_BDF(1, 0xc1, 0xff) },
		{ "0000:00:06", false, 0 },
		{ "0000:00:20.0", false, 0 },
		{ "0000:00:06.8", false, 0 },
		{ "10000:00:06.0", false, 0 },
		{ "0000:00:06.0x", false, 0 },
		{ "", false, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t bdf = 0;
		bool ok = cuda_pci_bus_id_parse(cases[i].s, &bdf);

		CHECK(ok == cases[i].ok && (!ok || bdf == cases[i].bdf), "'%s': %d %#x", cases[i].s,
		      ok, bdf);
	}
}
