/* try-ipc: SysV shared memory, POSIX message queues and the session keyring,
 * for the tests of the namespace step's IPC namespace and new keyring. The
 * *-make and *-read commands are the caller's side, outside; the *-attack
 * commands are the attacker's, inside: each tries every way it knows to read,
 * change or remove the object and prints one line per attempt, "NAME: ok
 * [DATA]" or "NAME: refused: <errno text>". Exit 0 (2 on usage errors, 1
 * when a caller's-side command fails).
 *
 *   try-ipc shm-make                 a 0600 segment holding "outside secret";
 *                                    prints "KEY ID"
 *   try-ipc shm-read ID              print the segment's text
 *   try-ipc shm-rm ID                remove the segment
 *   try-ipc shm-attack KEY ID        shmget, scan, attach + read, write,
 *                                    remove
 *   try-ipc mq-make NAME             a 0600 queue /NAME with one message,
 *                                    "outside secret"
 *   try-ipc mq-read NAME             print the count, the first message,
 *                                    then remove the queue
 *   try-ipc mq-attack NAME           open, receive, send, unlink
 *   try-ipc mq-rm NAME               remove the queue
 *   try-ipc key-run DESC CMD [ARG...]
 *                                    join a new session keyring, add a user
 *                                    key DESC = "outside secret" to it, run
 *                                    CMD with the key's serial in
 *                                    TRY_IPC_KEY, then print "status N",
 *                                    "after: PAYLOAD" and "linked: yes|no"
 *   try-ipc key-attack DESC SERIAL   search the session keyring, read,
 *                                    update, revoke and unlink the key
 *   try-ipc key-session              describe the session keyring
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/keyctl.h>

#define SECRET "outside secret"
#define SHM_SIZE 4096

static int outcome(const char *name, long rc, const char *data)
{
	if (rc < 0)
		printf("%s: refused: %s\n", name, strerror(errno));
	else
		printf("%s: ok%s%s\n", name, data ? " " : "", data ? data : "");
	return rc < 0;
}

static void fatal(const char *what)
{
	fprintf(stderr, "try-ipc: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long keyctl(int op, unsigned long a, unsigned long b, unsigned long c)
{
	return syscall(SYS_keyctl, op, a, b, c, 0UL);
}

/* --- SysV shared memory --- */

static int shm_make(void)
{
	key_t key;
	int id;
	char *p;

	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	do
		key = (key_t)(0x5e000000 | (rand() & 0xffffff));
	while ((id = shmget(key, SHM_SIZE, IPC_CREAT | IPC_EXCL | 0600)) < 0 && errno == EEXIST);
	if (id < 0)
		fatal("shmget");
	p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		fatal("shmat");
	strcpy(p, SECRET);
	shmdt(p);
	printf("%d %d\n", (int)key, id);
	return 0;
}

static int shm_read(int id)
{
	char *p = shmat(id, NULL, SHM_RDONLY);

	if (p == (void *)-1)
		fatal("shmat");
	printf("%.*s\n", SHM_SIZE, p);
	shmdt(p);
	return 0;
}

static int shm_attack(key_t key, int id)
{
	struct shm_info info;
	struct shmid_ds ds;
	int max, found = 0;
	char *p, buf[64];

	outcome("shmget", shmget(key, 0, 0), NULL);
	/* /proc/sysvipc/shm's way: every index up to the highest in use. */
	max = shmctl(0, SHM_INFO, (struct shmid_ds *)&info);
	for (int i = 0; i <= max; i++)
		if (shmctl(i, SHM_STAT, &ds) == id)
			found = 1;
	printf("scan: %s\n", found ? "found it" : "not found");
	outcome("stat", shmctl(id, IPC_STAT, &ds), NULL);
	p = shmat(id, NULL, 0);
	if (p == (void *)-1) {
		outcome("attach", -1, NULL);
	} else {
		snprintf(buf, sizeof buf, "%.40s", p);
		outcome("attach", 0, buf);
		strcpy(p, "overwritten");
		outcome("write", 0, NULL);
		shmdt(p);
	}
	outcome("remove", shmctl(id, IPC_RMID, NULL), NULL);
	return 0;
}

/* --- POSIX message queues --- */

static void mq_name(char *dst, size_t size, const char *name)
{
	snprintf(dst, size, "/%s", name);
}

static int mq_make(const char *name)
{
	struct mq_attr a = { .mq_maxmsg = 4, .mq_msgsize = 64 };
	char path[256];
	mqd_t q;

	mq_name(path, sizeof path, name);
	q = mq_open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600, &a);
	if (q == (mqd_t)-1)
		fatal("mq_open");
	if (mq_send(q, SECRET, sizeof SECRET - 1, 0) < 0)
		fatal("mq_send");
	mq_close(q);
	return 0;
}

static int mq_read(const char *name)
{
	struct mq_attr a;
	char path[256], buf[64 + 1];
	ssize_t n;
	mqd_t q;

	mq_name(path, sizeof path, name);
	q = mq_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (q == (mqd_t)-1)
		fatal("mq_open");
	if (mq_getattr(q, &a) < 0)
		fatal("mq_getattr");
	printf("messages: %ld\n", (long)a.mq_curmsgs);
	n = mq_receive(q, buf, sizeof buf - 1, NULL);
	if (n < 0)
		fatal("mq_receive");
	printf("%.*s\n", (int)n, buf);
	mq_close(q);
	if (mq_unlink(path) < 0)
		fatal("mq_unlink");
	return 0;
}

