/* Offloads against real DPDK mbufs (EAL without hugepages): virtio-net
 * headers as guest input (bad csum_start/offset, gso_size 0, unknown
 * gso_type, not negotiated, TSO over 64 KiB), the software checksum
 * against a reference sum written here, software TSO of IPv4 and IPv6 TCP
 * frames field by field, and the transmit wrapper's accounting when the
 * ring takes only part of the segments (no mbuf lost or freed twice). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <rte_mbuf.h>

#include "common/vnet_ol.h"
#include "vf_offload.h"
#include "vf_runtime.h"

static struct rte_mempool *mp;

static int setup(void **state)
{
	struct vf_runtime_opts o = { .tool = "test_offload", .lcores = "0", .main_lcore = -1,
				     .eal_args = "", .mem_mb = 256 };

	if (vf_runtime_start(&o))
		return -1;
	mp = rte_pktmbuf_pool_create("ol", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return mp ? 0 : -1;
}

static int teardown(void **state)
{
	rte_mempool_free(mp);
	vf_runtime_stop();
	return 0;
}

/* ---- reference arithmetic (RFC 1071, big-endian words) ---- */

static uint32_t ref_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t ref_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t ref_pseudo(const uint8_t *ip, bool v6, uint32_t l4len, uint8_t proto)
{
	uint8_t ph[40];
	uint32_t s;

	if (v6) {
		s = ref_sum(ip + 8, 32, 0);
		memset(ph, 0, 8);
		ph[0] = (uint8_t)(l4len >> 24);
		ph[1] = (uint8_t)(l4len >> 16);
		ph[2] = (uint8_t)(l4len >> 8);
		ph[3] = (uint8_t)l4len;
		ph[7] = proto;
		return ref_sum(ph, 8, s);
	}
	s = ref_sum(ip + 12, 8, 0);
	ph[0] = 0;
	ph[1] = proto;
	ph[2] = (uint8_t)(l4len >> 8);
	ph[3] = (uint8_t)l4len;
	return ref_sum(ph, 4, s);
}

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

#define TCP_OPT 12	/* TCP header with 12 option bytes: l4_len 32 */

/* Ethernet + IPv4 (id 0x1234) or IPv6 + TCP (or UDP) + payload pattern.
 * The L4 checksum field holds the pseudo-header sum, as a sender asking
 * for the offload leaves it.  Returns the frame length. */
static uint32_t build(uint8_t *f, bool v6, bool udp, uint32_t payload, uint8_t tflags)
{
	uint32_t l3 = v6 ? 40 : 20, l4 = udp ? 8 : 20 + TCP_OPT, len = 14 + l3 + l4 + payload;
	uint8_t *ip = f + 14, *th = ip + l3;
	uint8_t proto = udp ? 17 : 6;

	memset(f, 0, 14 + l3 + l4);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	wr16(f + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		ip[0] = 0x60;
		wr16(ip + 4, (uint16_t)(l4 + payload));
		ip[6] = proto;
		ip[7] = 64;
		for (int i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0x20 + i);
	} else {
		ip[0] = 0x45;
		wr16(ip + 2, (uint16_t)(l3 + l4 + payload));
		wr16(ip + 4, 0x1234);
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, "\xc6\x12\0\x01\xc6\x12\0\x02", 8);
		wr16(ip + 10, (uint16_t)~ref_fold(ref_sum(ip, 20, 0)));
	}
	wr16(th, 40000);
	wr16(th + 2, 5201);
	if (udp) {
		wr16(th + 4, (uint16_t)(l4 + payload));
	} else {
		memcpy(th + 4, "\xff\xff\xf0\x00", 4);	/* seq wraps during the frame */
		th[12] = (uint8_t)(((20 + TCP_OPT) / 4) << 4);
		th[13] = tflags;
		wr16(th + 14, 512);
		for (int i = 0; i < TCP_OPT; i++)
			th[20 + i] = 1;		/* NOPs */
	}
	for (uint32_t i = 0; i < payload; i++)
		f[14 + l3 + l4 + i] = (uint8_t)(i * 7 + (i >> 8));
	wr16(th + (udp ? 6 : 16), ref_fold(ref_pseudo(ip, v6, l4 + payload, proto)));
	return len;
}

/* The frame as an mbuf chain of segments of at most seg bytes. */
static struct rte_mbuf *to_mbuf(const uint8_t *f, uint32_t len, uint32_t seg)
{
	struct rte_mbuf *head = NULL, *last = NULL;

