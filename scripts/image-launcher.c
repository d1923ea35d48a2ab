/*
 * The container image's /usr/local/bin/pushdouble (docs/containers.md "Size"), compiled by
 * scripts/build-image.sh. The build appends the stripped pushdouble binary to this program as
 * one gzip member (made by `gzip -9 -n`) and a trailer:
 *
 *     launcher ELF | gzip member | member length (8 bytes, little-endian) | "PDGZEXE1"
 *
 * At start the launcher inflates the member into an anonymous memory file (memfd_create),
 * checks its CRC-32 and length, seals it and executes it (fexecve) with the same arguments and
 * environment. The executed binary sees /proc/self/exe as "/memfd:pushdouble (deleted)", so the
 * launcher names its own path in PUSHDOUBLE_EXECUTABLE (the binary's `OwnExecutable` reads it).
 *
 * The decoder is our own (RFC 1951 DEFLATE inside an RFC 1952 gzip member): no zlib. It
 * writes straight into the memory file, sized from the member's ISIZE, so back-references need
 * no separate window. Everything is bounds-checked; any damage ends in a message and exit 127.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define TRAILER_SIZE 16
#define MAX_BINARY_BYTES (1u << 30)   /* a damaged ISIZE cannot make it claim more memory */
#define FAST_BITS 10

static void fail(const char *what, int with_errno) {
    if (with_errno) fprintf(stderr, "pushdouble launcher: %s: %s\n", what, strerror(errno));
    else fprintf(stderr, "pushdouble launcher: %s\n", what);
    exit(127);
}

/* ---- bit input (LSB first, RFC 1951 §3.1.1) ---- */

typedef struct {
    const uint8_t *p, *end;
    uint64_t buf;
    int count;
} Bits;

static void refill(Bits *b) {
    while (b->count <= 56 && b->p < b->end) { b->buf |= (uint64_t)*b->p++ << b->count; b->count += 8; }
}

static unsigned take(Bits *b, int n) {   /* n <= 32 */
    if (b->count < n) { refill(b); if (b->count < n) fail("the packed binary is truncated", 0); }
    unsigned v = (unsigned)(b->buf & ((1ull << n) - 1));
    b->buf >>= n; b->count -= n;
    return v;
}

/* ---- canonical Huffman codes (RFC 1951 §3.2.2) ---- */

typedef struct {
    uint16_t count[16];          /* codes of each length */
    uint16_t symbol[288];        /* symbols in canonical order */
    uint16_t fast[1 << FAST_BITS]; /* (symbol << 4) | length for codes of <= FAST_BITS, else 0 */
} Huffman;

static void build(Huffman *h, const uint8_t *lengths, int n) {
    uint16_t offsets[16];
    memset(h->count, 0, sizeof h->count);
    memset(h->fast, 0, sizeof h->fast);
    for (int s = 0; s < n; s++) h->count[lengths[s]]++;
    h->count[0] = 0;
    int left = 1;
    for (int len = 1; len < 16; len++) {
        left = (left << 1) - h->count[len];
        if (left < 0) fail("the packed binary has an over-subscribed Huffman code", 0);
    }
    offsets[1] = 0;
    for (int len = 1; len < 15; len++) offsets[len + 1] = offsets[len] + h->count[len];
    for (int s = 0; s < n; s++) if (lengths[s]) h->symbol[offsets[lengths[s]]++] = (uint16_t)s;
    /* The fast table: each short code, bit-reversed (codes are sent MSB first), at every
       index whose low `len` bits are it. */
    unsigned code = 0, index = 0;
    for (int len = 1; len <= FAST_BITS; len++) {
        for (unsigned i = 0; i < h->count[len]; i++, code++, index++) {
            unsigned reversed = 0;
            for (int k = 0; k < len; k++) reversed |= ((code >> k) & 1u) << (len - 1 - k);
            for (unsigned j = reversed; j < (1u << FAST_BITS); j += 1u << len)
                h->fast[j] = (uint16_t)((h->symbol[index] << 4) | len);
        }
        code <<= 1;
    }
}

static int decode(Bits *b, const Huffman *h) {
    if (b->count < 15) refill(b);
    uint16_t entry = h->fast[b->buf & ((1u << FAST_BITS) - 1)];
    if (entry && (entry & 15) <= b->count) { b->buf >>= entry & 15; b->count -= entry & 15; return entry >> 4; }
    int code = 0, first = 0, index = 0;   /* bit by bit, as in the RFC's canonical order */
    for (int len = 1; len < 16; len++) {
        code |= (int)take(b, 1);
        int count = h->count[len];
        if (code - count < first) return h->symbol[index + (code - first)];
        index += count; first += count;
        first <<= 1; code <<= 1;
    }
    fail("the packed binary has an invalid Huffman code", 0);
    return -1;
}

