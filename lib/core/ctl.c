#include "vf_ctl.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "vf_log.h"

/* fds and timers the control thread watches: per port a listening socket,
 * a connection, a timer or two (vhost-user, memif), per control-socket
 * client one; 256 ports with their peers need about 800. */
#define MAX_WATCH 4096

struct watch {
	int fd;
	bool active, is_timer;
	uint32_t gen;
	vf_ctl_fd_cb cb;
	vf_ctl_timer_cb tcb;
	void *arg;
};

static struct watch watches[MAX_WATCH];
static int epfd = -1, wakefd = -1;
static pthread_t thread;
static bool running;
/* Main thread -> control thread; relaxed: it only ends the loop (the
 * join orders the rest). */
static bool stopping;
/* Held while a callback runs and while watches change: vf_ctl_del_fd()
 * returning means the callback is not running.  Recursive because callbacks
 * add and remove watches. */
static pthread_mutex_t lock;
static pthread_once_t lock_once = PTHREAD_ONCE_INIT;
static __thread bool on_ctl_thread;

static void lock_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&lock, &a);
	pthread_mutexattr_destroy(&a);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (epfd >= 0 && wakefd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
		epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, &ev);
	}
}

int vf_ctl_is_ctl_thread(void)
{
	return on_ctl_thread;
}

static void *ctl_main(void *unused)
{
	struct epoll_event evs[32];

	on_ctl_thread = true;
	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		int n = epoll_wait(epfd, evs, 32, 1000);

		for (int i = 0; i < n && !__atomic_load_n(&stopping, __ATOMIC_RELAXED); i++) {
			uint64_t d = evs[i].data.u64;
			unsigned int slot = (unsigned int)(d >> 32);
			uint32_t gen = (uint32_t)d;
			struct watch *w;

			if (d == UINT64_MAX)
				continue;
			pthread_mutex_lock(&lock);
			w = slot < MAX_WATCH ? &watches[slot] : NULL;
			if (w && w->active && w->gen == gen) {
				if (w->is_timer) {
					uint64_t ticks;
					if (read(w->fd, &ticks, sizeof(ticks)) == sizeof(ticks))
						w->tcb(w->arg);
				} else {
					w->cb(w->fd, evs[i].events, w->arg);
				}
			}
			pthread_mutex_unlock(&lock);
		}
	}
	return NULL;
}

int vf_ctl_start(void)
{
	pthread_once(&lock_once, lock_init);
	if (epfd < 0 || wakefd < 0)
		return -ENOMEM;
	if (running)
		return 0;
	__atomic_store_n(&stopping, false, __ATOMIC_RELAXED);
	if (pthread_create(&thread, NULL, ctl_main, NULL))
		return -EAGAIN;
	pthread_setname_np(thread, "vf-ctl");
	running = true;
	return 0;
}

void vf_ctl_stop(void)
{
	uint64_t one = 1;

	if (!running)
		return;
	__atomic_store_n(&stopping, true, __ATOMIC_RELAXED);
	if (write(wakefd, &one, sizeof(one)) < 0)
		VF_WARN("ctl: wake-up failed: %s", strerror(errno));
	pthread_join(thread, NULL);
	running = false;
}

static int add_watch(int fd, bool timer, vf_ctl_fd_cb cb, vf_ctl_timer_cb tcb, void *arg)
{
	int ret = -ENOSPC;

	pthread_once(&lock_once, lock_init);
	if (epfd < 0)
		return -ENOMEM;
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_WATCH; i++) {
		struct watch *w = &watches[i];
		struct epoll_event ev;

		if (w->active)
			continue;
		w->fd = fd;
		w->is_timer = timer;
		w->cb = cb;
		w->tcb = tcb;
		w->arg = arg;
		w->gen++;
		ev.events = EPOLLIN;
		ev.data.u64 = ((uint64_t)i << 32) | w->gen;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			ret = -errno;
			break;
		}
		w->active = true;
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

int vf_ctl_add_fd(int fd, vf_ctl_fd_cb cb, void *arg)
{
	return add_watch(fd, false, cb, NULL, arg);
}

void vf_ctl_del_fd(int fd)
{
	pthread_once(&lock_once, lock_init);
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_WATCH; i++)
		if (watches[i].active && !watches[i].is_timer && watches[i].fd == fd) {
			epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
			watches[i].active = false;
		}
	pthread_mutex_unlock(&lock);
}

int vf_ctl_set_events(int fd, uint32_t events)
{
	int ret = -ENOENT;

	pthread_once(&lock_once, lock_init);
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_WATCH; i++)
		if (watches[i].active && !watches[i].is_timer && watches[i].fd == fd) {
			struct epoll_event ev = {
				.events = events,
				.data.u64 = ((uint64_t)i << 32) | watches[i].gen,
			};
			ret = epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) < 0 ? -errno : 0;
			break;
		}
	pthread_mutex_unlock(&lock);
	return ret;
}

int vf_ctl_add_timer(unsigned int period_ms, vf_ctl_timer_cb cb, void *arg)
{
	struct itimerspec its = {
		.it_interval = { period_ms / 1000, (long)(period_ms % 1000) * 1000000 },
		.it_value = { period_ms / 1000, (long)(period_ms % 1000) * 1000000 },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = add_watch(fd, true, NULL, cb, arg);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

void vf_ctl_del_timer(int id)
{
	bool found = false;

	pthread_once(&lock_once, lock_init);
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_WATCH; i++)
		if (watches[i].active && watches[i].is_timer && watches[i].fd == id) {
			epoll_ctl(epfd, EPOLL_CTL_DEL, id, NULL);
			watches[i].active = false;
			found = true;
		}
	pthread_mutex_unlock(&lock);
	if (found)
		close(id);
}

void vf_ctl_call(void (*fn)(void *arg), void *arg)
{
	/* Holding the dispatch lock serialises fn against every callback,
	 * which is all that running it on the control thread would give. */
	pthread_once(&lock_once, lock_init);
	pthread_mutex_lock(&lock);
	fn(arg);
	pthread_mutex_unlock(&lock);
}
