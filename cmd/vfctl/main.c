/* vfctl: the client of the tools' control socket (--ctl).  Sends one
 * command (the words after the options), or every line of a script (-f) or
 * of stdin, and prints each reply: output on stdout, errors on stderr.
 * "monitor" is a reply that does not end: the tool's events, one JSON line
 * each, printed as they come until the tool stops.
 * Exit status: 0 every command succeeded, 1 one failed, 2 usage, no
 * connection, a timeout or a broken reply.  Plain C, no DPDK: the wire
 * format is lib/shell/vf_ctlproto.h (docs/control-socket.md). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "vf_ctlproto.h"

#define EXIT_FAILED 1
#define EXIT_BROKEN 2

struct conn {
	int fd;
	int timeout_ms;
	char buf[65536];
	size_t len, off;
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: vfctl -s PATH [-t SEC] [-f FILE | COMMAND...]\n"
		"       vfctl -s PATH monitor\n"
		"Runs shell commands in a running vfwd, vhostd, memifctl or nullgen through\n"
		"its control socket (--ctl) and prints the replies; monitor prints the tool's\n"
		"events as JSON lines until it stops.\n\n"
		"  -s, --socket PATH   the tool's control socket (vhostd: /run/vhostd.ctl,\n"
		"                      memifctl: /run/memifctl.ctl)\n"
		"  -f, --file FILE     run the commands in FILE, one per line (-: stdin)\n"
		"  -t, --timeout SEC   wait at most SEC for each reply (default 30; monitor\n"
		"                      waits for ever)\n"
		"  -h, --help          this help\n"
		"      --version       print the version\n\n"
		"Without a COMMAND or -f, commands are read from stdin.  Exit status: 0 all\n"
		"succeeded, 1 a command failed, 2 usage, connection or timeout.\n"
		"See vfctl(1).\n");
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until the deadline; false on timeout or error. */
static bool wait_fd(int fd, short events, long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		long left = deadline - now_ms();
		int n;

		if (left <= 0)
			return false;
		n = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
}

static int conn_open(struct conn *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vfctl: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "vfctl: cannot connect to %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static bool send_all(struct conn *c, const char *s, size_t n, long deadline)
{
	while (n) {
		ssize_t k;

		if (!wait_fd(c->fd, POLLOUT, deadline))
			return false;
		k = send(c->fd, s, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0)
			return false;
		s += k;
		n -= (size_t)k;
	}
	return true;
}

/* The next reply line into line (without newline); false on EOF, error or
 * timeout. */
static bool read_line(struct conn *c, char **line, long deadline)
{
	for (;;) {
		char *nl = memchr(c->buf + c->off, '\n', c->len - c->off);
		ssize_t k;

		if (nl) {
			*nl = '\0';
			*line = c->buf + c->off;
			c->off = (size_t)(nl + 1 - c->buf);
			return true;
		}
		if (c->off) {
			memmove(c->buf, c->buf + c->off, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->len == sizeof(c->buf) - 1)	/* a line this long is no reply */
			return false;
		if (!wait_fd(c->fd, POLLIN, deadline))
			return false;
		k = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, MSG_DONTWAIT);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0)
			return false;
		c->len += (size_t)k;
	}
}

/* The command is "monitor" alone: its reply is the event stream. */
static bool is_monitor(const char *cmd, size_t n)
{
	while (n && (*cmd == ' ' || *cmd == '\t'))
		cmd++, n--;
	while (n && (cmd[n - 1] == ' ' || cmd[n - 1] == '\t' || cmd[n - 1] == '\r'))
		n--;
	return n == 7 && !memcmp(cmd, "monitor", 7);
}

