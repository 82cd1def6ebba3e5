/* After a live migration the network must learn where the guest went:
 * VHOST_USER_SEND_RARP (protocol feature RARP) asks us for a RARP
 * broadcast with the guest's MAC.  It is put on the port's receive side,
 * as if the guest had sent it, so that whatever the guest's traffic goes
 * to sees it first, ahead of the next burst of the guest's frames
 * (protocols.md §1.11). */
#include "vhost_announce.h"

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "vf_ctr.h"

#define RARP_LEN 60	/* minimum Ethernet frame without FCS */

void vh_rarp_request(struct vh_vq *vq, const uint8_t mac[6])
{
	memcpy(vq->rarp_mac, mac, 6);
	/* Release: the MAC is visible to the core that sees the flag. */
	__atomic_store_n(&vq->rarp_pending, true, __ATOMIC_RELEASE);
}

/* A RARP "request reverse" (opcode 3) for mac, as QEMU announces a
 * migrated guest on its other back-ends. */
static void rarp_fill(uint8_t *f, const uint8_t mac[6])
{
	static const uint8_t arp_hdr[8] = {
		0x00, 0x01,		/* hardware: Ethernet */
		0x08, 0x00,		/* protocol: IPv4 */
		6, 4,			/* address lengths */
		0x00, 0x03,		/* reverse request */
	};

	memset(f, 0, RARP_LEN);
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	f[12] = RTE_ETHER_TYPE_RARP >> 8;
	f[13] = RTE_ETHER_TYPE_RARP & 0xff;
	memcpy(f + 14, arp_hdr, sizeof(arp_hdr));
	memcpy(f + 22, mac, 6);		/* sender MAC; sender IP 0 */
	memcpy(f + 32, mac, 6);		/* target MAC; target IP 0 */
}

uint16_t vh_rarp_dequeue(struct vh_vq *vq, struct rte_mbuf **pkts, uint16_t n,
			 uint16_t (*dequeue)(void *q, struct rte_mbuf **pkts, uint16_t n))
{
	struct rte_mbuf *m;

	if (n == 0 || !__atomic_load_n(&vq->ready, __ATOMIC_ACQUIRE) || vq->dp_broken)
		return 0;	/* stays pending until the ring runs */
	if (!__atomic_exchange_n(&vq->rarp_pending, false, __ATOMIC_ACQUIRE))
		return dequeue(vq, pkts, n);
	m = rte_pktmbuf_alloc(vq->pool);
	if (!m) {
		vf_ctr_add(vq->st.nombuf, 1);
		__atomic_store_n(&vq->rarp_pending, true, __ATOMIC_RELAXED);
		return dequeue(vq, pkts, n);
	}
	rarp_fill(rte_pktmbuf_mtod(m, uint8_t *), vq->rarp_mac);
	m->data_len = RARP_LEN;
	m->pkt_len = RARP_LEN;
	m->port = vq->port_id;
	pkts[0] = m;
	vf_ctr_add(vq->st.rarp, 1);
	vf_ctr_add(vq->st.packets, 1);
	vf_ctr_add(vq->st.bytes, RARP_LEN);
	return (uint16_t)(1 + dequeue(vq, pkts + 1, (uint16_t)(n - 1)));
}
