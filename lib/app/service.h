/* Running as a service (service.c): the control socket and systemd's
 * readiness protocol, started once the ports are set up and stopped before
 * they are torn down. */
#ifndef VF_APP_SERVICE_H
#define VF_APP_SERVICE_H

struct vf_app;

/* Records events (vf_event.h) when someone can see them: an --event-file,
 * or a control socket to serve.  Once the control thread runs, before the
 * ports are set up.  0, or -1 when the file cannot be opened (logged). */
int vf__app_events_start(struct vf_app *app);
/* The last events to the file; after the ports are closed. */
void vf__app_events_stop(void);

/* Serves the control socket (--ctl, or the tool's default) and tells the
 * service manager we are ready.  0, or -1 when an explicit --ctl cannot be
 * served (the message is logged); the default path only warns. */
int vf__app_service_start(struct vf_app *app);
/* Tells the service manager we stop, and stops serving (idempotent). */
void vf__app_service_stop(struct vf_app *app);

#endif
