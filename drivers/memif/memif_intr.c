/* memif rx notifications, for the rx modes (vf_port.h).  The protocol
 * gives each ring an event fd (sent with ADD_RING) and a flag word in the
 * ring: while MEMIF_RING_FLAG_MASK_INT is set the producer does not
 * signal.  We keep it set on our receive rings (we poll); a core about to
 * sleep clears it, and the producer, after publishing its head or tail,
 * reads the flags and writes the fd.  Our store of the flags, a full
 * barrier, then the core's last look at the ring (a burst) pair with the
 * producer's store of the index, barrier, load of the flags: one of the two
 * sees the other, so no packet published while we go to sleep goes
 * unnoticed.  Both calls run on the core that polls the queue, which the
 * control thread waits for (vf_sync_wait) before it unmaps the ring. */
#include <poll.h>
#include <unistd.h>

#include "common/vring_sync.h"
#include "memif.h"

static struct memif_queue *rx_queue(struct vf_port *port, uint16_t q)
{
	struct memif_if *mif = port->priv;

	if (!mif || q >= mif->nb_rxq)
		return NULL;
	/* Pairs with the release in memif_if_connected(). */
	if (!__atomic_load_n(&mif->rxq[q].ready, __ATOMIC_ACQUIRE))
		return NULL;
	return &mif->rxq[q];
}

int memif_rx_intr_arm(struct vf_port *port, uint16_t q)
{
	struct memif_queue *mq = rx_queue(port, q);

	if (!mq || mq->intr_fd < 0)
		return -1;
	__atomic_store_n(&mq->ring->flags, 0, __ATOMIC_RELAXED);
	vf_mb();
	return mq->intr_fd;
}

void memif_rx_intr_disarm(struct vf_port *port, uint16_t q)
{
	struct memif_queue *mq = rx_queue(port, q);
	uint64_t v;

	if (!mq)
		return;
	__atomic_store_n(&mq->ring->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
	/* A server's fd comes from the client, maybe blocking (or not an
	 * eventfd at all): read it only when it says it has something. */
	if (mq->intr_fd >= 0 &&
	    poll(&(struct pollfd){ .fd = mq->intr_fd, .events = POLLIN }, 1, 0) == 1 &&
	    read(mq->intr_fd, &v, sizeof(v)) < 0) {
	}
}
