/* vf_pcap_read: pcap (both byte orders, micro- and nanoseconds) and pcapng
 * (sections of either byte order, interface resolutions, enhanced and
 * simple packet blocks, blocks it skips) read right; truncated, oversized
 * and malformed files refused with a message, never read out of bounds
 * (every prefix of a good file is tried; ASan watches in CI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vf_pcap_read.h"

static const struct vf_pcap_limits LIM = { 1u << 20, 1000, 2048 };

struct buf {
	uint8_t b[8192];
	size_t n;
	int be;
};

static void put(struct buf *w, const void *p, size_t n)
{
	assert_true(w->n + n <= sizeof(w->b));
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static void u32(struct buf *w, uint32_t v)
{
	if (w->be)
		v = __builtin_bswap32(v);
	put(w, &v, 4);
}

static void u16(struct buf *w, uint16_t v)
{
	if (w->be)
		v = __builtin_bswap16(v);
	put(w, &v, 2);
}

static void frame(struct buf *w, uint32_t len, uint8_t tag)
{
	for (uint32_t i = 0; i < len; i++) {
		uint8_t c = (uint8_t)(tag + i);
		put(w, &c, 1);
	}
}

static void pcap_file(struct buf *w, int be, int nano, uint32_t link)
{
	memset(w, 0, sizeof(*w));
	w->be = be;
	u32(w, nano ? 0xa1b23c4d : 0xa1b2c3d4);
	u16(w, 2);
	u16(w, 4);
	u32(w, 0);
	u32(w, 0);
	u32(w, 65535);
	u32(w, link);
}

static void pcap_rec(struct buf *w, uint32_t sec, uint32_t frac, uint32_t len, uint8_t tag)
{
	u32(w, sec);
	u32(w, frac);
	u32(w, len);
	u32(w, len);
	frame(w, len, tag);
}

static int parse(const struct buf *w, struct vf_pcap *p, char *err)
{
	err[0] = '\0';
	return vf_pcap_parse(w->b, w->n, &LIM, p, err, 256);
}

static void check_frame(const struct buf *w, const struct vf_pcap *p, uint32_t i, uint32_t len,
			uint8_t tag, uint64_t ts_ns)
{
	assert_true(i < p->n);
	assert_int_equal(p->frames[i].len, len);
	assert_int_equal(p->frames[i].ts_ns, ts_ns);
	assert_int_equal(w->b[p->frames[i].off], tag);
	assert_int_equal(w->b[p->frames[i].off + len - 1], (uint8_t)(tag + len - 1));
}

/* Every prefix but the whole: parsed or refused with a message. */
static void prefixes(const struct buf *w)
{
	for (size_t n = 0; n < w->n; n++) {
		struct vf_pcap p;
		char err[256] = "";
		int ret = vf_pcap_parse(w->b, n, &LIM, &p, err, sizeof(err));

		if (ret)
			assert_true(err[0] != '\0');
		else
			free(p.frames);
	}
}

static void test_pcap(void **state)
{
	struct buf w;
	struct vf_pcap p;
	char err[256];

	(void)state;
	for (int be = 0; be < 2; be++) {
		pcap_file(&w, be, 0, 1);
		pcap_rec(&w, 100, 500000, 60, 1);
		pcap_rec(&w, 100, 750000, 1514, 2);
		pcap_rec(&w, 101, 0, 64, 3);
		pcap_rec(&w, 100, 0, 64, 4);	/* back in time: held still */
		assert_int_equal(parse(&w, &p, err), 0);
		assert_int_equal(p.n, 4);
		assert_int_equal(p.ng, 0);
		check_frame(&w, &p, 0, 60, 1, 0);
		check_frame(&w, &p, 1, 1514, 2, 250000000);
		check_frame(&w, &p, 2, 64, 3, 500000000);
		check_frame(&w, &p, 3, 64, 4, 500000000);
		assert_int_equal(p.bytes, 60 + 1514 + 64 + 64);
		free(p.frames);
		prefixes(&w);
	}
	/* nanoseconds */
	pcap_file(&w, 1, 1, 1);
	pcap_rec(&w, 5, 7, 64, 9);
	pcap_rec(&w, 5, 1007, 64, 9);
	assert_int_equal(parse(&w, &p, err), 0);
	check_frame(&w, &p, 1, 64, 9, 1000);
	free(p.frames);
}

