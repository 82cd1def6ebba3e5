/* A device's sockets across a takeover (vhost_takeover.h): the running
 * daemon pauses, resumes or lets go of them; the new one adopts them, gives
 * them back or starts the rings.  All on the control thread. */
#include <stdio.h>
#include <sys/socket.h>

#include "vf_ctl.h"
#include "vf_log.h"
#include "vhost_conn.h"
#include "vhost_takeover_wire.h"

/* Old side: whether dev can be handed over now. */
int vh_conn_pause_ok(const struct vh_dev *dev, char *why, size_t len)
{
	if (dev->client) {
		snprintf(why, len, "%s: client mode (--client) is not handed over", dev->name);
		return -1;
	}
	if (dev->rx.got > 0 || dev->nb_waiting > 0) {
		snprintf(why, len, "%s: a front-end is mid-message or waiting; try again",
			 dev->name);
		return -1;
	}
	return 0;
}

/* Old side: the quiescent point, in two steps for all devices (the caller
 * waits, vf_sync_wait(), after each).  Step 0 stops the rings we dequeue
 * (the front-ends' transmit rings); a core in the middle of a pass still
 * puts what it took on the receive rings, which run until step 1.  After
 * it no frame is inside the daemon and the positions are final (every
 * buffer taken has been returned by the end of a burst).  The sockets are
 * no longer read: what a front-end sends meanwhile waits in the socket
 * for whoever serves it next. */
void vh_conn_pause(struct vh_dev *dev, int step)
{
	dev->held = true;
	for (unsigned int i = step ? 0 : 1; i < 2u * dev->nb_qp; i += 2) {
		__atomic_store_n(&dev->vq[i].ready, false, __ATOMIC_RELEASE);
		dev->vq[i].base_exact = true;	/* resumed as is if the takeover fails */
	}
	if (step == 0)
		return;
	if (dev->listen_fd >= 0)
		vf_ctl_del_fd(dev->listen_fd);
	if (dev->conn_fd >= 0)
		vf_ctl_del_fd(dev->conn_fd);
}

/* Old side: the takeover failed; we serve on as before. */
void vh_conn_resume(struct vh_dev *dev)
{
	if (dev->listen_fd >= 0 && vh_conn_watch(dev, dev->listen_fd, true) != 0)
		VF_WARN("%s: cannot watch the listening socket again", dev->name);
	if (dev->conn_fd >= 0 && vh_conn_watch(dev, dev->conn_fd, false) != 0)
		vh_conn_drop(dev, "cannot watch the connection");
	dev->held = false;
	vh_dev_update(dev);
}

/* Old side: the new daemon has it all; our copies go, nothing is said to
 * the front-end and the socket file stays (it is the new daemon's). */
void vh_conn_handed(struct vh_dev *dev)
{
	dev->handed = true;
	dev->closing = true;
	if (dev->stall_timer > 0)
		vf_ctl_del_timer(dev->stall_timer);
	dev->stall_timer = -1;
	close_fd(&dev->conn_fd);
	close_fd(&dev->listen_fd);
	vh_dev_disconnect(dev);		/* our mappings and fds; the rings stay held */
}

static bool is_unix_stream(int fd, int listening)
{
	int v;
	socklen_t l = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) || v != AF_UNIX)
		return false;
	l = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) || v != SOCK_STREAM)
		return false;
	l = sizeof(v);
	return !getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l) && !!v == !!listening;
}

/* New side: the sockets of a device we take over; the rings stay held
 * until vh_conn_release.  Takes lfd and cfd (-1: none) whatever happens. */
int vh_conn_adopt(struct vh_dev *dev, int lfd, int cfd, char *why, size_t len)
{
	if (!is_unix_stream(lfd, 1) || (cfd >= 0 && !is_unix_stream(cfd, 0))) {
		snprintf(why, len, "%s: the sockets received are not unix stream sockets",
			 dev->name);
		goto fail;
	}
	/* The front-end passes our own allow lists too, as on accept. */
	if (cfd >= 0 && !vh_conn_peer_ok(dev, cfd)) {
		snprintf(why, len, "%s: %s", dev->name, dev->last_refused);
		goto fail;
	}
	dev->held = true;
	dev->listen_fd = lfd;
	if (vh_conn_watch(dev, lfd, true) != 0) {
		dev->listen_fd = -1;
		snprintf(why, len, "%s: cannot watch the listening socket", dev->name);
		goto fail;
	}
	if (cfd >= 0) {
		vh_conn_set(dev, cfd);	/* closes cfd on failure */
		if (dev->conn_fd < 0) {
			snprintf(why, len, "%s: cannot watch the connection", dev->name);
			return -1;
		}
	}
	return 0;
fail:
	close_fd(&lfd);
	close_fd(&cfd);
	return -1;
}

/* New side: the takeover failed; the sockets are the old daemon's again.
 * Nothing has run on the rings (held), nothing is said to the front-end. */
void vh_conn_unadopt(struct vh_dev *dev)
{
	if (dev->listen_fd >= 0)
		vf_ctl_del_fd(dev->listen_fd);
	if (dev->conn_fd >= 0)
		vf_ctl_del_fd(dev->conn_fd);
	if (dev->stall_timer > 0)
		vf_ctl_del_timer(dev->stall_timer);
	dev->stall_timer = -1;
	vh_rxmsg_reset(&dev->rx, true);
	close_fd(&dev->conn_fd);
	close_fd(&dev->listen_fd);
	dev->handed = true;		/* the socket file is not ours */
	vh_dev_disconnect(dev);
}

/* New side: the old daemon let go; our rings run. */
void vh_conn_release(struct vh_dev *dev)
{
	dev->held = false;
	vh_dev_update(dev);
}
