/* floor: the kernel's share of a chain step, each doing one thing only and
 * nothing the step checks, reports or guarantees beyond it; then it execs
 * PROGRAM. bench/chain.sh and bench/rules.sh print each step beside its
 * floor: what lies between them is ours. A benchmark, not a test.
 *
 *   floor [-nikpclPS] [-r|-w|-x PATH]... [-s LINK=TARGET]... [--] PROGRAM [ARG...]
 *
 *   -n  a network namespace, lo up          -i  an IPC namespace
 *   -k  a new anonymous session keyring
 *   -p  a pid namespace: one fork for its init, which forks PROGRAM and
 *       waits for it, the parent waiting for init (the two forks the
 *       supervise step needs)
 *   -c  cgroup v1: a memory and a pids cgroup beneath this process's own,
 *       their limits written, one fork for the rest, which moves itself
 *       into both; after it, both removed
 *   -r, -w, -x PATH  without -P: a mount namespace, a tmpfs root, each
 *       PATH bound at itself (-r read-only, nosuid, nodev, noexec; -w
 *       nosuid, nodev; -x read-only, nosuid, nodev; one open_tree, one
 *       mount_setattr and one move_mount each), the -s symlinks (LINK
 *       absolute, its parent there), pivot_root
 *   -l  a Landlock ruleset of the PATHs (read, write, read and execute),
 *       enforced as the landlock step must: the bounding set and the
 *       capability sets emptied, no_new_privs, the step's own seccomp
 *       filter (SECCOMP_TARGET | SECCOMP_DENY_USERNS, seccomp.c), then
 *       landlock_restrict_self
 *   -P  no mount namespace: the PATHs are Landlock rules only
 *   -S  the socket scan's reads below Landlock ABI 9 (front/sockscan.c),
 *       first: each -r and -x PATH not beneath /usr opened as a directory
 *       and its entries read to the end, then /proc/net/unix read
 *
 *   floor -f FILE   nothing but exec the command in FILE, an argument a
 *                   line: a hyperfine command is one argument, which the
 *                   kernel caps at 128 KiB (10,000 rules are more) */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <linux/mount.h>

#include "seccomp.h"

#define MAXP 20000

static const char *paths[MAXP];
static int writes[MAXP], np;	/* 0 -r, 1 -w, 2 -x */
static char *links[16];
static int nl;

static void fail(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	exit(126);
}

static void lo_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", 3);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		fail("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		fail("lo up");
	close(fd);
}

/* PATH (absolute) as directories beneath the new root, the cwd: one
 * mkdir where its parent is there already. */
static void mkdirs(const char *path)
{
	char p[4096];

	if (mkdir(path + 1, 0755) == 0 || errno == EEXIST)
		return;
	snprintf(p, sizeof p, "%s", path + 1);
	for (char *s = p; (s = strchr(s, '/')); *s++ = '/') {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			fail("mkdir");
	}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		fail("mkdir");
}

static void binds(void)
{
	int m;

	int fs;

	/* The new root a tmpfs over the old one, the cwd: absolute paths
	 * still resolve from the old root beneath it, as in the view. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0 ||
	    (fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "size", "1m", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
	                      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0 ||
	    syscall(SYS_move_mount, m, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
	    fchdir(m) < 0)
		fail("mount namespace");
	close(fs);
	close(m);
	for (int i = 0; i < np; i++) {
		struct mount_attr a = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
			(writes[i] == 1 ? 0 : MOUNT_ATTR_RDONLY) |
			(writes[i] == 0 ? MOUNT_ATTR_NOEXEC : 0) };
		m = (int)syscall(SYS_open_tree, AT_FDCWD, paths[i], OPEN_TREE_CLONE |
		                 OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (m < 0 || syscall(SYS_mount_setattr, m, "", AT_EMPTY_PATH | AT_RECURSIVE,
		                     &a, sizeof a) < 0)
			fail(paths[i]);
		mkdirs(paths[i]);
		if (syscall(SYS_move_mount, m, "", AT_FDCWD, paths[i] + 1,
		            MOVE_MOUNT_F_EMPTY_PATH) < 0)
			fail(paths[i]);
		close(m);
	}
	for (int i = 0; i < nl; i++) {
		char *eq = strchr(links[i], '=');
		*eq = '\0';
		if (symlinkat(eq + 1, AT_FDCWD, links[i] + 1) < 0)
			fail(links[i]);
	}
	if (syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0)
		fail("pivot_root");
}

/* What the front end's socket scan reads, and nothing it decides. */
static void scan(void)
{
	static char buf[32768];
	int fd;

	for (int i = 0; i < np; i++) {
		if (writes[i] == 1 || !strncmp(paths[i], "/usr", 4))
			continue;
		if ((fd = open(paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			fail(paths[i]);
		while (syscall(SYS_getdents64, fd, buf, sizeof buf) > 0)
			;
		close(fd);
	}
	if ((fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC)) < 0)
		fail("/proc/net/unix");
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
}

static void landlock(void)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = (1ULL << 16) - 1 };
	int rs = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof ra, 0);

	if (rs < 0)
		fail("landlock_create_ruleset");
	for (int i = 0; i < np; i++) {
		struct landlock_path_beneath_attr pb = {
			.allowed_access = writes[i] == 1 ? ra.handled_access_fs :
				LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
				(writes[i] ? LANDLOCK_ACCESS_FS_EXECUTE : 0),
			.parent_fd = open(paths[i], O_PATH | O_CLOEXEC) };
		if (pb.parent_fd < 0 || syscall(SYS_landlock_add_rule, rs,
		                                LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
			fail(paths[i]);
		close(pb.parent_fd);
	}
	/* What the step cannot leave out: no capability reaches the target
	 * (EINVAL past the last one, EPERM without CAP_SETPCAP), and the
	 * filter of every run. */
	for (int cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
		;
	if (syscall(SYS_capset, &(struct __user_cap_header_struct){ _LINUX_CAPABILITY_VERSION_3, 0 },
	            (struct __user_cap_data_struct[2]){ { 0, 0, 0 }, { 0, 0, 0 } }) < 0)
		fail("capset");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    seccomp_install(SECCOMP_TARGET | SECCOMP_DENY_USERNS) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		fail("landlock_restrict_self");
	close(rs);
}

static int wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, __WALL) < 0)
		if (errno != EINTR)
			fail("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static pid_t spawn(char **argv)
{
	pid_t pid = fork();

	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		execvp(argv[0], argv);
		fail(argv[0]);
	}
	return pid;
}

/* A v1 hierarchy's cgroup of this process (CONTROLLER's line of
 * /proc/self/cgroup), with DIR the child made there. */
static void cg_dir(const char *controller, char *dir, size_t n)
{
	char line[4096], *p;
	FILE *f = fopen("/proc/self/cgroup", "re");

	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if ((p = strchr(line, ':')) && !strncmp(p + 1, controller, strlen(controller)) &&
		    p[1 + strlen(controller)] == ':') {
			p += 2 + strlen(controller);
			snprintf(dir, n, "/sys/fs/cgroup/%s%s/floor.%d", controller,
			         strcmp(p, "/") ? p : "", (int)getpid());
			fclose(f);
			return;
		}
	}
	errno = ENOENT;
	fail(controller);
}

