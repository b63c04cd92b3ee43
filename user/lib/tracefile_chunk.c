// SPDX-License-Identifier: GPL-2.0
/*
 * The compact encoding of format versions 2 and 3, their zstd chunks and
 * version 3's checksums.
 *
 * A record of a known type whose size equals that of the previous record of
 * its type in the chunk (its template) is written as: a tag (the type's
 * slot), 2-bit length codes (four to a byte), then the timestamp's
 * difference from the previous record's (zigzag: records are in time order
 * per CPU only; code: 1, 2, 4 or 8 bytes) and the difference of each 32-bit
 * word from the template's, word 1 (cpu, flags) and the body from word 4
 * (zigzag; code: 0 unchanged, 1, 2 or 4 bytes), little-endian.  Fixed
 * lengths from the codes decode without a branch per byte.  Any other record
 * is tag 0 and its bytes.  An interrupt record (40 bytes) takes about 10
 * bytes so, and zstd takes the rest.
 * Decoding needs nothing outside the chunk.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include <linux/gpuprobe.h>

#include "tracefile.h"
#include "tracefile_chunk.h"

#define HDR_SIZE	sizeof(struct gpuprobe_rec_hdr)
#define TAG_RAW		0

_Static_assert(TRACEFILE_CHUNK_HDR_V2 == 24 && TRACEFILE_CHUNK_HDR_V3 == 32, "chunk header sizes");
_Static_assert(CHUNK_SLOTS == 1 + GPUPROBE_EV_SWIOTLB + 4, "one slot per known type");

/* A known type's slot (1..CHUNK_SLOTS-1); 0 for types without one. */
static unsigned int slot_of(uint16_t type)
{
	if (type >= GPUPROBE_EV_IRQ && type <= GPUPROBE_EV_SWIOTLB)
		return type;
	if (type >= TRACEFILE_REC_IRQ_COUNT && type <= TRACEFILE_REC_VECTOR)
		return GPUPROBE_EV_SWIOTLB + 1 + (type - TRACEFILE_REC_IRQ_COUNT);
	return 0;
}

/* 2-bit length codes: of the timestamp's difference, and of a word's (0: unchanged) */
static const unsigned char TS_LEN[4] = { 1, 2, 4, 8 };
static const uint64_t TS_MASK[4] = { 0xff, 0xffff, 0xffffffffull, ~0ull };
static const unsigned char WORD_LEN[4] = { 0, 1, 2, 4 };
static const uint32_t WORD_MASK[4] = { 0, 0xff, 0xffff, 0xffffffffu };

