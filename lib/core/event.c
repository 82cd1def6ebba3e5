/* Events (vf_event.h): the ring any thread raises into, and the control
 * thread's drain that turns each event into its JSON line for the sinks.
 *
 * The ring is a bounded multi-producer queue in the manner of D. Vyukov's:
 * every slot carries a sequence number that says whose turn it is.  A
 * producer claims position pos when slot[pos % N].seq == pos (compare-and-
 * swap on head), copies the event in, and publishes it by storing pos + 1
 * (release).  The drain, the only consumer, takes slot[tail % N] when its
 * seq is tail + 1 (acquire), copies the event out and hands the slot back
 * for the next lap by storing tail + N (release).  A slot whose seq is
 * below pos is still the previous lap's, not yet drained: the ring is full
 * and the event is lost (counted).  No producer ever waits. */
#include "vf_event.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "vf_ctl.h"
#include "vf_log.h"

_Static_assert((VF_EVENT_RING & (VF_EVENT_RING - 1)) == 0, "ring size is a power of two");

struct slot {
	uint64_t seq;		/* atomic: the turn, see above */
	struct vf_event ev;
};

static struct slot ring[VF_EVENT_RING];
static uint64_t head;		/* atomic: next position to claim */
static uint64_t tail;		/* the drain's: next position to take */
static uint64_t ring_lost;	/* atomic: raised while full */
static uint64_t lost_told;	/* the drain's: ring_lost already told as a gap */
static bool enabled;		/* atomic (relaxed): recording */
static int timer_id = -1;
static int file_fd = -1;
static uint64_t file_gap;	/* lines the file did not take since its last gap line */

static struct sink {
	vf_event_sink_fn fn;
	void *arg;
} sinks[VF_EVENT_MAX_SINKS];

static const char *const type_names[VF_EV_NB_TYPES] = {
	[VF_EV_LINK] = "link", [VF_EV_PEER] = "peer", [VF_EV_RECONNECT] = "reconnect",
	[VF_EV_DROPS] = "drops", [VF_EV_RX_MODE] = "rx_mode", [VF_EV_RX_STATE] = "rx_state",
	[VF_EV_READY] = "ready", [VF_EV_STOPPING] = "stopping",
};
static const char *const peer_states[] = { "connected", "refused", "disconnected" };

const char *vf_event_type_name(enum vf_event_type t)
{
	return (unsigned int)t < VF_EV_NB_TYPES ? type_names[t] : NULL;
}

bool vf_event_on(void)
{
	return __atomic_load_n(&enabled, __ATOMIC_RELAXED);
}

