/* unixwait: what a person starting services by hand waits with, for
 * bench/launch.sh's services mode: returns once each PATH, a UNIX
 * socket, accepts a connection, trying each in turn every 10 ms, as
 * launch's probe does for its first second. Exit 1 when one still does
 * not accept after 120 s (a service that died). A benchmark, not a test.
 *
 *   unixwait PATH... */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int accepts(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0 || strlen(path) >= sizeof a.sun_path)
		return -1;
	memcpy(a.sun_path, path, strlen(path));
	ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	long tries = 0;
	int ok = 1;

	for (int i = 1; i < argc && ok >= 0; i++)
		while (!(ok = accepts(argv[i]))) {
			if (++tries > 12000) {
				fprintf(stderr, "unixwait: %s accepts no connection\n", argv[i]);
				return 1;
			}
			nanosleep(&pause, NULL);
		}
	return ok < 0;
}
