/* SIGBUS-proof peer shared memory: the registry of peer mappings and the
 * handler (vf_peermem.h). */
#include "vf_peermem.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vf_ctl.h"
#include "vf_log.h"

#define SLOTS 1024

enum { FREE, ARMED, FAULTED, REPORTED };

struct slot {
	uintptr_t lo, hi;	/* [lo, hi), page aligned */
	int state;		/* atomic; FREE..REPORTED */
	vf_peermem_cb cb;
	void *arg;
};

static struct slot slots[SLOTS];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int install_rc;
static int efd = -1;
static struct sigaction prev;
static uint64_t nb_faults;	/* atomic */

static void chain(int sig, siginfo_t *si, void *uc)
{
	if (prev.sa_flags & SA_SIGINFO) {
		if (prev.sa_sigaction != NULL) {
			prev.sa_sigaction(sig, si, uc);
			return;
		}
	} else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
		prev.sa_handler(sig);
		return;
	}
	/* Default action: put it back and let the access fault again (or
	 * re-raise a signal that was sent, not caused by an access). */
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (si == NULL || si->si_code <= 0)
		raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	uintptr_t a = si != NULL ? (uintptr_t)si->si_addr : 0;

	if (si != NULL && si->si_code > 0) {
		for (unsigned int i = 0; i < SLOTS; i++) {
			struct slot *s = &slots[i];
			int st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);

			if (st == FREE || a < s->lo || a >= s->hi)
				continue;
			/* Zero pages where the peer's file was: the access
			 * that faulted is retried and succeeds. */
			if (mmap((void *)s->lo, s->hi - s->lo, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
				break;
			if (st == ARMED &&
			    __atomic_compare_exchange_n(&s->state, &st, FAULTED, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				uint64_t one = 1;

				__atomic_fetch_add(&nb_faults, 1, __ATOMIC_RELAXED);
				if (write(efd, &one, sizeof(one)) < 0) {
					/* counter saturated: the control thread
					 * is behind and will scan anyway */
				}
			}
			errno = saved;
			return;
		}
	}
	errno = saved;
	chain(sig, si, uc);
}

/* Control thread: tell the owners of faulted mappings. */
static void on_event(int fd, uint32_t events, void *unused)
{
	uint64_t v;

	(void)events;
	(void)unused;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* nothing pending: scan anyway */
	}
	for (unsigned int i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[i];
		int st = FAULTED;
		vf_peermem_cb cb;
		void *arg;

		pthread_mutex_lock(&reg_lock);
		if (!__atomic_compare_exchange_n(&s->state, &st, REPORTED, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			pthread_mutex_unlock(&reg_lock);
			continue;
		}
		cb = s->cb;
		arg = s->arg;
		pthread_mutex_unlock(&reg_lock);
		VF_WARN("peer memory at %p (%zu bytes) was truncated by the peer (SIGBUS): "
			"replaced with zero pages", (void *)s->lo, (size_t)(s->hi - s->lo));
		if (cb != NULL)
			cb(arg, (void *)s->lo);
	}
}

/* Ours in front of whatever is there now, which becomes what we chain to.
 * Called again on every registration: a library that swapped the handler
 * for its own (and did not put ours back) is chained behind ours again. */
static int hook(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGBUS, NULL, &cur) != 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &prev) != 0)
		return -errno;
	return 0;
}

static void install(void)
{
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0) {
		install_rc = -errno;
		return;
	}
	install_rc = vf_ctl_start();
	if (install_rc == 0)
		install_rc = vf_ctl_add_fd(efd, on_event, NULL);
}

int vf_peermem_init(void)
{
	pthread_once(&once, install);
	return install_rc;
}

int vf_peermem_register(void *addr, size_t len, vf_peermem_cb cb, void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)addr, hi;
	int rc;

	pthread_once(&once, install);
	if (install_rc)
		return install_rc;
	if (addr == NULL || len == 0 || lo % (uintptr_t)pg ||
	    __builtin_add_overflow(lo, len, &hi))
		return -EINVAL;
	hi = (hi + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	pthread_mutex_lock(&reg_lock);
	rc = hook();
	if (rc) {
		pthread_mutex_unlock(&reg_lock);
		return rc;
	}
	for (unsigned int i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[i];

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FREE)
			continue;
		s->lo = lo;
		s->hi = hi;
		s->cb = cb;
		s->arg = arg;
		__atomic_store_n(&s->state, ARMED, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&reg_lock);
		return (int)i + 1;
	}
	pthread_mutex_unlock(&reg_lock);
	return -ENOSPC;
}

void vf_peermem_unregister(int handle)
{
	if (handle <= 0 || handle > SLOTS)
		return;
	pthread_mutex_lock(&reg_lock);
	__atomic_store_n(&slots[handle - 1].state, FREE, __ATOMIC_RELEASE);
	slots[handle - 1].cb = NULL;
	pthread_mutex_unlock(&reg_lock);
}

int vf_peermem_check_fd(int fd, uint64_t need, bool *sealed)
{
	struct stat st;
	int seals;

	if (sealed != NULL) {
		seals = fcntl(fd, F_GET_SEALS);
		*sealed = seals > 0 && (seals & F_SEAL_SHRINK);
	}
	if (fd < 0 || fstat(fd, &st) != 0)
		return -EBADF;
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < need)
		return -EFBIG;
	return 0;
}

uint64_t vf_peermem_faults(void)
{
	return __atomic_load_n(&nb_faults, __ATOMIC_RELAXED);
}