/* ---- DEFLATE blocks (RFC 1951 §3.2.3–3.2.7) ---- */

static const uint16_t length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                         35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                         3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                           257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                           8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                           7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

typedef struct { uint8_t *start, *at, *end; } Output;

static void codes(Bits *b, Output *o, const Huffman *lit, const Huffman *dist) {
    for (;;) {
        int sym = decode(b, lit);
        if (sym < 256) {
            if (o->at == o->end) fail("the packed binary inflates past its recorded size", 0);
            *o->at++ = (uint8_t)sym;
        } else if (sym == 256) {
            return;
        } else {
            sym -= 257;
            if (sym >= 29) fail("the packed binary has an invalid length code", 0);
            size_t len = length_base[sym] + take(b, length_extra[sym]);
            int d = decode(b, dist);
            if (d >= 30) fail("the packed binary has an invalid distance code", 0);
            size_t distance = distance_base[d] + take(b, distance_extra[d]);
            if (distance > (size_t)(o->at - o->start)) fail("the packed binary refers before its start", 0);
            if (len > (size_t)(o->end - o->at)) fail("the packed binary inflates past its recorded size", 0);
            uint8_t *from = o->at - distance;
            if (distance >= len) memcpy(o->at, from, len);
            else for (size_t i = 0; i < len; i++) o->at[i] = from[i];   /* overlapping: a run */
            o->at += len;
        }
    }
}

static void stored(Bits *b, Output *o) {
    take(b, b->count & 7);                 /* to the byte boundary */
    unsigned len = take(b, 16), nlen = take(b, 16);
    if ((len ^ 0xffffu) != nlen) fail("the packed binary has a damaged stored block", 0);
    b->p -= b->count / 8; b->buf = 0; b->count = 0;   /* give back whole buffered bytes */
    if (len > (size_t)(b->end - b->p)) fail("the packed binary is truncated", 0);
    if (len > (size_t)(o->end - o->at)) fail("the packed binary inflates past its recorded size", 0);
    memcpy(o->at, b->p, len);
    o->at += len; b->p += len;
}

static void fixed(Bits *b, Output *o) {
    static Huffman lit, dist;
    static int built;
    if (!built) {
        uint8_t lengths[288];
        for (int s = 0; s < 144; s++) lengths[s] = 8;
        for (int s = 144; s < 256; s++) lengths[s] = 9;
        for (int s = 256; s < 280; s++) lengths[s] = 7;
        for (int s = 280; s < 288; s++) lengths[s] = 8;
        build(&lit, lengths, 288);
        for (int s = 0; s < 30; s++) lengths[s] = 5;
        build(&dist, lengths, 30);
        built = 1;
    }
    codes(b, o, &lit, &dist);
}

static void dynamic(Bits *b, Output *o) {
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    static Huffman lit, dist, lencode;
    uint8_t lengths[320];
    int nlen = (int)take(b, 5) + 257, ndist = (int)take(b, 5) + 1, ncode = (int)take(b, 4) + 4;
    if (nlen > 286 || ndist > 30) fail("the packed binary has a bad dynamic block header", 0);
    memset(lengths, 0, 19);
    for (int i = 0; i < ncode; i++) lengths[order[i]] = (uint8_t)take(b, 3);
    build(&lencode, lengths, 19);
    for (int i = 0; i < nlen + ndist;) {
        int sym = decode(b, &lencode);
        if (sym < 16) { lengths[i++] = (uint8_t)sym; continue; }
        uint8_t value = 0;
        int repeat;
        if (sym == 16) {
            if (i == 0) fail("the packed binary repeats a code length before the first", 0);
            value = lengths[i - 1];
            repeat = 3 + (int)take(b, 2);
        } else if (sym == 17) repeat = 3 + (int)take(b, 3);
        else repeat = 11 + (int)take(b, 7);
        if (i + repeat > nlen + ndist) fail("the packed binary has too many code lengths", 0);
        while (repeat--) lengths[i++] = value;
    }
    if (lengths[256] == 0) fail("the packed binary has no end-of-block code", 0);
    build(&lit, lengths, nlen);
    build(&dist, lengths + nlen, ndist);
    codes(b, o, &lit, &dist);
}

