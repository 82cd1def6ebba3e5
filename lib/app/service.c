/* Running as a service: the control socket (lib/shell/ctlsock.c) and
 * sd_notify(3) for systemd's Type=notify units.  Without libsystemd at
 * build time the notifications are left out; the socket is not. */
#include "service.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef VF_HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "vf_app.h"
#include "vf_ctlsock.h"
#include "vf_event.h"
#include "vf_log.h"
#include "vf_port.h"
#include "vf_watch.h"

static bool started, notified;

static void notify(const char *state)
{
#ifdef VF_HAVE_LIBSYSTEMD
	/* unset_environment 0: a tool started from ours would be no
	 * service of the unit; we start none. */
	int ret = sd_notify(0, state);

	if (ret < 0)
		VF_WARN("sd_notify: %s", strerror(-ret));
	else if (ret > 0)
		notified = true;
#else
	(void)state;
#endif
}

static int ctl_start(struct vf_app *app)
{
	const char *path = app->ctl_given ? app->ctl_path : app->tool->default_ctl;
	struct vf_access a = app->ctl_access;
	char err[256];
	int ret;

	if (!path || !*path)
		return 0;
	/* Who may connect: our own user and root, and the group's members
	 * when --ctl-group names one; the file's mode (0600 unless given) is
	 * the first gate, SO_PEERCRED on accept the second. */
	if (!a.mode_set)
		a.mode = 0600;
	a.nuid = 0;
	a.uid[a.nuid++] = geteuid();
	if (geteuid() != 0)
		a.uid[a.nuid++] = 0;
	a.ngid = 0;
	if (a.group_set)
		a.gid[a.ngid++] = a.group;
	ret = vf_ctlsock_start(&app->ses, path, &a, err, sizeof(err));
	if (ret == 0) {
		VF_INFO("control socket: %s", path);
		return 0;
	}
	if (app->ctl_given) {
		VF_ERR("--ctl: %s", err);
		return -1;
	}
	VF_WARN("no control socket (%s); --ctl PATH gives one elsewhere, --ctl none silences this",
		err);
	return 0;
}

int vf__app_events_start(struct vf_app *app)
{
	const char *ctl = app->ctl_given ? app->ctl_path : app->tool->default_ctl;
	char err[600];

	if (!app->event_file[0] && !(ctl && *ctl))
		return 0;
	if (vf_event_start(app->event_file[0] ? app->event_file : NULL, err, sizeof(err))) {
		VF_ERR("--event-file: %s", err);
		return -1;
	}
	return 0;
}

void vf__app_events_stop(void)
{
	vf_event_stop();
}

int vf__app_service_start(struct vf_app *app)
{
	char status[256];
	const char *ctl;
	unsigned int n = 0;

	if (started)
		return 0;
	if (app->tool->before_service && app->tool->before_service(app))
		return -1;
	if (ctl_start(app))
		return -1;
	started = true;
	for (uint16_t i = 0; i < vf_port_count(); i++)
		if (vf_port_get(i))
			n++;
	ctl = vf_ctlsock_path();
	if (vf_event_on()) {
		struct vf_event ev = {
			.type = VF_EV_READY, .port = VF_EVENT_NO_PORT, .queue = -1,
			.pid = -1, .uid = -1, .gid = -1, .count = n,
		};

		snprintf(ev.path, sizeof(ev.path), "%s", ctl ? ctl : "");
		vf_event_raise(&ev);
		if (vf_session_watch_start())
			VF_WARN("no drop and link events: the watch cannot start");
	}
	snprintf(status, sizeof(status), "READY=1\nSTATUS=%u port%s set up%s%s\nMAINPID=%ld", n,
		 n == 1 ? "" : "s", ctl ? ", control socket " : "", ctl ? ctl : "", (long)getpid());
	notify(status);
	return 0;
}

void vf__app_service_stop(struct vf_app *app)
{
	if (!started)
		return;
	started = false;
	if (notified)
		notify("STOPPING=1\nSTATUS=stopping");
	vf_session_watch_stop();
	if (vf_event_on()) {
		struct vf_event ev = {
			.type = VF_EV_STOPPING, .port = VF_EVENT_NO_PORT, .queue = -1,
			.pid = -1, .uid = -1, .gid = -1,
		};

		vf_event_raise(&ev);
	}
	vf_ctlsock_stop();	/* the monitors get the events so far, then their end */
}