static inline uint64_t zigzag64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag64(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* ---- checks (version 3) ---- */

uint32_t chunk_check(const void *p, size_t len)
{
	return (uint32_t)XXH3_64bits(p, len);
}

void chunk_check_fill(struct tracefile_chunk *h, const unsigned char *stored)
{
	h->data_check = chunk_check(stored, h->stored_size);
	h->header_check = chunk_check(h, offsetof(struct tracefile_chunk, header_check));
}

bool chunk_header_checks(const struct tracefile_chunk *h)
{
	return h->header_check == chunk_check(h, offsetof(struct tracefile_chunk, header_check));
}

/* ---- writer ---- */

struct chunk_encoder *chunk_encoder_new(int level)
{
	struct chunk_encoder *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->level = level;
	e->enc = malloc(TRACEFILE_CHUNK_ENC_MAX + CHUNK_INPUT_SLACK);
	e->zcap = ZSTD_compressBound(TRACEFILE_CHUNK_ENC_MAX);
	e->zbuf = malloc(e->zcap);
	e->zctx = ZSTD_createCCtx();
	if (!e->enc || !e->zbuf || !e->zctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_compressionLevel, level > 0 ? level : 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_checksumFlag, 1))) {
		chunk_encoder_free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

void chunk_encoder_free(struct chunk_encoder *e)
{
	if (!e)
		return;
	ZSTD_freeCCtx(e->zctx);
	free(e->zbuf);
	free(e->enc);
	free(e);
}

int chunk_encoder_fits(const struct chunk_encoder *e, const void *rec, uint16_t size)
{
	(void)rec;
	return e->raw_size + size <= TRACEFILE_CHUNK_RAW_MAX &&
	       e->enc_len + size + size / 4 + 24 <= TRACEFILE_CHUNK_ENC_MAX;
}

void chunk_encoder_add(struct chunk_encoder *e, const void *rec, uint16_t size)
{
	const struct gpuprobe_rec_hdr *h = rec;
	unsigned int slot = slot_of(h->type), nwords = size / 4;
	unsigned char *p = e->enc + e->enc_len;

	if (slot && e->tmpl_size[slot] == size) {
		const uint32_t *w = rec, *t = e->tmpl[slot];
		unsigned int ncodes = nwords - 2, code;
		unsigned char *ctrl;
		uint64_t d;

		*p++ = (unsigned char)slot;
		ctrl = p;
		p += (ncodes + 3) / 4;
		memset(ctrl, 0, (size_t)(p - ctrl));
		d = zigzag64((int64_t)(h->ts_ns - e->prev_ts));
		code = d < 0x100 ? 0 : d < 0x10000 ? 1 : d < 0x100000000ull ? 2 : 3;
		ctrl[0] = (unsigned char)code;
		memcpy(p, &d, TS_LEN[code]);
		p += TS_LEN[code];
		for (unsigned int c = 1; c < ncodes; c++) {
			unsigned int i = c == 1 ? 1 : c + 2;
			uint32_t z = (uint32_t)zigzag64((int32_t)(w[i] - t[i]));

			code = !z ? 0 : z < 0x100 ? 1 : z < 0x10000 ? 2 : 3;
			ctrl[c / 4] |= (unsigned char)(code << (c % 4 * 2));
			memcpy(p, &z, WORD_LEN[code]);
			p += WORD_LEN[code];
		}
	} else {
		*p++ = TAG_RAW;
		memcpy(p, rec, size);
		p += size;
	}
	if (slot && size <= CHUNK_TEMPLATE_MAX) {
		memcpy(e->tmpl[slot], rec, size);
		e->tmpl_size[slot] = size;
	}
	e->prev_ts = h->ts_ns;
	e->enc_len = (size_t)(p - e->enc);
	e->raw_size += size;
	e->records++;
}

int chunk_encoder_seal(struct chunk_encoder *e, struct tracefile_chunk *hdr,
		       const unsigned char **out, size_t *len)
{
	size_t z = e->level > 0 ? ZSTD_compress2(e->zctx, e->zbuf, e->zcap, e->enc, e->enc_len)
				: e->enc_len;

	if (ZSTD_isError(z)) {
		errno = EIO;
		return -1;
	}
	memcpy(hdr->magic, TRACEFILE_CHUNK_MAGIC, sizeof(hdr->magic));
	hdr->raw_size = e->raw_size;
	hdr->records = e->records;
	hdr->encoded_size = (uint32_t)e->enc_len;
	if (z < e->enc_len) {
		hdr->encoding = CHUNK_COMPACT_ZSTD;
		*out = e->zbuf;
		*len = z;
	} else {
		hdr->encoding = CHUNK_COMPACT;
		*out = e->enc;
		*len = e->enc_len;
	}
	hdr->stored_size = (uint32_t)*len;
	e->enc_len = 0;
	e->raw_size = 0;
	e->records = 0;
	e->prev_ts = 0;
	memset(e->tmpl_size, 0, sizeof(e->tmpl_size));
	return 0;
}

/* ---- reader ---- */

/*
 * The words of one control byte (four 2-bit codes) decode from four loads at
 * offsets known from the byte alone: no load waits for the one before it.
 * A code of 0 (the word unchanged) loads at the next offset and adds 0.
 */
struct word_group {
	unsigned char off[4];
	unsigned char len;
};

static struct word_group word_groups[256];
static pthread_once_t word_groups_once = PTHREAD_ONCE_INIT;

static void word_groups_init(void)
{
	for (unsigned int b = 0; b < 256; b++) {
		unsigned int o = 0;

		for (unsigned int k = 0; k < 4; k++) {
			word_groups[b].off[k] = (unsigned char)o;
			o += WORD_LEN[b >> (2 * k) & 3];
		}
		word_groups[b].len = (unsigned char)o;
	}
}

int chunk_decoder_init(struct chunk_decoder *d)
{
	pthread_once(&word_groups_once, word_groups_init);
	d->dctx = ZSTD_createDCtx();
	/*
	 * Zeroed: a cut frame is decompressed unchecked (its checksum is past
	 * the cut), and damaged matches may copy bytes of the buffer no chunk
	 * wrote yet.
	 */
	d->enc = calloc(1, TRACEFILE_CHUNK_ENC_MAX + CHUNK_INPUT_SLACK);
	if (!d->dctx || !d->enc) {
		chunk_decoder_free(d);
		return -1;
	}
	return 0;
}

void chunk_decoder_free(struct chunk_decoder *d)
{
	ZSTD_freeDCtx(d->dctx);
	free(d->enc);
	d->dctx = NULL;
	d->enc = NULL;
}

const char *chunk_header_problem(const struct tracefile_chunk *h)
{
	if (memcmp(h->magic, TRACEFILE_CHUNK_MAGIC, sizeof(h->magic)))
		return "bad chunk magic";
	if (h->encoding != CHUNK_COMPACT && h->encoding != CHUNK_COMPACT_ZSTD)
		return "unknown chunk encoding";
	if (h->raw_size > TRACEFILE_CHUNK_RAW_MAX || h->raw_size % 8 ||
	    h->encoded_size > TRACEFILE_CHUNK_ENC_MAX ||
	    h->records > h->raw_size / HDR_SIZE)
		return "impossible chunk sizes";
	if (h->stored_size > ZSTD_compressBound(TRACEFILE_CHUNK_ENC_MAX) ||
	    (h->encoding == CHUNK_COMPACT && h->stored_size != h->encoded_size))
		return "impossible stored size";
	return NULL;
}

static inline uint32_t word_delta(const unsigned char *p, unsigned int code)
{
	uint32_t z;

	memcpy(&z, p, sizeof(z));
	z &= WORD_MASK[code];
	return (z >> 1) ^ -(z & 1);
}

/* One compact record at *pp into out (room bytes left); NULL, or the problem. */
static const char *decode_compact(const unsigned char **pp, const unsigned char *end,
				  unsigned char **tmpl, uint64_t *prev_ts,
				  unsigned char *out, size_t room)
{
	const unsigned char *p = *pp, *ctrl;
	unsigned int tag = *p++, size, nctrl, code, g;
	const uint32_t *t;
	uint64_t x;
	uint32_t *w;

	if (tag >= CHUNK_SLOTS)
		return "unknown record tag";
	if (tag == TAG_RAW) {
		struct gpuprobe_rec_hdr h;

		if ((size_t)(end - p) < HDR_SIZE)
			return "record header past the chunk's end";
		memcpy(&h, p, HDR_SIZE);
		size = h.size;
		if (size < HDR_SIZE || size % 8 || size > room || size > (size_t)(end - p))
			return "bad record size";
		memcpy(out, p, size);
		p += size;
		tag = slot_of(h.type);
	} else {
		if (!tmpl[tag])
			return "record refers to no earlier record";
		size = ((const struct gpuprobe_rec_hdr *)tmpl[tag])->size;
		if (size > room)
			return "records larger than the chunk says";
		/*
		 * Every word from the template's, one 4-byte load and store each:
		 * the template was just written word by word, and a wider load
		 * of it would wait for those stores to retire.
		 */
		t = (const uint32_t *)tmpl[tag];
		w = (uint32_t *)out;
		w[0] = t[0];
		/* codes: the timestamp, word 1, then words 4 .. size / 4 - 1 */
		nctrl = (size / 4 - 2 + 3) / 4;
		ctrl = p;
		p += nctrl;
		code = ctrl[0] & 3;
		memcpy(&x, p, sizeof(x));
		p += TS_LEN[code];
		((struct gpuprobe_rec_hdr *)out)->ts_ns = *prev_ts +
			(uint64_t)unzigzag64(x & TS_MASK[code]);
		/* the first byte's other three codes: words 1, 4 and 5 */
		g = ctrl[0] >> 2;
		w[1] = t[1] + word_delta(p + word_groups[g].off[0], g & 3);
		w[4] = t[4] + word_delta(p + word_groups[g].off[1], g >> 2 & 3);
		w[5] = t[5] + word_delta(p + word_groups[g].off[2], g >> 4 & 3);
		p += word_groups[g].len;
		/*
		 * Byte b: words 4b + 2 .. 4b + 5.  Past the record's last word
		 * the codes are 0: up to 2 words (sizes are multiples of 8) of
		 * slack written, overwritten by the next record.
		 */
		for (unsigned int b = 1; b < nctrl; b++) {
			const struct word_group *wg = &word_groups[ctrl[b]];
			const uint32_t *tb = t + 4 * b + 2;
			uint32_t *wb = w + 4 * b + 2;

			g = ctrl[b];
			wb[0] = tb[0] + word_delta(p + wg->off[0], g & 3);
			wb[1] = tb[1] + word_delta(p + wg->off[1], g >> 2 & 3);
			wb[2] = tb[2] + word_delta(p + wg->off[2], g >> 4 & 3);
			wb[3] = tb[3] + word_delta(p + wg->off[3], g >> 6);
			p += wg->len;
		}
		/* the loads above may read CHUNK_INPUT_SLACK bytes past end: judged here */
		if (p > end)
			return "record cut at the chunk's end";
	}
	if (tag && size <= CHUNK_TEMPLATE_MAX)
		tmpl[tag] = out;
	*prev_ts = ((const struct gpuprobe_rec_hdr *)out)->ts_ns;
	*pp = p;
	return NULL;
}

/*
 * Compact records from p (their bytes end at end) into out, at most nrec of
 * them and room bytes; *nout, *len: records and bytes written, *pp moved
 * past them.  NULL, or the problem with the record after them.  cut: the
 * chunk was cut, its checksum vouches for nothing, so decoding stops at the
 * first record that fails the checks of a record alone (a flip near a cut
 * must not refuse the file), and at the end record (a cut in a zstd frame's
 * last bytes may leave it whole: the file is still cut).
 */
static const char *decode_records(const unsigned char **pp, const unsigned char *end,
				  uint32_t nrec, unsigned char *out, size_t room,
				  uint32_t *nout, size_t *len, bool cut)
{
	unsigned char *tmpl[CHUNK_SLOTS] = { 0 };
	uint64_t prev_ts = 0;

	memset((unsigned char *)end, 0, CHUNK_INPUT_SLACK);
	*nout = 0;
	*len = 0;
	for (uint32_t i = 0; i < nrec; i++) {
		const struct gpuprobe_rec_hdr *rec;
		const unsigned char *p = *pp;
		const char *problem;

		if (p >= end)
			return "fewer records than the chunk header says";
		problem = decode_compact(&p, end, tmpl, &prev_ts, out + *len, room - *len);
		if (problem)
			return problem;
		rec = (const struct gpuprobe_rec_hdr *)(out + *len);
		if (cut && (!tracefile_record_sane(rec) || rec->type == TRACEFILE_REC_END))
			return "a record of the cut chunk is not kept";
		*pp = p;
		*len += ((const struct gpuprobe_rec_hdr *)(out + *len))->size;
		(*nout)++;
	}
	return NULL;
}

const char *chunk_decode(struct chunk_decoder *d, const struct tracefile_chunk *h,
			 unsigned char *stored, unsigned char *out)
{
	const unsigned char *p = stored, *end;
	const char *problem;
	uint32_t nrec;
	size_t len;

	if (h->encoding == CHUNK_COMPACT_ZSTD) {
		size_t n = ZSTD_decompressDCtx(d->dctx, d->enc, TRACEFILE_CHUNK_ENC_MAX,
					       stored, h->stored_size);

		if (ZSTD_isError(n))
			return ZSTD_getErrorName(n);
		if (n != h->encoded_size)
			return "decompressed size differs from the chunk header's";
		p = d->enc;
	}
	end = p + h->encoded_size;
	problem = decode_records(&p, end, h->records, out, h->raw_size, &nrec, &len, false);
	if (problem)
		return problem;
	if (p != end || len != h->raw_size)
		return "records and sizes disagree with the chunk header";
	return NULL;
}

/* A zstd frame's first got bytes, decompressed as far as they go: the bytes out. */
static size_t zstd_prefix(struct chunk_decoder *d, const unsigned char *stored, size_t got)
{
	ZSTD_inBuffer in = { stored, got, 0 };
	ZSTD_outBuffer out = { d->enc, TRACEFILE_CHUNK_ENC_MAX, 0 };

	ZSTD_DCtx_reset(d->dctx, ZSTD_reset_session_only);
	while (in.pos < in.size && out.pos < out.size) {
		size_t before_in = in.pos, before_out = out.pos;
		size_t ret = ZSTD_decompressStream(d->dctx, &out, &in);

		if (ZSTD_isError(ret) || (in.pos == before_in && out.pos == before_out))
			break;
	}
	/* a frame that did not end is left inside the context: the next chunk resets it */
	return out.pos;
}

void chunk_decode_prefix(struct chunk_decoder *d, const struct tracefile_chunk *h,
			 unsigned char *stored, size_t got, unsigned char *out,
			 struct chunk_prefix *kept)
{
	const unsigned char *p = stored, *end = stored + got;
	size_t len;

	if (h->encoding == CHUNK_COMPACT_ZSTD) {
		size_t n = zstd_prefix(d, stored, got);

		p = d->enc;
		end = p + (n < h->encoded_size ? n : h->encoded_size);
	}
	/* the problem, if any, is the record the cut reaches: the ones before it are whole */
	decode_records(&p, end, h->records, out, h->raw_size, &kept->records, &len, true);
	kept->raw_size = (uint32_t)len;
	kept->stored_used = h->encoding == CHUNK_COMPACT_ZSTD ? (uint32_t)got
				: (uint32_t)(p - stored);
}
