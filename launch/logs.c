/* A component's output (launch.h): its stdout (after the ready line of a
 * stdout_line component, line.c) and its stderr are pipes the session's
 * init reads, a line at a time, each as "ROLE| LINE" on the launch's
 * stderr and LINE in DIR/ROLE.log with --logs. The init adds the prefix
 * by the pipe a line came on, so it names the role that wrote it; and in
 * LINE a backslash is "\\", a control byte (C0, DEL, either byte of a C1)
 * or a byte that is not part of valid UTF-8 "\xHH": a line cannot end
 * early, move the cursor, or pass for another role's. The same LINE goes
 * to LOGS_DIR/ROLE.log as it comes, for a role that main's read_logs
 * names (session.c makes it). A line longer than
 * LOG_LINE_MAX bytes is cut into lines of that size. The last LOG_TAIL
 * lines of each component are kept, for what "ended before it was ready"
 * says. A stderr that blocks (a full pipe nobody reads) holds the init,
 * as it held the components that wrote to it before. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "launch.h"

void logs_open(struct launch *s, int dir)
{
	char name[MANIFEST_ROLE_MAX + 8];

	for (size_t i = 0; i < s->n; i++)
		s->r[i].log = s->r[i].live = -1;
	if (dir < 0)
		return;
	/* whatever ROLE.log was (a link, a FIFO, a file of a last session),
	 * it goes: the log is a new file of the caller's, 0600 */
	for (size_t i = 0; i + 1 < s->n; i++) {
		struct role *r = &s->r[i];

		snprintf(name, sizeof name, "%s.log", r->c->role);
		if ((unlinkat(dir, name, 0) < 0 && errno != ENOENT) ||
		    (r->log = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		                     O_APPEND | O_CLOEXEC, 0600)) < 0 ||
		    fchown(r->log, getuid(), getgid()) < 0)
			die(EXIT_REFUSED, "unable to make the log %s in --logs's directory. Nothing ran",
			    q(name));
	}
	close(dir);
}

/* The bytes of the UTF-8 sequence at S (of N), 1 for a byte below 0x80,
 * 0 when it is not valid UTF-8 or is a C1 control. */
static size_t sequence(const unsigned char *s, size_t n)
{
	unsigned char b = s[0];
	size_t k = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 :
	           b >= 0xf0 && b <= 0xf4 ? 4 : 0;

	if (k > 1 && (k > n || utf8_check(s, k) != k || (b == 0xc2 && s[1] < 0xa0)))
		return 0;
	return k;
}

/* S's N bytes escaped into OUT, at most MAX bytes of it (an escape or a
 * sequence is never cut); its length, and in *USED the bytes of S taken. */
static size_t escape(char *out, size_t max, const unsigned char *s, size_t n, size_t *used)
{
	size_t o = 0, i = 0, k;

	while (i < n) {
		k = sequence(s + i, n - i);
		if (k == 1 && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\'))
			k = 0;
		if (o + (k ? k : 4) > max)
			break;
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else if (s[i] == '\\') {
			memcpy(out + o, "\\\\", 2);
			o += 2;
			i++;
		} else {
			o += (size_t)snprintf(out + o, 5, "\\x%02x", s[i++]);
		}
	}
	*used = i;
	return o;
}

static void log_line(struct role *r, int err)
{
	char line[MANIFEST_ROLE_MAX + 4 + 4 * LOG_LINE_MAX];
	const unsigned char *s = (const unsigned char *)r->part[err];
	char *tail = r->tail[r->ntail++ % LOG_TAIL];
	size_t pre = (size_t)snprintf(line, sizeof line, "%s| ", r->c->role), n, used;

	n = escape(line + pre, 4 * LOG_LINE_MAX, s, r->plen[err], &used);
	line[pre + n] = '\n';
	/* the tail: as much as fits, "..." after it when that is not all */
	tail[escape(tail, LOG_TAIL_MAX - 4, s, r->plen[err], &used)] = '\0';
	if (used < r->plen[err])
		strcat(tail, "...");
	r->plen[err] = 0;
	/* a full disk, or a closed stderr, loses the line there alone */
	if (r->log >= 0)
		(void)!write_all(r->log, line + pre, n + 1);
	if (r->live >= 0)
		(void)!write_all(r->live, line + pre, n + 1);
	(void)!write_all(2, line, pre + n + 1);
}

void log_bytes(struct role *r, int err, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '\n') {
			log_line(r, err);
			continue;
		}
		if (r->plen[err] == LOG_LINE_MAX)
			log_line(r, err);
		r->part[err][r->plen[err]++] = (char)b[i];
	}
}

void log_flush(struct role *r, int err)
{
	if (r->plen[err])
		log_line(r, err);
}

void log_ended(const struct role *r, char *why, size_t n)
{
	if (WIFSIGNALED(r->status))
		snprintf(why, n, "killed by signal %d", WTERMSIG(r->status));
	else
		snprintf(why, n, "exit status %d", WEXITSTATUS(r->status));
}

void log_tail(const struct role *r)
{
	size_t k = r->ntail < LOG_TAIL ? r->ntail : LOG_TAIL;

	for (size_t i = r->ntail - k; i < r->ntail; i++)
		fprintf(stderr, "  %s| %s\n", r->c->role, r->tail[i % LOG_TAIL]);
	fflush(stderr);
}
