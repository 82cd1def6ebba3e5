/* Test helpers shared by the split and packed rx/tx burst tests: the EAL
 * and mbuf pool, patterned frames, and the device's view of buffers. */
#ifndef VIO_TESTFRAMES_H
#define VIO_TESTFRAMES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "vf_runtime.h"

#include "virtio_rxtx.h"

/* The tests' mbuf pool (vt_eal_pool creates it, vt_frame draws on it). */
static struct rte_mempool *pool;

/* The EAL as our tools start it (vf_runtime.c: no PCI, hugepages only
 * where usable, a file prefix of the tag's; vf_runtime_stop() removes its
 * runtime folder, which rte_eal_cleanup() leaves), and the tests' pool;
 * NULL on failure. */
static inline struct rte_mempool *vt_eal_pool(char *argv0, const char *tag)
{
	struct vf_runtime_opts o = { .tool = tag, .lcores = "0", .main_lcore = -1,
				     .eal_args = "--no-shconf --no-telemetry", .mem_mb = 128 };

	(void)argv0;
	if (vf_runtime_start(&o)) {
		fprintf(stderr, "EAL init failed\n");
		return NULL;
	}
	return rte_pktmbuf_pool_create("ut", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
}

/* A len-byte frame of bytes seed, seed+1, ... (checked by vt_check_frame). */
static inline struct rte_mbuf *vt_frame(uint16_t len, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p;

	assert_non_null(m);
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL)
		fail();
	for (uint16_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i);
	return m;
}

/* Appends one tx descriptor's bytes (device view) to out; the new length. */
static inline uint32_t vt_desc_append(uint8_t *out, uint32_t n, uint32_t max,
				      uint64_t addr, uint32_t len)
{
	assert_true(n + len <= max);
	memcpy(out + n, (void *)(uintptr_t)addr, len);
	return n + len;
}

/* The frame vt_frame or vt_put_pattern wrote, byte for byte. */
static inline void vt_check_frame(const uint8_t *p, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		assert_int_equal(p[i], (uint8_t)(seed + i));
}

/* No offload asked for: the virtio-net header the driver sent is all zero. */
static inline void vt_check_hdr_zero(const uint8_t *p)
{
	for (int i = 0; i < VIO_HDR_LEN; i++)
		assert_int_equal(p[i], 0);
}

/* Device side of rx: a zero header with num_buffers at addr. */
static inline void vt_put_rx_hdr(uint64_t addr, uint16_t nbuf)
{
	struct virtio_net_hdr_mrg_rxbuf *h = (void *)(uintptr_t)addr;

	memset(h, 0, sizeof(*h));
	h->num_buffers = nbuf;
}

/* Device side of rx: len pattern bytes at addr + off. */
static inline void vt_put_pattern(uint64_t addr, uint32_t off, uint32_t len, uint8_t seed)
{
	uint8_t *p = (uint8_t *)(uintptr_t)addr + off;

	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i);
}

/* The mergeable tests' packet: len pattern bytes from 0 over nseg mbufs;
 * freed here. */
static inline void vt_check_merged(struct rte_mbuf *m, uint32_t len, uint16_t nseg)
{
	assert_int_equal(m->pkt_len, len);
	assert_int_equal(m->nb_segs, nseg);
	uint8_t *flat = malloc(len);
	const uint8_t *p = rte_pktmbuf_read(m, 0, len, flat);

	assert_non_null(p);
	vt_check_frame(p, len, 0);
	free(flat);
	rte_pktmbuf_free(m);
}

#endif
