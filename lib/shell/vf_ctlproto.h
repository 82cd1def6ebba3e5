/* The control socket's wire format, shared by the server (ctlsock.c) and
 * the client (cmd/vfctl).  docs/control-socket.md is the description.
 *
 * Client to server: one command per line, "\n"-terminated (a "\r" before
 * it is dropped), at most VF_CTL_LINE_MAX - 1 bytes before the newline,
 * text without NUL or other control characters than tab; after the
 * client's half close, a last line without newline counts too.
 *
 * Server to client, per command and in the order they came: the reply's
 * lines, each led by one type byte, then one end line:
 *   '.' TEXT   a line of the command's output (the shell's stdout)
 *   '!' TEXT   a line of its error messages (the shell's stderr)
 *   "=ok"      end of the reply: the command succeeded
 *   "=error"   end of the reply: it failed (unknown, bad arguments, failed)
 * Every line carries its type, so no output can pass for an end line.  A
 * line the server refuses (too long, binary) gets an error reply, and the
 * server then closes the connection. */
#ifndef VF_CTLPROTO_H
#define VF_CTLPROTO_H

#define VF_CTL_LINE_MAX		4096	/* with the newline */
#define VF_CTL_OUT		'.'
#define VF_CTL_ERR		'!'
#define VF_CTL_END		'='
#define VF_CTL_END_OK		"=ok"
#define VF_CTL_END_ERROR	"=error"

#endif