	for (uint32_t o = 0; o < len; o += seg) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint32_t l = len - o < seg ? len - o : seg;

		assert_non_null(m);
		memcpy(rte_pktmbuf_append(m, (uint16_t)l), f + o, l);
		if (!head) {
			head = last = m;
		} else {
			last->next = m;
			last = m;
			head->nb_segs++;
			head->pkt_len += l;
		}
	}
	return head;
}

static void flat(const struct rte_mbuf *m, uint8_t *out)
{
	const void *p = rte_pktmbuf_read(m, 0, m->pkt_len, out);

	assert_non_null(p);
	if (p != out)
		memcpy(out, p, m->pkt_len);
}

static unsigned int in_use(void)
{
	return rte_mempool_in_use_count(mp);
}

static uint8_t fr[70000], got[70000];

/* ---- headers as guest input ---- */

static struct virtio_net_hdr hdr(uint8_t flags, uint8_t gt, uint16_t gso, uint16_t start,
				 uint16_t off)
{
	struct virtio_net_hdr h = { .flags = flags, .gso_type = gt, .gso_size = gso,
				    .csum_start = start, .csum_offset = off };
	return h;
}

static int parse(uint32_t len, uint32_t seg, struct virtio_net_hdr h, uint32_t allowed,
		 struct rte_mbuf **keep)
{
	struct rte_mbuf *m = to_mbuf(fr, len, seg);
	int e = vnet_ol_hdr_to_mbuf(&h, allowed, false, m);

	if (keep)
		*keep = m;
	else
		rte_pktmbuf_free(m);
	return e;
}

#define ALL (VF_OL_CAP_CSUM | VF_OL_CAP_TSO4 | VF_OL_CAP_TSO6)

