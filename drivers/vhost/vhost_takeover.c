/* vhostd --takeover CTL, the new daemon's conversation with the running
 * one (vhost_takeover.h; the records are in vhost_takeover_wire.h, their
 * replay in vhost_adopt.c).
 *
 *   new -> old   "takeover 1\n" on the control socket
 *   old -> new   hello (device count, or refused and why), then one record
 *                per device with its fds; the old one's rings are stopped
 *   new -> old   COMMIT once every device is rebuilt (rings held), or ABORT
 *   old -> new   BYE: it let go and exits; its EOF follows at exit
 *   new          starts the rings */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vf_ctl.h"
#include "vf_log.h"
#include "vhost_conn.h"
#include "vhost_takeover.h"
#include "vhost_takeover_wire.h"

static const char *pending;

void vf_vhost_takeover_expect(const char *ctl)
{
	pending = ctl;
	vh_conn_defer_listen(ctl != NULL);
}

const char *vf_vhost_takeover_pending(void)
{
	return pending;
}

struct adopt_job {
	struct vh_dev *dev[VF_MAX_PORTS];
	unsigned int ndev;
	bool taken[VF_MAX_PORTS];
	struct vh_to_dev rec;
	int fds[VH_TO_MAX_FDS];
	int nfds, rc;
	char why[200];
};

static void list_fn(void *arg)
{
	struct adopt_job *j = arg;

	j->ndev = vh_conn_devs(j->dev, VF_MAX_PORTS);
}

/* One record: the device with its path, rebuilt. */
static void adopt_fn(void *arg)
{
	struct adopt_job *j = arg;
	char path[sizeof(j->rec.path) + 1];

	memcpy(path, j->rec.path, sizeof(j->rec.path));
	path[sizeof(j->rec.path)] = '\0';
	for (unsigned int i = 0; i < j->ndev; i++)
		if (!j->taken[i] && !strcmp(j->dev[i]->path, path)) {
			j->taken[i] = true;
			j->rc = vh_to_adopt(j->dev[i], &j->rec, j->fds, j->nfds, j->why,
					    sizeof(j->why));
			return;
		}
	vh_to_close_fds(j->fds, j->nfds);
	snprintf(j->why, sizeof(j->why), "the running daemon serves %.108s, we have no such "
		 "--iface", path);
	j->rc = -1;
}

static void unadopt_fn(void *arg)
{
	struct adopt_job *j = arg;

	for (unsigned int i = 0; i < j->ndev; i++)
		if (j->taken[i])
			vh_conn_unadopt(j->dev[i]);
}

static void release_fn(void *arg)
{
	struct adopt_job *j = arg;

	for (unsigned int i = 0; i < j->ndev; i++)
		vh_conn_release(j->dev[i]);
}

static int ctl_connect(const char *path, char *err, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, len, "--takeover %s: path too long", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		snprintf(err, len, "--takeover %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The records, each adopted as it comes; 0, or -1 with j->why. */
static int receive_all(int fd, struct adopt_job *j, const struct vh_to_hello *h)
{
	for (unsigned int n = 0; n < h->ndev; n++) {
		int rc = vh_to_recv(fd, &j->rec, sizeof(j->rec), j->fds, VH_TO_MAX_FDS, &j->nfds);

		if (rc) {
			snprintf(j->why, sizeof(j->why), "record %u: %s", n, strerror(-rc));
			return -1;
		}
		vf_ctl_call(adopt_fn, j);
		if (j->rc)
			return -1;
	}
	for (unsigned int i = 0; i < j->ndev; i++)
		if (!j->taken[i]) {
			snprintf(j->why, sizeof(j->why), "the running daemon does not serve %s",
				 j->dev[i]->path);
			return -1;
		}
	return 0;
}

int vf_vhost_takeover_run(char *err, size_t errlen)
{
	static struct adopt_job j;
	struct vh_to_hello h;
	uint32_t word = VH_TO_ABORT;
	const char *line = VF_TAKEOVER_WORD " 1\n";
	const char *ctl = vf_vhost_takeover_pending();
	int fd, nfds, rc;
	double t0;

	if (!ctl)
		return 0;
	fd = ctl_connect(ctl, err, errlen);
	if (fd < 0)
		return -1;
	vf_ctl_call(list_fn, &j);
	rc = vh_to_send(fd, line, strlen(line), NULL, 0);
	if (rc == 0)
		rc = vh_to_recv(fd, &h, sizeof(h), NULL, 0, &nfds);
	if (rc || h.magic != VH_TO_MAGIC || h.version != VH_TO_VERSION) {
		snprintf(err, errlen, "--takeover %s: %s", ctl, rc ? strerror(-rc) :
			 "the daemon there offers no takeover of this version");
		close(fd);
		return -1;
	}
	h.why[sizeof(h.why) - 1] = '\0';
	if (h.ndev == VH_TO_REFUSED || h.dev_size != sizeof(struct vh_to_dev) ||
	    h.ndev > VF_MAX_PORTS) {
		snprintf(err, errlen, "--takeover %s: refused: %s", ctl,
			 h.ndev == VH_TO_REFUSED ? h.why : "device records of another size");
		close(fd);
		return -1;
	}
	/* The old daemon's rings stop when it sends the hello: from here the
	 * gap runs until release_fn. */
	t0 = now_ms();
	if (receive_all(fd, &j, &h) == 0) {
		word = VH_TO_COMMIT;
		rc = vh_to_send(fd, &word, sizeof(word), NULL, 0);
		if (rc == 0)
			rc = vh_to_recv(fd, &word, sizeof(word), NULL, 0, &nfds);
		if (rc == 0 && word == VH_TO_BYE) {
			vf_ctl_call(release_fn, &j);
			VF_INFO("takeover: %u port%s taken over from pid %d, rings stopped for "
				"%.2f ms", j.ndev, j.ndev == 1 ? "" : "s", (int)h.pid, now_ms() - t0);
			/* Its control socket path is ours once it has exited. */
			struct timeval tv = { .tv_sec = 30 };
			char b;

			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
			while (recv(fd, &b, 1, 0) > 0)
				;
			close(fd);
			return 0;
		}
		snprintf(j.why, sizeof(j.why), "no word from the running daemon after the commit");
	} else {
		(void)vh_to_send(fd, &word, sizeof(word), NULL, 0);
	}
	vf_ctl_call(unadopt_fn, &j);
	close(fd);
	snprintf(err, errlen, "--takeover %s: %s; the running daemon serves on", ctl, j.why);
	return -1;
}
