/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Format versions 2 and 3's records: chunks of whole records, each compact-encoded
 * (timestamps and fields as differences from the previous record of the
 * same type) and then compressed with zstd.  Every chunk decodes on its own;
 * in version 3 each carries a checksum of its header and of its bytes, so a
 * damaged chunk is skipped and the next one found.  A file cut inside a
 * chunk is read up to the last whole record before the cut.
 * Documentation/trace-format.md, "Compressed records (versions 2 and 3)".
 */
#ifndef GPUPROBE_TRACEFILE_CHUNK_H
#define GPUPROBE_TRACEFILE_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACEFILE_CHUNK_MAGIC	"GPCK"
/* Decoded records in one chunk, at most (the reader's buffer). */
#define TRACEFILE_CHUNK_RAW_MAX	(1u << 20)
/* Compact bytes of one chunk, at most: raw plus 1/4 (varints) and a tag per record. */
#define TRACEFILE_CHUNK_ENC_MAX	(TRACEFILE_CHUNK_RAW_MAX + TRACEFILE_CHUNK_RAW_MAX / 2)
/* Records larger than this are stored as they are (no template). */
#define CHUNK_TEMPLATE_MAX	256
#define CHUNK_SLOTS		13

enum tracefile_chunk_encoding {
	CHUNK_COMPACT = 1,		/* the compact encoding, stored as is */
	CHUNK_COMPACT_ZSTD = 3,		/* the compact encoding, then one zstd frame */
};

struct tracefile_chunk {
	char magic[4];			/* "GPCK" */
	uint32_t encoding;		/* enum tracefile_chunk_encoding */
	uint32_t stored_size;		/* bytes that follow this header */
	uint32_t raw_size;		/* bytes of the decoded records */
	uint32_t records;		/* whole records in the chunk */
	uint32_t encoded_size;		/* bytes of the compact encoding */
	/* version 3 only (a version 2 chunk header ends above) */
	uint32_t data_check;		/* chunk_check() of the stored bytes */
	uint32_t header_check;		/* chunk_check() of the 28 bytes above */
};

/* The bytes of a chunk header in a file of format version v (2 or 3). */
#define TRACEFILE_CHUNK_HDR_V2	offsetof(struct tracefile_chunk, data_check)
#define TRACEFILE_CHUNK_HDR_V3	sizeof(struct tracefile_chunk)
/* xxHash's XXH3, 64 bits, its low 32 */
uint32_t chunk_check(const void *p, size_t len);
/* Fill in h's two checks over its fields and stored (h->stored_size bytes). */
void chunk_check_fill(struct tracefile_chunk *h, const unsigned char *stored);
/* Whether a version 3 header's own check holds. */
bool chunk_header_checks(const struct tracefile_chunk *h);

/* Writer side: records into compact bytes; a chunk's state. */
struct chunk_encoder {
	unsigned char *enc;		/* TRACEFILE_CHUNK_ENC_MAX bytes */
	size_t enc_len;
	uint32_t raw_size;
	uint32_t records;
	uint64_t prev_ts;
	uint16_t tmpl_size[CHUNK_SLOTS];
	uint32_t tmpl[CHUNK_SLOTS][CHUNK_TEMPLATE_MAX / 4];
	void *zctx;			/* ZSTD_CCtx */
	unsigned char *zbuf;
	size_t zcap;
	int level;
};

struct chunk_encoder *chunk_encoder_new(int level);
void chunk_encoder_free(struct chunk_encoder *e);
/* Whether rec fits in the current chunk (else write it out first). */
int chunk_encoder_fits(const struct chunk_encoder *e, const void *rec, uint16_t size);
void chunk_encoder_add(struct chunk_encoder *e, const void *rec, uint16_t size);
/*
 * The current chunk as header + stored bytes (*out, *len point into e);
 * the encoder starts a new chunk.  0, or -1 with errno set.
 */
int chunk_encoder_seal(struct chunk_encoder *e, struct tracefile_chunk *hdr,
		       const unsigned char **out, size_t *len);

/* Reader side. */
struct chunk_decoder {
	void *dctx;			/* ZSTD_DCtx */
	unsigned char *enc;		/* TRACEFILE_CHUNK_ENC_MAX */
};

int chunk_decoder_init(struct chunk_decoder *d);
void chunk_decoder_free(struct chunk_decoder *d);
/* A chunk header that can be believed: NULL, or what is wrong with it. */
const char *chunk_header_problem(const struct tracefile_chunk *h);
/*
 * Bytes the decoder may read past the end of its input (stored has them):
 * it judges a record's length once the record is decoded, so a cut or
 * forged last record may take it past the end by what the longest template
 * record can encode (a tag, 2-bit codes, an 8-byte timestamp and 4 bytes a
 * word), and a load of 8 more.
 */
#define CHUNK_INPUT_SLACK	(1 + CHUNK_TEMPLATE_MAX / 16 + 8 + CHUNK_TEMPLATE_MAX + 8)
/* Bytes the decoder may touch past the records it writes. */
#define CHUNK_SLACK		64
/*
 * stored (h->stored_size bytes and CHUNK_INPUT_SLACK more) into h->raw_size bytes of records at out
 * (TRACEFILE_CHUNK_RAW_MAX + CHUNK_SLACK bytes, 8-aligned).  NULL, or what
 * is wrong.
 */
const char *chunk_decode(struct chunk_decoder *d, const struct tracefile_chunk *h,
			 unsigned char *stored, unsigned char *out);

/* What chunk_decode_prefix() kept of a chunk cut short. */
struct chunk_prefix {
	uint32_t records;		/* whole records decoded */
	uint32_t raw_size;		/* their bytes at out */
	uint32_t stored_used;		/* compact: stored bytes they take; zstd: the bytes given */
};

/*
 * The first got bytes of a chunk's stored bytes (fewer than h->stored_size:
 * the file was cut), with CHUNK_INPUT_SLACK more room after them: the whole
 * records they hold, into out as chunk_decode.  Compact bytes decode up to
 * the first record the cut reaches; a zstd frame is decompressed as a
 * stream, as far as its whole blocks go.
 */
void chunk_decode_prefix(struct chunk_decoder *d, const struct tracefile_chunk *h,
			 unsigned char *stored, size_t got, unsigned char *out,
			 struct chunk_prefix *kept);

#endif /* GPUPROBE_TRACEFILE_CHUNK_H */
