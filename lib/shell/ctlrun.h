/* The control socket's runner (ctlrun.c): one thread that runs client
 * command lines one at a time and frames their replies; ctlsock.c hands it
 * jobs from the control thread and takes the finished ones back there. */
#ifndef VF_CTLRUN_H
#define VF_CTLRUN_H

#include <stddef.h>

struct vf_session;

struct vf__ctl_job {
	struct vf__ctl_job *next;
	void *owner;		/* the client, for ctlsock.c only */
	char *line;		/* in: one command line, without newline */
	char *reply;		/* out: framed reply (vf_ctlproto.h), malloc'd */
	size_t reply_len;
};

/* Starts the thread; notify_fd (an eventfd) is written after each job is
 * done.  0 or -errno. */
int vf__ctl_runner_start(struct vf_session *ses, int notify_fd);
/* Queues a job (ownership passes until it comes back from _take_done). */
void vf__ctl_runner_submit(struct vf__ctl_job *job);
/* A finished job, or NULL. */
struct vf__ctl_job *vf__ctl_runner_take_done(void);
/* Ends the thread after the job it runs, if any; queued jobs that never
 * ran are freed, finished ones stay for _take_done. */
void vf__ctl_runner_stop(void);
void vf__ctl_job_free(struct vf__ctl_job *job);
/* Appends text to a reply, each of its lines led by type; a missing last
 * newline is added.  Returns 0 or -1 (out of memory, f in error). */
int vf__ctl_frame(FILE *f, char type, const char *text, size_t len);

#endif