static int mq_attack(const char *name)
{
	char path[256], buf[64 + 1];
	ssize_t n;
	mqd_t q;

	mq_name(path, sizeof path, name);
	q = mq_open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	outcome("open", q == (mqd_t)-1 ? -1 : 0, NULL);
	if (q != (mqd_t)-1) {
		n = mq_receive(q, buf, sizeof buf - 1, NULL);
		if (n >= 0)
			buf[n] = '\0';
		outcome("receive", n, n >= 0 ? buf : NULL);
		outcome("send", mq_send(q, "overwritten", 11, 0), NULL);
		mq_close(q);
	}
	outcome("unlink", mq_unlink(path), NULL);
	return 0;
}

/* --- the session keyring --- */

static int key_run(const char *desc, char **cmd)
{
	char buf[256], serial[32];
	long key, n;
	int status;
	pid_t pid;

	if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0)
		fatal("join a new session keyring");
	key = syscall(SYS_add_key, "user", desc, SECRET, sizeof SECRET - 1,
	              KEY_SPEC_SESSION_KEYRING);
	if (key < 0)
		fatal("add_key");
	snprintf(serial, sizeof serial, "%ld", key);
	if (setenv("TRY_IPC_KEY", serial, 1) < 0)
		fatal("setenv");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fatal("fork");
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fatal("exec");
	}
	if (waitpid(pid, &status, 0) < 0)
		fatal("waitpid");
	printf("status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	n = keyctl(KEYCTL_READ, (unsigned long)key, (unsigned long)buf, sizeof buf - 1);
	if (n < 0)
		printf("after: refused: %s\n", strerror(errno));
	else
		printf("after: %.*s\n", (int)(n < (long)sizeof buf ? n : (long)sizeof buf - 1), buf);
	n = keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, (unsigned long)"user",
	           (unsigned long)desc);
	printf("linked: %s\n", n == key ? "yes" : "no");
	return 0;
}

static int key_attack(const char *desc, long key)
{
	char buf[256];
	long n;

	n = keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, (unsigned long)"user",
	           (unsigned long)desc);
	outcome("search", n, NULL);
	n = keyctl(KEYCTL_READ, (unsigned long)key, (unsigned long)buf, sizeof buf - 1);
	if (n >= 0)
		buf[n < (long)sizeof buf ? n : (long)sizeof buf - 1] = '\0';
	outcome("read", n, n >= 0 ? buf : NULL);
	outcome("update", keyctl(KEYCTL_UPDATE, (unsigned long)key,
	                         (unsigned long)"overwritten", 11), NULL);
	/* Link it into our own session keyring: possession, then read. */
	outcome("link", keyctl(KEYCTL_LINK, (unsigned long)key, KEY_SPEC_SESSION_KEYRING, 0), NULL);
	outcome("unlink", keyctl(KEYCTL_UNLINK, (unsigned long)key, KEY_SPEC_SESSION_KEYRING, 0), NULL);
	outcome("revoke", keyctl(KEYCTL_REVOKE, (unsigned long)key, 0, 0), NULL);
	return 0;
}

static int key_session(void)
{
	char buf[256], *desc, *semi;
	long id = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0), n;

	if (id < 0)
		fatal("the session keyring");
	n = keyctl(KEYCTL_DESCRIBE, (unsigned long)id, (unsigned long)buf, sizeof buf - 1);
	if (n < 0)
		fatal("describe the session keyring");
	buf[n < (long)sizeof buf ? n : (long)sizeof buf - 1] = '\0';
	/* type;uid;gid;perm;description: only the type and the name. */
	desc = strrchr(buf, ';');
	desc = desc ? desc + 1 : buf + strlen(buf);
	if ((semi = strchr(buf, ';')))
		*semi = '\0';
	printf("%ld %s %s\n", id, buf, desc);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(op, "shm-make") && argc == 2)
		return shm_make();
	if (!strcmp(op, "shm-read") && argc == 3)
		return shm_read(atoi(argv[2]));
	if (!strcmp(op, "shm-rm") && argc == 3)
		return shmctl(atoi(argv[2]), IPC_RMID, NULL) < 0;
	if (!strcmp(op, "shm-attack") && argc == 4)
		return shm_attack((key_t)atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(op, "mq-make") && argc == 3)
		return mq_make(argv[2]);
	if (!strcmp(op, "mq-read") && argc == 3)
		return mq_read(argv[2]);
	if (!strcmp(op, "mq-rm") && argc == 3) {
		char path[256];
		mq_name(path, sizeof path, argv[2]);
		return mq_unlink(path) < 0;
	}
	if (!strcmp(op, "mq-attack") && argc == 3)
		return mq_attack(argv[2]);
	if (!strcmp(op, "key-run") && argc >= 4)
		return key_run(argv[2], argv + 3);
	if (!strcmp(op, "key-attack") && argc == 4)
		return key_attack(argv[2], atol(argv[3]));
	if (!strcmp(op, "key-session") && argc == 2)
		return key_session();
	fprintf(stderr, "usage: try-ipc shm-make | shm-read ID | shm-rm ID | shm-attack KEY ID |\n"
	        "       mq-make NAME | mq-read NAME | mq-rm NAME | mq-attack NAME |\n"
	        "       key-run DESC CMD [ARG...] | key-attack DESC SERIAL | key-session\n");
	return 2;
}