static void refused(const struct buf *w, const char *why)
{
	struct vf_pcap p;
	char err[256];

	assert_int_equal(parse(w, &p, err), -1);
	if (!strstr(err, why))
		fail_msg("expected '%s' in '%s'", why, err);
	assert_null(p.frames);
}

static void test_pcap_bad(void **state)
{
	struct buf w;

	(void)state;
	pcap_file(&w, 0, 0, 1);
	refused(&w, "no frames");
	pcap_file(&w, 0, 0, 113);		/* Linux cooked capture */
	pcap_rec(&w, 0, 0, 64, 0);
	refused(&w, "link type 113");
	pcap_file(&w, 0, 0, 1);
	pcap_rec(&w, 0, 0, 2049, 0);		/* over one mbuf */
	refused(&w, "at most 2048");
	pcap_file(&w, 0, 0, 1);
	pcap_rec(&w, 0, 0, 10, 0);
	refused(&w, "shorter than an Ethernet header");
	pcap_file(&w, 0, 0, 1);
	pcap_rec(&w, 0, 1000000, 64, 0);	/* a microsecond field of a second */
	refused(&w, "out of range");
	pcap_file(&w, 0, 0, 1);
	pcap_rec(&w, 0, 0, 64, 0);
	w.n -= 1;				/* the last byte cut */
	refused(&w, "left in the file");
	pcap_file(&w, 0, 0, 1);
	w.b[4] = 3;				/* version 3.4 */
	pcap_rec(&w, 0, 0, 64, 0);
	refused(&w, "version");
	memset(&w, 0, sizeof(w));
	u32(&w, 0x12345678);
	u32(&w, 0);
	refused(&w, "not a pcap or pcapng");
	w.n = 2;
	refused(&w, "not a capture");
	/* more frames than the limit */
	pcap_file(&w, 0, 0, 1);
	for (int i = 0; i < 101; i++)
		pcap_rec(&w, 0, 0, 60, 0);
	{
		struct vf_pcap_limits few = { 1u << 20, 100, 2048 };
		struct vf_pcap p;
		char err[256];

		assert_int_equal(vf_pcap_parse(w.b, w.n, &few, &p, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "more than 100 frames"));
	}
}

/* pcapng blocks */
static void ng_shb(struct buf *w)
{
	u32(w, 0x0A0D0D0A);
	u32(w, 28);
	u32(w, 0x1A2B3C4D);
	u16(w, 1);
	u16(w, 0);
	u32(w, 0xffffffff);
	u32(w, 0xffffffff);
	u32(w, 28);
}

static void ng_idb(struct buf *w, uint16_t link, int tsresol)
{
	uint32_t len = 20 + (tsresol >= 0 ? 8 + 4 : 0);

	u32(w, 1);
	u32(w, len);
	u16(w, link);
	u16(w, 0);
	u32(w, 0);
	if (tsresol >= 0) {
		uint8_t v[4] = { (uint8_t)tsresol, 0, 0, 0 };
		u16(w, 9);
		u16(w, 1);
		put(w, v, 4);
		u16(w, 0);			/* opt_endofopt */
		u16(w, 0);
	}
	u32(w, len);
}

static void ng_epb(struct buf *w, uint32_t ifid, uint64_t ts, uint32_t len, uint8_t tag)
{
	uint32_t pad = (4 - len % 4) % 4, blen = 32 + len + pad;
	static const uint8_t zero[4];

	u32(w, 6);
	u32(w, blen);
	u32(w, ifid);
	u32(w, (uint32_t)(ts >> 32));
	u32(w, (uint32_t)ts);
	u32(w, len);
	u32(w, len);
	frame(w, len, tag);
	put(w, zero, pad);
	u32(w, blen);
}

