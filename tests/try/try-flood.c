/* try-flood N PATH: a load for the observer of --explain (issue 37): N
 * threads that stat(2) PATH in a loop, each call a traced stop, while
 * SIGTERM is ignored; runs until killed. Prints "flooding" once the
 * threads are started. Exit 1 if they cannot be, 2 on usage errors. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *path;

static void *flood(void *arg)
{
	struct stat st;

	(void)arg;
	for (;;)
		stat(path, &st);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int n;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > 1024) {
		fprintf(stderr, "usage: try-flood N PATH\n");
		return 2;
	}
	path = argv[2];
	signal(SIGTERM, SIG_IGN);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t, NULL, flood, NULL) != 0) {
			perror("try-flood: pthread_create");
			return 1;
		}
	printf("flooding\n");
	fflush(stdout);
	flood(NULL);
	return 0;
}
