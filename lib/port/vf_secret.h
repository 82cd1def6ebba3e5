/* Secrets kept in files, so that they stay off command lines (which every
 * local user can read in /proc/PID/cmdline) and out of shell history. */
#ifndef VF_SECRET_H
#define VF_SECRET_H

#include <stddef.h>

/* The largest secret any driver asks for; a file's bound. */
#define VF_SECRET_MAX 256

/* Reads the secret in path into out (at most max bytes, NUL-terminated, so
 * out holds max + 1).  The file is refused, as ssh refuses a private key,
 * unless it is a regular file owned by us or root that neither group nor
 * other may access (mode 0600, 0400 ...).  One trailing "\n" or "\r\n" is
 * not part of the secret; an empty secret, one longer than max and one
 * with a NUL byte are refused.  Returns the length, or -1 with a message in
 * err that names the file and never shows its content.  Our copies are
 * cleared before return; the caller clears out when done. */
int vf_secret_read_file(const char *path, char *out, size_t max, char *err, size_t errlen);

/* Clears a secret in memory in a way the compiler cannot drop. */
void vf_secret_clear(void *p, size_t n);

#endif