/* Sends one command and prints its reply: 0, EXIT_FAILED or EXIT_BROKEN. */
static int run_one(struct conn *c, const char *cmd)
{
	size_t n = strcspn(cmd, "\n");
	bool stream = is_monitor(cmd, n);
	long deadline = stream ? LONG_MAX : now_ms() + c->timeout_ms;
	char *line;

	if (n >= VF_CTL_LINE_MAX) {
		fprintf(stderr, "vfctl: command longer than %d bytes\n", VF_CTL_LINE_MAX - 1);
		return EXIT_BROKEN;
	}
	errno = 0;
	if (!send_all(c, cmd, n, deadline) || !send_all(c, "\n", 1, deadline)) {
		int e = errno;
		long until = now_ms() + 1000;

		/* The server may have said why before it closed (not allowed,
		 * too many clients). */
		while (read_line(c, &line, until))
			if (line[0] == VF_CTL_ERR)
				fprintf(stderr, "%s\n", line + 1);
		fprintf(stderr, "vfctl: cannot send: %s\n", e ? strerror(e) : "timeout");
		return EXIT_BROKEN;
	}
	while (read_line(c, &line, deadline)) {
		if (line[0] == VF_CTL_OUT) {
			puts(line + 1);
			if (stream)	/* a pipe reads each event as it comes */
				fflush(stdout);
		} else if (line[0] == VF_CTL_ERR) {
			fflush(stdout);
			fprintf(stderr, "%s\n", line + 1);
		} else if (!strcmp(line, VF_CTL_END_OK)) {
			fflush(stdout);
			return 0;
		} else if (!strcmp(line, VF_CTL_END_ERROR)) {
			fflush(stdout);
			return EXIT_FAILED;
		} else {
			fprintf(stderr, "vfctl: not a reply line: %.80s\n", line);
			return EXIT_BROKEN;
		}
	}
	fflush(stdout);
	fprintf(stderr, "vfctl: %s\n", now_ms() >= deadline ? "no reply in time (-t)"
		: "the connection closed before the reply ended");
	return EXIT_BROKEN;
}

static int run_stream(struct conn *c, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int status = 0;

	while (getline(&line, &cap, f) > 0) {
		int r = run_one(c, line);

		if (r == EXIT_BROKEN) {
			status = r;
			break;
		}
		if (r > status)
			status = r;
	}
	free(line);
	return status;
}

int main(int argc, char **argv)
{
	static struct conn conn;	/* 64 KiB of buffer: not on the stack */
	struct conn *c = &conn;
	const char *path = NULL, *file = NULL;
	double timeout = 30;
	int i, status;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		bool has_val = i + 1 < argc;

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("vfctl %s\n", VF_VERSION);
			return 0;
		} else if ((!strcmp(a, "-s") || !strcmp(a, "--socket")) && has_val) {
			path = argv[++i];
		} else if ((!strcmp(a, "-f") || !strcmp(a, "--file")) && has_val) {
			file = argv[++i];
		} else if ((!strcmp(a, "-t") || !strcmp(a, "--timeout")) && has_val) {
			char *end;
			timeout = strtod(argv[++i], &end);
			if (*end || !(timeout > 0 && timeout <= 86400)) {
				fprintf(stderr, "vfctl: bad --timeout '%s': expected seconds, 0..86400\n",
					argv[i]);
				return EXIT_BROKEN;
			}
		} else {
			fprintf(stderr, "vfctl: %s option '%s' (try --help)\n",
				has_val ? "unknown" : "missing argument or unknown", a);
			return EXIT_BROKEN;
		}
	}
	if (!path) {
		fprintf(stderr, "vfctl: -s PATH is needed: the tool's control socket (try --help)\n");
		return EXIT_BROKEN;
	}
	if (file && i < argc) {
		fprintf(stderr, "vfctl: give -f FILE or a COMMAND, not both\n");
		return EXIT_BROKEN;
	}
	c->timeout_ms = (int)(timeout * 1000);
	if (conn_open(c, path))
		return EXIT_BROKEN;
	if (i < argc) {
		char cmd[VF_CTL_LINE_MAX + 1] = "";
		size_t n = 0;

		for (; i < argc; i++) {
			int k = snprintf(cmd + n, sizeof(cmd) - n, "%s%s", n ? " " : "", argv[i]);
			if (k < 0 || (size_t)k >= sizeof(cmd) - n || strchr(argv[i], '\n')) {
				fprintf(stderr, "vfctl: the command must be one line under %d bytes\n",
					VF_CTL_LINE_MAX);
				return EXIT_BROKEN;
			}
			n += (size_t)k;
		}
		status = run_one(c, cmd);
	} else if (file && strcmp(file, "-")) {
		FILE *f = fopen(file, "r");

		if (!f) {
			fprintf(stderr, "vfctl: cannot open %s: %s\n", file, strerror(errno));
			return EXIT_BROKEN;
		}
		status = run_stream(c, f);
		fclose(f);
	} else {
		status = run_stream(c, stdin);
	}
	close(c->fd);
	return status;
}