/* ---- gzip member (RFC 1952 §2.3) ---- */

static uint32_t le32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* CRC-32 (RFC 1952 §8), eight bytes at a time ("slicing-by-8"): table[k][b] is the CRC of
   byte b followed by k zero bytes. */
static uint32_t crc32_of(const uint8_t *p, size_t n) {
    static uint32_t table[8][256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int i = 0; i < 256; i++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
    uint32_t c = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = c ^ le32(p), hi = le32(p + 4);
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
            table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^ table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
    }
    while (n--) c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* The recorded size of the member `in` (its ISIZE), bounded. */
static size_t gzip_size(const uint8_t *in, size_t n) {
    if (n < 18 || in[0] != 0x1f || in[1] != 0x8b || in[2] != 8) fail("the packed binary is not a gzip member", 0);
    uint32_t size = le32(in + n - 4);
    if (size == 0 || size > MAX_BINARY_BYTES) fail("the packed binary's recorded size is out of bounds", 0);
    return size;
}

static void gunzip(const uint8_t *in, size_t n, Output *o) {
    uint8_t flags = in[3];
    if (flags & 0xe0) fail("the packed binary's gzip header has reserved flags", 0);
    const uint8_t *p = in + 10, *end = in + n;
    if (flags & 4) { if (end - p < 2) fail("the packed binary is truncated", 0); p += 2 + (p[0] | p[1] << 8); }
    if (flags & 8) { while (p < end && *p) p++; p++; }
    if (flags & 16) { while (p < end && *p) p++; p++; }
    if (flags & 2) p += 2;
    if (p >= end) fail("the packed binary is truncated", 0);
    Bits b = {p, end, 0, 0};
    int last;
    do {
        last = (int)take(&b, 1);
        switch (take(&b, 2)) {
        case 0: stored(&b, o); break;
        case 1: fixed(&b, o); break;
        case 2: dynamic(&b, o); break;
        default: fail("the packed binary has a reserved block type", 0);
        }
    } while (!last);
    take(&b, b.count & 7);
    b.p -= b.count / 8;
    if (end - b.p != 8) fail("the packed binary has a damaged gzip trailer or trailing data", 0);
    if (o->at != o->end || le32(b.p + 4) != (uint32_t)(o->end - o->start)) fail("the packed binary's length does not match", 0);
    if (le32(b.p) != crc32_of(o->start, (size_t)(o->end - o->start))) fail("the packed binary's CRC-32 does not match", 0);
}

/* ---- the launch ---- */

int main(int argc, char **argv) {
    (void)argc;
    int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (self < 0) fail("cannot open /proc/self/exe", 1);
    struct stat st;
    if (fstat(self, &st) != 0) fail("cannot stat /proc/self/exe", 1);
    size_t size = (size_t)st.st_size;
    const uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, self, 0);
    if (file == MAP_FAILED) fail("cannot map /proc/self/exe", 1);
    close(self);
    if (size < TRAILER_SIZE || memcmp(file + size - 8, "PDGZEXE1", 8) != 0)
        fail("no packed pushdouble binary in this file (scripts/build-image.sh makes one)", 0);
    uint64_t length = 0;
    for (int i = 7; i >= 0; i--) length = length << 8 | file[size - TRAILER_SIZE + i];
    if (length == 0 || length > size - TRAILER_SIZE) fail("the packed binary's trailer is damaged", 0);
    const uint8_t *member = file + size - TRAILER_SIZE - length;
    size_t binary_size = gzip_size(member, (size_t)length);

    int binary = memfd_create("pushdouble", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (binary < 0) fail("memfd_create", 1);
    if (ftruncate(binary, (off_t)binary_size) != 0) fail("cannot size the memory file", 1);
    uint8_t *out = mmap(NULL, binary_size, PROT_READ | PROT_WRITE, MAP_SHARED, binary, 0);
    if (out == MAP_FAILED) fail("cannot map the memory file", 1);
    Output o = {out, out, out + binary_size};
    gunzip(member, (size_t)length, &o);
    munmap(out, binary_size);
    munmap((void *)file, size);
    if (fcntl(binary, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        fail("cannot seal the memory file", 1);

    char *own = realpath("/proc/self/exe", NULL);
    if (!own) fail("cannot resolve /proc/self/exe", 1);
    if (setenv("PUSHDOUBLE_EXECUTABLE", own, 1) != 0) fail("setenv", 1);
    free(own);
    fexecve(binary, argv, environ);
    fail("fexecve", 1);
    return 127;
}