static void test_bad_headers(void **state)
{
	unsigned int base = in_use();
	uint32_t len = build(fr, false, false, 4000, 0x18);
	const uint16_t cs = 14 + 20;		/* csum_start of TCP/IPv4 */

	/* csum_start/offset: the 2-byte field must end inside the frame */
	assert_int_equal(parse(len, 2048, hdr(1, 0, 0, (uint16_t)(len - 1), 0), ALL, NULL),
			 VNET_OL_BAD_CSUM);
	assert_int_equal(parse(len, 2048, hdr(1, 0, 0, cs, (uint16_t)(len - cs - 1)), ALL, NULL),
			 VNET_OL_BAD_CSUM);
	assert_int_equal(parse(len, 2048, hdr(1, 0, 0, 0xffff, 0xffff), ALL, NULL),
			 VNET_OL_BAD_CSUM);
	/* the last two bytes exactly: taken (finished in software) */
	assert_int_equal(parse(len, 2048, hdr(1, 0, 0, cs, (uint16_t)(len - cs - 2)), ALL, NULL),
			 VNET_OL_OK);
	/* gso_size 0, and one so small the frame makes too many segments */
	assert_int_equal(parse(len, 2048, hdr(1, 1, 0, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_SIZE);
	assert_int_equal(parse(len, 2048, hdr(1, 1, 1, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_SIZE);
	/* gso_type: UDP (UFO), UDP_L4, 2, 0x7f, ECN alone */
	assert_int_equal(parse(len, 2048, hdr(1, 3, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_TYPE);
	assert_int_equal(parse(len, 2048, hdr(1, 5, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_TYPE);
	assert_int_equal(parse(len, 2048, hdr(1, 2, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_TYPE);
	assert_int_equal(parse(len, 2048, hdr(1, 0x7f, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_TYPE);
	assert_int_equal(parse(len, 2048, hdr(1, 0x80, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_GSO_TYPE);
	/* not negotiated: TSO4 without HOST_TSO4, ECN without HOST_ECN,
	 * NEEDS_CSUM without CSUM */
	assert_int_equal(parse(len, 2048, hdr(1, 1, 1400, cs, 16), VF_OL_CAP_CSUM | VF_OL_CAP_TSO6, NULL),
			 VNET_OL_NOT_NEGOTIATED);
	assert_int_equal(parse(len, 2048, hdr(1, 0x81, 1400, cs, 16), ALL, NULL), VNET_OL_NOT_NEGOTIATED);
	assert_int_equal(parse(len, 2048, hdr(1, 0, 0, cs, 16), 0, NULL), VNET_OL_NOT_NEGOTIATED);
	/* GSO without NEEDS_CSUM; TCPV6 on an IPv4 frame; csum_start not at TCP */
	assert_int_equal(parse(len, 2048, hdr(0, 1, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_CSUM);
	assert_int_equal(parse(len, 2048, hdr(1, 4, 1400, cs, 16), ALL, NULL), VNET_OL_BAD_HEADERS);
	assert_int_equal(parse(len, 2048, hdr(1, 1, 1400, cs + 4, 12), ALL, NULL), VNET_OL_BAD_HEADERS);
	/* TSO frame over 64 KiB from the IP header on (ours is 65536) */
	len = build(fr, false, false, 65536 - 20 - 32, 0x18);
	assert_int_equal(parse(len, 2048, hdr(1, 1, 1448, cs, 16), ALL, NULL), VNET_OL_TOO_BIG);
	len = build(fr, false, false, 65535 - 20 - 32, 0x18);
	{
		struct rte_mbuf *m;

		assert_int_equal(parse(len, 2048, hdr(1, 1, 1448, cs, 16), ALL, &m), VNET_OL_OK);
		assert_true(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG);
		assert_true(m->ol_flags & RTE_MBUF_F_TX_IPV4);
		assert_int_equal(m->l2_len, 14);
		assert_int_equal(m->l3_len, 20);
		assert_int_equal(m->l4_len, 32);
		assert_int_equal(m->tso_segsz, 1448);
		rte_pktmbuf_free(m);
	}
	/* a plain NEEDS_CSUM of TCP/IPv6 becomes an mbuf request */
	len = build(fr, true, false, 100, 0x18);
	{
		struct rte_mbuf *m;

		assert_int_equal(parse(len, 64, hdr(1, 0, 0, 14 + 40, 16), ALL, &m), VNET_OL_OK);
		assert_int_equal(m->ol_flags & (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_IPV6),
				 RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV6);
		assert_int_equal(m->l3_len, 40);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(in_use(), base);
}

/* The slow path of the rx fixup drops bad ones, keeps order, counts. */
static void test_rx_fixup(void **state)
{
	struct rte_mbuf *p[4];
	struct vnet_ol_rx_stats st = { 0 };
	uint32_t len = build(fr, false, false, 3000, 0x18);
	struct virtio_net_hdr hs[4] = {
		hdr(0, 0, 0, 0, 0), hdr(1, 1, 0, 34, 16), hdr(1, 1, 1448, 34, 16), hdr(1, 9, 1448, 34, 16),
	};
	unsigned int base = in_use();

	for (int i = 0; i < 4; i++) {
		p[i] = to_mbuf(fr, len, 2048);
		memcpy(rte_pktmbuf_mtod(p[i], uint8_t *) - 12, &hs[i], sizeof(hs[i]));
	}
	struct rte_mbuf *keep0 = p[0], *keep2 = p[2];

	assert_int_equal(vnet_ol_rx(p, 4, 12, ALL, false, &st), 2);
	assert_ptr_equal(p[0], keep0);
	assert_ptr_equal(p[1], keep2);
	assert_int_equal(st.tso, 1);
	assert_int_equal(st.err[VNET_OL_BAD_GSO_SIZE], 1);
	assert_int_equal(st.err[VNET_OL_BAD_GSO_TYPE], 1);
	rte_pktmbuf_free(p[0]);
	rte_pktmbuf_free(p[1]);
	assert_int_equal(in_use(), base);
}

/* ---- software checksum against the reference ---- */

static void check_csum(bool v6, bool udp, uint32_t payload, uint32_t seg)
{
	uint32_t len = build(fr, v6, udp, payload, 0x18), l3 = v6 ? 40 : 20;
	uint32_t l4len = len - 14 - l3;
	struct rte_mbuf *m = to_mbuf(fr, len, seg);
	uint8_t *ip = fr + 14;
	uint16_t want;

	/* reference: the field zero, the pseudo header, the segment */
	wr16(fr + 14 + l3 + (udp ? 6 : 16), 0);
	want = (uint16_t)~ref_fold(ref_sum(fr + 14 + l3, l4len,
					   ref_pseudo(ip, v6, l4len, udp ? 17 : 6)));
	if (want == 0)
		want = 0xffff;
	m->l2_len = 14;
	m->l3_len = l3;
	m->ol_flags = (udp ? RTE_MBUF_F_TX_UDP_CKSUM : RTE_MBUF_F_TX_TCP_CKSUM) |
		      (v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
	assert_int_equal(vf_ol_csum_finish(m), 0);
	assert_int_equal(m->ol_flags & RTE_MBUF_F_TX_L4_MASK, 0);
	flat(m, got);
	assert_int_equal(rd16(got + 14 + l3 + (udp ? 6 : 16)), want);
	/* and the rest of the frame is untouched */
	wr16(got + 14 + l3 + (udp ? 6 : 16), 0);
	assert_memory_equal(got, fr, len);
	rte_pktmbuf_free(m);
}

static void test_sw_csum(void **state)
{
	unsigned int base = in_use();

	/* one segment, odd lengths, odd segment splits (the sum crosses
	 * segment boundaries at odd offsets), IPv4/IPv6, TCP/UDP */
	check_csum(false, false, 1000, 2048);
	check_csum(false, false, 1001, 2048);
	check_csum(false, false, 3333, 77);
	check_csum(true, false, 2999, 1000);
	check_csum(false, true, 1471, 2048);
	check_csum(true, true, 9000, 333);
	check_csum(false, false, 0, 2048);
	/* a field beyond the frame is refused, nothing written */
	{
		struct rte_mbuf *m = to_mbuf(fr, 100, 2048);

		assert_int_equal(vf_ol_csum_fill(m, 90, 9), -EINVAL);
		assert_int_equal(vf_ol_csum_fill(m, 98, 0), 0);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(in_use(), base);
}

/* ---- software TSO, field by field ---- */

static void check_tso(bool v6, uint32_t payload, uint16_t mss, uint32_t seg, uint8_t tflags)
{
	uint32_t len = build(fr, v6, false, payload, tflags), l3 = v6 ? 40 : 20, l4 = 20 + TCP_OPT;
	uint32_t hl = 14 + l3 + l4, nseg = (payload + mss - 1) / mss;
	struct rte_mbuf *m = to_mbuf(fr, len, seg), *out[VF_OL_TSO_MAX_SEGS];
	int n;

	m->l2_len = 14;
	m->l3_len = l3;
	m->l4_len = l4;
	m->tso_segsz = mss;
	m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM |
		      (v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4);
	n = vf_ol_tso_segment(m, mp, out, VF_OL_TSO_MAX_SEGS);
	assert_int_equal(n, (int)nseg);
	for (int i = 0; i < n; i++) {
		uint32_t plen = payload - (uint32_t)i * mss < mss ? payload - (uint32_t)i * mss : mss;
		const uint8_t *ip = got + 14, *th = ip + l3;
		uint8_t fl = tflags;

		assert_int_equal(out[i]->pkt_len, hl + plen);
		assert_int_equal(out[i]->ol_flags & VF_OL_TX_MASK, 0);
		flat(out[i], got);
		/* headers as the original but the fields that must change */
		assert_memory_equal(got, fr, 14);
		if (v6) {
			assert_int_equal(rd16(ip + 4), l4 + plen);
			assert_memory_equal(ip + 6, fr + 14 + 6, 34);
		} else {
			assert_int_equal(rd16(ip + 2), l3 + l4 + plen);
			assert_int_equal(rd16(ip + 4), (uint16_t)(0x1234 + i));
			assert_memory_equal(ip + 6, fr + 14 + 6, 4);
			assert_memory_equal(ip + 12, fr + 14 + 12, 8);
			assert_int_equal(ref_fold(ref_sum(ip, 20, 0)), 0xffff);
		}
		assert_int_equal(rd32(th + 4), (uint32_t)(0xfffff000u + (uint32_t)i * mss));
		if (i + 1 < n)
			fl &= (uint8_t)~0x09;	/* FIN, PSH on the last only */
		if (i > 0)
			fl &= (uint8_t)~0x80;	/* CWR on the first only */
		assert_int_equal(th[13], fl);
		assert_memory_equal(th + 14, fr + 14 + l3 + 14, 2);	/* window */
		assert_memory_equal(th + 20, fr + 14 + l3 + 20, TCP_OPT);
		/* TCP checksum valid: the sum with the field is all ones */
		assert_int_equal(ref_fold(ref_sum(th, l4 + plen, ref_pseudo(ip, v6, l4 + plen, 6))),
				 0xffff);
		/* payload: the original's slice */
		assert_memory_equal(got + hl, fr + hl + (uint32_t)i * mss, plen);
		rte_pktmbuf_free(out[i]);
	}
	/* the original is left as it was */
	flat(m, got);
	assert_memory_equal(got, fr, len);
	rte_pktmbuf_free(m);
}

static void test_sw_tso(void **state)
{
	unsigned int base = in_use();

	check_tso(false, 64000, 1448, 2048, 0x19 | 0x80);	/* FIN PSH ACK CWR */
	check_tso(false, 10000, 1460, 1000, 0x18);		/* source chain of 1000 B */
	check_tso(false, 2897, 1448, 300, 0x18);		/* last segment 1 byte */
	check_tso(true, 60000, 1428, 2048, 0x19 | 0x80);
	check_tso(true, 5000, 1000, 999, 0x10);
	check_tso(false, 4000, 3000, 2048, 0x18);		/* segments over one mbuf */
	/* refused: not TCP, more segments than allowed, no payload room */
	{
		uint32_t len = build(fr, false, true, 3000, 0);
		struct rte_mbuf *m = to_mbuf(fr, len, 2048), *out[4];

		m->l2_len = 14;
		m->l3_len = 20;
		m->l4_len = 20;
		m->tso_segsz = 1000;
		m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
		assert_int_equal(vf_ol_tso_segment(m, mp, out, 4), -EINVAL);
		rte_pktmbuf_free(m);
		len = build(fr, false, false, 3000, 0);
		m = to_mbuf(fr, len, 2048);
		m->l2_len = 14;
		m->l3_len = 20;
		m->l4_len = 32;
		m->tso_segsz = 500;
		m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4;
		assert_int_equal(vf_ol_tso_segment(m, mp, out, 4), -ENOSPC);
		m->l4_len = 20;		/* not what the TCP header says */
		assert_int_equal(vf_ol_tso_segment(m, mp, out, 4), -EINVAL);
		rte_pktmbuf_free(m);
	}
	assert_int_equal(in_use(), base);
}

/* ---- the transmit wrapper ---- */

static struct rte_mbuf *sent[1024];
static unsigned int nsent, take;

/* A ring with room for `take` more packets. */
static uint16_t fake_tx(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = n < take ? n : (uint16_t)take;

	for (uint16_t i = 0; i < k; i++)
		sent[nsent++] = pkts[i];
	take -= k;
	return k;
}

static struct rte_mbuf *tso_pkt(uint32_t payload)
{
	uint32_t len = build(fr, false, false, payload, 0x18);
	struct rte_mbuf *m = to_mbuf(fr, len, 2048);

	m->l2_len = 14;
	m->l3_len = 20;
	m->l4_len = 32;
	m->tso_segsz = 1000;
	m->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4;
	return m;
}

static struct rte_mbuf *plain_pkt(void)
{
	return to_mbuf(fr, build(fr, false, false, 100, 0x18), 2048);
}

static void test_tx_wrapper(void **state)
{
	unsigned int base = in_use();
	struct vf_ol_txq ol = { .caps = 0 };
	struct rte_mbuf *p[4];
	uint16_t r;

	/* nothing asks: straight through */
	p[0] = plain_pkt();
	p[1] = plain_pkt();
	nsent = 0;
	take = 100;
	assert_int_equal(vf_ol_tx_burst(NULL, fake_tx, &ol, p, 2), 2);
	assert_int_equal(nsent, 2);
	assert_ptr_equal(sent[0], p[0]);
	rte_pktmbuf_free_bulk(sent, nsent);

	/* plain, TSO (5 segs), plain; the ring takes 3: the plain one and
	 * two segments go, the TSO frame counts as consumed, 3 segments
	 * dropped, the last plain one stays the caller's */
	p[0] = plain_pkt();
	p[1] = tso_pkt(5000);
	p[2] = plain_pkt();
	nsent = 0;
	take = 3;
	r = vf_ol_tx_burst(NULL, fake_tx, &ol, p, 3);
	assert_int_equal(r, 2);
	assert_int_equal(nsent, 3);
	assert_int_equal(ol.st.sw_tso, 1);
	assert_int_equal(ol.st.sw_tso_segs, 5);
	assert_int_equal(ol.st.sw_unsent, 3);
	rte_pktmbuf_free_bulk(sent, nsent);
	rte_pktmbuf_free(p[2]);

	/* the ring takes 1: the TSO frame is not consumed (its segments go
	 * back), the caller keeps it and the one after */
	p[0] = plain_pkt();
	p[1] = tso_pkt(5000);
	p[2] = plain_pkt();
	nsent = 0;
	take = 1;
	r = vf_ol_tx_burst(NULL, fake_tx, &ol, p, 3);
	assert_int_equal(r, 1);
	assert_true(p[1]->ol_flags & RTE_MBUF_F_TX_TCP_SEG);	/* unchanged */
	rte_pktmbuf_free_bulk(sent, nsent);
	rte_pktmbuf_free(p[1]);
	rte_pktmbuf_free(p[2]);

	/* the peer takes TSO4: the frame passes as it is */
	ol.caps = VF_OL_CAP_CSUM | VF_OL_CAP_TSO4;
	p[0] = tso_pkt(5000);
	nsent = 0;
	take = 10;
	assert_int_equal(vf_ol_tx_burst(NULL, fake_tx, &ol, p, 1), 1);
	assert_int_equal(nsent, 1);
	assert_ptr_equal(sent[0], p[0]);
	rte_pktmbuf_free(p[0]);

	/* a checksum request, peer without CSUM: filled, flags cleared;
	 * a bad one (l3_len beyond the frame) dropped and counted */
	ol.caps = 0;
	p[0] = plain_pkt();
	p[0]->l2_len = 14;
	p[0]->l3_len = 20;
	p[0]->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4;
	p[1] = plain_pkt();
	p[1]->l2_len = 14;
	p[1]->l3_len = 400;
	p[1]->ol_flags = RTE_MBUF_F_TX_TCP_CKSUM | RTE_MBUF_F_TX_IPV4;
	nsent = 0;
	take = 10;
	assert_int_equal(vf_ol_tx_burst(NULL, fake_tx, &ol, p, 2), 2);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0]->ol_flags & VF_OL_TX_MASK, 0);
	assert_int_equal(ol.st.sw_csum, 1);
	assert_int_equal(ol.st.sw_bad, 1);
	rte_pktmbuf_free(sent[0]);

	/* 40 TSO frames of 10 segments: more than one chunk of outputs */
	{
		struct rte_mbuf *q[40];

		for (int i = 0; i < 40; i++)
			q[i] = tso_pkt(10000);
		nsent = 0;
		take = 1000;
		assert_int_equal(vf_ol_tx_burst(NULL, fake_tx, &ol, q, 40), 40);
		assert_int_equal(nsent, 400);
		rte_pktmbuf_free_bulk(sent, nsent);
	}
	assert_int_equal(in_use(), base);
}

/* Feature bits -> what each side takes; TSO without its checksum bit
 * does not count (spec feature dependencies). */
static void test_caps(void **state)
{
	uint64_t all = (1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_HOST_TSO4) |
		       (1ull << VIRTIO_NET_F_HOST_TSO6) | (1ull << VIRTIO_NET_F_GUEST_CSUM) |
		       (1ull << VIRTIO_NET_F_GUEST_TSO4);

	assert_int_equal(vnet_ol_caps_host(all), VF_OL_CAP_CSUM | VF_OL_CAP_TSO4 | VF_OL_CAP_TSO6);
	assert_int_equal(vnet_ol_caps_guest(all), VF_OL_CAP_CSUM | VF_OL_CAP_TSO4);
	assert_int_equal(vnet_ol_caps_host(all & ~(1ull << VIRTIO_NET_F_CSUM)), 0);
	assert_int_equal(vnet_ol_caps_guest(1ull << VIRTIO_NET_F_GUEST_TSO6), 0);
	assert_int_equal(vnet_ol_caps_host(all | (1ull << VIRTIO_NET_F_HOST_ECN)),
			 VF_OL_CAP_CSUM | VF_OL_CAP_TSO4 | VF_OL_CAP_TSO6 | VF_OL_CAP_ECN);
	assert_int_equal(vnet_ol_caps_host((1ull << VIRTIO_NET_F_CSUM) | (1ull << VIRTIO_NET_F_HOST_ECN)),
			 VF_OL_CAP_CSUM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_rx_fixup),
		cmocka_unit_test(test_sw_csum),
		cmocka_unit_test(test_sw_tso),
		cmocka_unit_test(test_tx_wrapper),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