static void put(const char *dir, const char *file, const char *val)
{
	char p[4200];
	int fd;

	snprintf(p, sizeof p, "%s/%s", dir, file);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0 || write(fd, val, strlen(val)) < 0)
		fail(p);
	close(fd);
}

/* Returns in the child, moved into both, which goes on; the parent
 * waits for it and removes them. */
static void cgroups(void)
{
	char mem[4096], pids[4096];
	pid_t pid;
	int st;

	cg_dir("memory", mem, sizeof mem);
	cg_dir("pids", pids, sizeof pids);
	if (mkdir(mem, 0755) < 0 || mkdir(pids, 0755) < 0)
		fail("mkdir");
	put(mem, "memory.limit_in_bytes", "536870912");
	put(pids, "pids.max", "256");
	if ((pid = fork()) < 0)
		fail("fork");
	if (pid == 0) {
		/* "tasks": one thread, without cgroup.procs's lock on every
		 * thread group (an RCU grace period) */
		put(mem, "tasks", "0");
		put(pids, "tasks", "0");
		return;
	}
	st = wait_for(pid);
	if (rmdir(mem) < 0 || rmdir(pids) < 0)
		fail("rmdir");
	exit(st);
}

static void run_file(const char *file)
{
	static char buf[4 << 20], *args[40000];
	int fd = open(file, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);

	if (len <= 0)
		fail(file);
	buf[len] = '\0';
	for (char *p = buf, *eol; *p && n < 39999; p = eol + 1) {
		args[n++] = p;
		if (!(eol = strchr(p, '\n')))
			break;
		*eol = '\0';
	}
	args[n] = NULL;
	execvp(args[0], args);
	fail(args[0]);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-f"))
		run_file(argv[2]);

	int net = 0, ipc = 0, key = 0, pid = 0, cg = 0, ll = 0, nomnt = 0, sc = 0, opt;

	while ((opt = getopt(argc, argv, "+nikpclPSr:s:w:x:")) != -1) {
		switch (opt) {
		case 'n': net = 1; break;
		case 'i': ipc = 1; break;
		case 'k': key = 1; break;
		case 'p': pid = 1; break;
		case 'c': cg = 1; break;
		case 'l': ll = 1; break;
		case 'P': nomnt = 1; break;
		case 'S': sc = 1; break;
		case 's':
			if (nl == 16 || !strchr(optarg, '=') || *optarg != '/')
				return 125;
			links[nl++] = optarg;
			break;
		case 'r': case 'w': case 'x':
			if (np == MAXP)
				return 125;
			writes[np] = opt == 'w' ? 1 : opt == 'x' ? 2 : 0;
			paths[np++] = optarg;
			break;
		default: return 125;
		}
	}
	argv += optind;
	if (!*argv)
		return 125;
	if (sc)
		scan();
	if ((net || ipc) && unshare((net ? CLONE_NEWNET : 0) | (ipc ? CLONE_NEWIPC : 0)) < 0)
		fail("unshare");
	if (net)
		lo_up();
	if (key && syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
		fail("keyctl");
	if (cg)
		cgroups();
	if (pid) {
		pid_t init;
		if (unshare(CLONE_NEWPID) < 0 || (init = fork()) < 0)
			fail("pid namespace");
		if (init)
			return wait_for(init);
	}
	if (np && !nomnt)
		binds();
	if (ll)
		landlock();
	if (pid)
		return wait_for(spawn(argv));
	execvp(argv[0], argv);
	fail(argv[0]);
}