void vf_event_raise(struct vf_event *ev)
{
	struct timespec ts;
	struct slot *s;
	uint64_t pos;

	if (!vf_event_on())
		return;
	pos = __atomic_load_n(&head, __ATOMIC_RELAXED);
	for (;;) {
		uint64_t seq;

		s = &ring[pos & (VF_EVENT_RING - 1)];
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (seq == pos) {
			/* Our turn if no other producer claims it first; a
			 * failed CAS loads the head that won into pos. */
			if (__atomic_compare_exchange_n(&head, &pos, pos + 1, true,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				break;
		} else if ((int64_t)(seq - pos) < 0) {
			/* the previous lap's event, not drained yet: full */
			__atomic_fetch_add(&ring_lost, 1, __ATOMIC_RELAXED);
			return;
		} else {
			pos = __atomic_load_n(&head, __ATOMIC_RELAXED);
		}
	}
	clock_gettime(CLOCK_REALTIME, &ts);	/* vDSO: no system call */
	ev->seq = pos;
	ev->time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	s->ev = *ev;
	/* Release: the event above is complete for the drain that sees it. */
	__atomic_store_n(&s->seq, pos + 1, __ATOMIC_RELEASE);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static void init_event(struct vf_event *ev, enum vf_event_type type, uint16_t port,
		       const char *name)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->port = port;
	ev->queue = -1;
	ev->pid = ev->uid = ev->gid = -1;
	copy_str(ev->name, sizeof(ev->name), name);
}

void vf_event_link(uint16_t port, const char *name, bool up)
{
	struct vf_event ev;

	if (!vf_event_on())
		return;
	init_event(&ev, VF_EV_LINK, port, name);
	ev.state = up;
	vf_event_raise(&ev);
}

void vf_event_peer(uint16_t port, const char *name, enum vf_event_peer state, int64_t pid,
		   int64_t uid, int64_t gid, const char *path, const char *why)
{
	struct vf_event ev;

	if (!vf_event_on())
		return;
	init_event(&ev, VF_EV_PEER, port, name);
	ev.state = (int32_t)state;
	ev.pid = pid;
	ev.uid = uid;
	ev.gid = gid;
	copy_str(ev.path, sizeof(ev.path), path);
	copy_str(ev.text, sizeof(ev.text), why);
	vf_event_raise(&ev);
}

void vf_event_reconnect(uint16_t port, const char *name, uint64_t attempt, const char *path,
			const char *error)
{
	struct vf_event ev;

	if (!vf_event_on())
		return;
	init_event(&ev, VF_EV_RECONNECT, port, name);
	ev.count = attempt;
	copy_str(ev.path, sizeof(ev.path), path);
	copy_str(ev.text, sizeof(ev.text), error);
	vf_event_raise(&ev);
}

/* ---- lines ---- */

/* A string field, printable ASCII only (peer text is the peer's). */
static void put_str(json_t *o, const char *key, const char *s)
{
	char clean[128];
	size_t i;

	for (i = 0; s[i] && i < sizeof(clean) - 1; i++)
		clean[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	clean[i] = '\0';
	json_object_set_new(o, key, json_string(clean));
}

static void put_int(json_t *o, const char *key, int64_t v)
{
	json_object_set_new(o, key, json_integer((json_int_t)v));
}

static void put_time(json_t *o, int64_t ns)
{
	time_t sec = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[40];

	gmtime_r(&sec, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(ns % 1000000000 / 1000));
	json_object_set_new(o, "ts", json_string(buf));
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Dumps o into buf: its length, or 0 when it does not fit. */
static size_t dump(json_t *o, char *buf, size_t len)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t n = s ? strlen(s) : 0;

	if (n >= len)
		n = 0;
	if (n)
		memcpy(buf, s, n + 1);
	free(s);
	return n;
}

static void put_port(json_t *o, const struct vf_event *ev)
{
	if (ev->port == VF_EVENT_NO_PORT)
		return;
	put_int(o, "port", ev->port);
	if (ev->name[0])
		put_str(o, "name", ev->name);
}

static void put_body(json_t *o, const struct vf_event *ev)
{
	switch (ev->type) {
	case VF_EV_LINK:
		put_port(o, ev);
		put_str(o, "state", ev->state ? "up" : "down");
		break;
	case VF_EV_PEER:
		put_port(o, ev);
		put_str(o, "state", (unsigned int)ev->state < 3 ? peer_states[ev->state] : "?");
		if (ev->pid >= 0)
			put_int(o, "pid", ev->pid);
		if (ev->uid >= 0)
			put_int(o, "uid", ev->uid);
		if (ev->gid >= 0)
			put_int(o, "gid", ev->gid);
		if (ev->path[0])
			put_str(o, "socket", ev->path);
		if (ev->text[0])
			put_str(o, "reason", ev->text);
		break;
	case VF_EV_RECONNECT:
		put_port(o, ev);
		put_int(o, "attempt", (int64_t)ev->count);
		if (ev->path[0])
			put_str(o, "socket", ev->path);
		if (ev->text[0])
			put_str(o, "error", ev->text);
		break;
	case VF_EV_DROPS:
		put_port(o, ev);
		put_str(o, "reason", ev->what);
		put_int(o, "packets", (int64_t)(ev->count > INT64_MAX ? INT64_MAX : ev->count));
		put_int(o, "interval_ms", ev->interval_ms);
		break;
	case VF_EV_RX_MODE:
		put_port(o, ev);
		put_str(o, "mode", ev->what);
		put_str(o, "from", ev->text);
		break;
	case VF_EV_RX_STATE:
		put_port(o, ev);
		put_int(o, "queue", ev->queue);
		put_str(o, "mode", ev->what);
		put_str(o, "state", ev->state ? "interrupt" : "polling");
		break;
	case VF_EV_READY:
		put_int(o, "ports", (int64_t)ev->count);
		if (ev->path[0])
			put_str(o, "ctl", ev->path);
		break;
	default:
		break;
	}
}

size_t vf_event_format(const struct vf_event *ev, char *buf, size_t len)
{
	const char *type = vf_event_type_name(ev->type);
	json_t *o = json_object();
	size_t n;

	if (!o || len < 2)
		return 0;
	put_str(o, "event", type ? type : "unknown");
	put_time(o, ev->time_ns);
	put_int(o, "seq", (int64_t)ev->seq);
	put_body(o, ev);
	n = dump(o, buf, len);
	if (n == 0) {		/* too long for buf: the fields that always fit */
		json_object_clear(o);
		put_str(o, "event", type ? type : "unknown");
		put_int(o, "seq", (int64_t)ev->seq);
		n = dump(o, buf, len);
	}
	json_decref(o);
	return n;
}

size_t vf_event_format_gap(uint64_t lost, char *buf, size_t len)
{
	json_t *o = json_object();
	size_t n;

	if (!o)
		return 0;
	put_str(o, "event", "gap");
	put_time(o, now_ns());
	put_int(o, "lost", (int64_t)(lost > INT64_MAX ? INT64_MAX : lost));
	n = dump(o, buf, len);
	json_decref(o);
	return n;
}

size_t vf_event_format_hello(const char *tool, char *buf, size_t len)
{
	json_t *o = json_object();
	size_t n;

	if (!o)
		return 0;
	put_str(o, "event", "monitor");
	put_time(o, now_ns());
	put_str(o, "tool", tool ? tool : "");
	put_int(o, "pid", (int64_t)getpid());
	n = dump(o, buf, len);
	json_decref(o);
	return n;
}

/* ---- the drain (control thread) ---- */

/* One line into the file, whole or not at all (a line is shorter than
 * PIPE_BUF, so a FIFO takes it whole too); the file never blocks us. */
static bool file_put(const char *line, size_t len)
{
	char buf[VF_EVENT_LINE_MAX + 1];
	ssize_t n;

	memcpy(buf, line, len);
	buf[len] = '\n';
	do {
		n = write(file_fd, buf, len + 1);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)(len + 1);
}

static void to_file(const char *line, size_t len)
{
	if (file_fd < 0 || !line)
		return;
	if (file_gap) {
		char g[128];
		size_t n = vf_event_format_gap(file_gap, g, sizeof(g));

		if (!file_put(g, n)) {
			file_gap++;
			return;
		}
		file_gap = 0;
	}
	if (!file_put(line, len))
		file_gap++;
}

static void deliver(const char *line, size_t len)
{
	to_file(line, len);
	for (unsigned int i = 0; i < VF_EVENT_MAX_SINKS; i++)
		if (sinks[i].fn)
			sinks[i].fn(line, len, sinks[i].arg);
}

/* Takes what is in the ring (one lap at most: producers that keep going
 * wait for the next drain) and tells the sinks. */
static void drain(void)
{
	char line[VF_EVENT_LINE_MAX];
	uint64_t lost;
	size_t n;

	for (unsigned int k = 0; k < VF_EVENT_RING; k++) {
		struct slot *s = &ring[tail & (VF_EVENT_RING - 1)];
		struct vf_event ev;

		if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != tail + 1)
			break;
		ev = s->ev;
		/* Release: our copy is taken before a producer of the next
		 * lap writes the slot. */
		__atomic_store_n(&s->seq, tail + VF_EVENT_RING, __ATOMIC_RELEASE);
		tail++;
		n = vf_event_format(&ev, line, sizeof(line));
		if (n)
			deliver(line, n);
	}
	lost = __atomic_load_n(&ring_lost, __ATOMIC_RELAXED);
	if (lost != lost_told) {
		n = vf_event_format_gap(lost - lost_told, line, sizeof(line));
		lost_told = lost;
		if (n)
			deliver(line, n);
	}
	deliver(NULL, 0);
}

static void on_timer(void *arg)
{
	drain();
}

static void flush_fn(void *arg)
{
	drain();
}

void vf_event_flush(void)
{
	if (vf_event_on() || timer_id > 0)
		vf_ctl_call(flush_fn, NULL);
}

int vf_event_sink_add(vf_event_sink_fn fn, void *arg)
{
	for (unsigned int i = 0; i < VF_EVENT_MAX_SINKS; i++)
		if (!sinks[i].fn) {
			sinks[i].arg = arg;
			sinks[i].fn = fn;
			return 0;
		}
	return -ENOSPC;
}

struct sink_del_args {
	vf_event_sink_fn fn;
	void *arg;
};

static void sink_del_fn(void *p)
{
	struct sink_del_args *a = p;

	for (unsigned int i = 0; i < VF_EVENT_MAX_SINKS; i++)
		if (sinks[i].fn == a->fn && sinks[i].arg == a->arg)
			sinks[i].fn = NULL;
}

void vf_event_sink_del(vf_event_sink_fn fn, void *arg)
{
	struct sink_del_args a = { fn, arg };

	/* under the dispatch lock: no drain is inside the sink after this */
	vf_ctl_call(sink_del_fn, &a);
}

int vf_event_start(const char *file, char *err, size_t len)
{
	int ret;

	if (vf_event_on())
		return 0;
	if (file && *file) {
		/* O_NONBLOCK: a FIFO nobody reads loses lines, it does not
		 * stop the control thread. */
		file_fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
		if (file_fd < 0) {
			ret = -errno;
			snprintf(err, len, "cannot open '%s': %s", file, strerror(errno));
			return ret;
		}
	}
	for (uint64_t i = 0; i < VF_EVENT_RING; i++)
		__atomic_store_n(&ring[i].seq, i, __ATOMIC_RELAXED);
	__atomic_store_n(&head, 0, __ATOMIC_RELAXED);
	tail = 0;
	ret = vf_ctl_add_timer(VF_EVENT_DRAIN_MS, on_timer, NULL);
	if (ret < 0) {
		snprintf(err, len, "no timer for the events: %s", strerror(-ret));
		if (file_fd >= 0)
			close(file_fd);
		file_fd = -1;
		return ret;
	}
	timer_id = ret;
	/* Release: the ring's set-up above before any producer sees it on. */
	__atomic_store_n(&enabled, true, __ATOMIC_RELEASE);
	return 0;
}

void vf_event_stop(void)
{
	if (!vf_event_on())
		return;
	__atomic_store_n(&enabled, false, __ATOMIC_RELAXED);
	if (timer_id > 0)
		vf_ctl_del_timer(timer_id);
	timer_id = -1;
	vf_ctl_call(flush_fn, NULL);	/* the last ones, raised before the switch */
	if (file_fd >= 0)
		close(file_fd);
	file_fd = -1;
}
