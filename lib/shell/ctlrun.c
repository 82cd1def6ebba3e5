/* The control socket's runner: client command lines run here, one at a
 * time, through the shell's own executor (vf_shell_exec_to), so replies and
 * help are the prompt's.  Not on the control thread: a command may take
 * seconds (stop drains, port attach waits for a peer) and the control
 * thread serves every vhost-user and memif connection. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctlrun.h"
#include "vf_ctlproto.h"
#include "vf_log.h"
#include "vf_shell.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
/* Under lock: FIFO of jobs to run, LIFO of jobs done. */
static struct vf__ctl_job *todo_head, *todo_tail, *done;
static bool stopping, running;
static pthread_t thread;
static int notify;
static struct vf_session *session;

void vf__ctl_job_free(struct vf__ctl_job *job)
{
	if (!job)
		return;
	free(job->line);
	free(job->reply);
	free(job);
}

int vf__ctl_frame(FILE *f, char type, const char *text, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		fputc(type, f);
		fwrite(text + i, 1, n, f);
		fputc('\n', f);
		i += n + (nl ? 1 : 0);
	}
	return ferror(f) ? -1 : 0;
}

/* Runs one line with its output and errors captured, and frames them:
 * errors first, as the prompt shows them (they are printed while the
 * command runs, its output after). */
static void run_job(struct vf__ctl_job *job)
{
	char *out = NULL, *err = NULL;
	size_t out_len = 0, err_len = 0;
	FILE *fo = open_memstream(&out, &out_len), *fe = open_memstream(&err, &err_len);
	FILE *fr = open_memstream(&job->reply, &job->reply_len);
	int ret = -1;

	if (fo && fe && fr)
		ret = vf_shell_exec_to(session, job->line, fo, fe);
	if (fo)
		fclose(fo);
	if (fe)
		fclose(fe);
	if (fr) {
		if (!fo || !fe)
			fputs("!error: out of memory\n", fr);
		vf__ctl_frame(fr, VF_CTL_ERR, err, err_len);
		vf__ctl_frame(fr, VF_CTL_OUT, out, out_len);
		fputs(ret == 0 ? VF_CTL_END_OK "\n" : VF_CTL_END_ERROR "\n", fr);
		if (fclose(fr)) {
			free(job->reply);
			job->reply = NULL;
		}
	}
	if (!job->reply) {	/* out of memory: still an answer */
		job->reply = strdup("!error: out of memory\n" VF_CTL_END_ERROR "\n");
		job->reply_len = job->reply ? strlen(job->reply) : 0;
	}
	free(out);
	free(err);
}

static void *runner_main(void *unused)
{
	uint64_t one = 1;

	pthread_mutex_lock(&lock);
	for (;;) {
		struct vf__ctl_job *job;

		while (!stopping && !todo_head)
			pthread_cond_wait(&cond, &lock);
		if (stopping)
			break;
		job = todo_head;
		todo_head = job->next;
		if (!todo_head)
			todo_tail = NULL;
		pthread_mutex_unlock(&lock);
		run_job(job);
		pthread_mutex_lock(&lock);
		job->next = done;
		done = job;
		if (write(notify, &one, sizeof(one)) < 0 && errno != EAGAIN)
			VF_WARN("ctl socket: wake-up failed: %s", strerror(errno));
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int vf__ctl_runner_start(struct vf_session *ses, int notify_fd)
{
	sigset_t all, old;
	int ret;

	if (running)
		return -EALREADY;
	session = ses;
	notify = notify_fd;
	stopping = false;
	/* Signals stay with the main thread, which turns them into a stop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = pthread_create(&thread, NULL, runner_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return -ret;
	pthread_setname_np(thread, "vf-ctl-run");
	running = true;
	return 0;
}

void vf__ctl_runner_submit(struct vf__ctl_job *job)
{
	job->next = NULL;
	pthread_mutex_lock(&lock);
	if (todo_tail)
		todo_tail->next = job;
	else
		todo_head = job;
	todo_tail = job;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

struct vf__ctl_job *vf__ctl_runner_take_done(void)
{
	struct vf__ctl_job *job;

	pthread_mutex_lock(&lock);
	job = done;
	if (job)
		done = job->next;
	pthread_mutex_unlock(&lock);
	return job;
}

void vf__ctl_runner_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = false;
	while (todo_head) {
		struct vf__ctl_job *j = todo_head;
		todo_head = j->next;
		vf__ctl_job_free(j);
	}
	todo_tail = NULL;
}