static void test_pcapng(void **state)
{
	struct buf w;
	struct vf_pcap p;
	char err[256];

	(void)state;
	for (int be = 0; be < 2; be++) {
		memset(&w, 0, sizeof(w));
		w.be = be;
		ng_shb(&w);
		ng_idb(&w, 1, -1);		/* microseconds */
		ng_idb(&w, 1, 9);		/* nanoseconds */
		ng_epb(&w, 0, 1000000, 61, 5);	/* 1 s */
		/* a block it skips (name resolution) */
		u32(&w, 4);
		u32(&w, 16);
		u32(&w, 0);
		u32(&w, 16);
		ng_epb(&w, 1, 1500000000ull, 64, 6);	/* 1.5 s in ns */
		/* a simple packet block: interface 0, the last time */
		u32(&w, 3);
		u32(&w, 16 + 64);
		u32(&w, 64);
		frame(&w, 64, 7);
		u32(&w, 16 + 64);
		assert_int_equal(parse(&w, &p, err), 0);
		assert_int_equal(p.ng, 1);
		assert_int_equal(p.n, 3);
		check_frame(&w, &p, 0, 61, 5, 0);
		check_frame(&w, &p, 1, 64, 6, 500000000);
		check_frame(&w, &p, 2, 64, 7, 500000000);
		/* the interface of each (replay --split iface) */
		assert_int_equal(p.frames[0].iface, 0);
		assert_int_equal(p.frames[1].iface, 1);
		assert_int_equal(p.frames[2].iface, 0);
		free(p.frames);
		prefixes(&w);
	}
	/* a second section in the other byte order, 2^-10 s resolution */
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 1, -1);
	ng_epb(&w, 0, 0, 64, 1);
	w.be = 1;
	ng_shb(&w);
	ng_idb(&w, 1, 0x80 | 10);
	ng_epb(&w, 0, 1024, 64, 2);		/* 1 s */
	assert_int_equal(parse(&w, &p, err), 0);
	assert_int_equal(p.n, 2);
	check_frame(&w, &p, 1, 64, 2, 1000000000);
	free(p.frames);
}

static void test_pcapng_bad(void **state)
{
	struct buf w;

	(void)state;
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_epb(&w, 0, 0, 64, 1);
	refused(&w, "names interface 0 of 0");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 101, -1);
	ng_epb(&w, 0, 0, 64, 1);
	refused(&w, "link type 101");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 1, -1);
	ng_epb(&w, 0, 0, 64, 1);
	w.b[w.n - 4] ^= 4;			/* trailing length */
	refused(&w, "trailing length differs");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 1, -1);
	ng_epb(&w, 0, 0, 64, 1);
	w.b[28 + 20 + 4] = 0x7a;		/* EPB length: 0x7a + ... not a multiple of 4 */
	refused(&w, "block at byte");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 1, -1);
	ng_epb(&w, 0, 0, 64, 1);
	w.b[28 + 20 + 20] = 200;		/* captured length past the block */
	refused(&w, "in the block");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	w.b[8] = 0x11;				/* byte-order magic */
	refused(&w, "byte-order magic");
	memset(&w, 0, sizeof(w));
	ng_shb(&w);
	ng_idb(&w, 1, 30);			/* 10^-30 s */
	ng_epb(&w, 0, 5, 64, 1);
	refused(&w, "resolution");
}

static void test_load(void **state)
{
	char path[] = "/tmp/vf-pcap-XXXXXX";
	int fd = mkstemp(path);
	struct buf w;
	struct vf_pcap p;
	char err[256];
	struct vf_pcap_limits small = { 100, 1000, 2048 };

	(void)state;
	assert_true(fd >= 0);
	pcap_file(&w, 0, 0, 1);
	pcap_rec(&w, 1, 0, 64, 1);
	pcap_rec(&w, 2, 0, 64, 2);
	assert_int_equal(write(fd, w.b, w.n), (ssize_t)w.n);
	close(fd);
	assert_int_equal(vf_pcap_load(path, &LIM, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.size, w.n);
	assert_int_equal(p.buf[p.frames[1].off], 2);
	assert_int_equal(p.frames[1].ts_ns, 1000000000);
	vf_pcap_free(&p);
	assert_int_equal(vf_pcap_load(path, &small, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "more than the 100"));
	unlink(path);
	assert_int_equal(vf_pcap_load(path, &LIM, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_int_equal(vf_pcap_load("/tmp", &LIM, &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcap),
		cmocka_unit_test(test_pcap_bad),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_pcapng_bad),
		cmocka_unit_test(test_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
