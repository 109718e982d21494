/* sharness-exec-view: the filesystem the rest of the chain sees. In a new
 * mount namespace, a new root (a tmpfs, or a clone of / when / is a rule)
 * holds only the paths in argv, each bound with the union of its own and its
 * ancestors' rights (-r read-only,noexec; -x read-only; -w read-write; all
 * nosuid,nodev; -P read-only beneath a write path); /proc a fresh procfs,
 * /sys read-only, /dev a minimal one; the links of --symlink; then pivot_root, the
 * old root detached, and the same working directory; set-id files beneath
 * the write paths read-only, the directories above a protected path bound
 * onto themselves (viewguard.c); the files of --file (viewfiles.c). Trusts only argv: the
 * paths are resolved ones (the front end follows trusted symlinks and says
 * so with --symlink), opened here following none. Exit: 125 usage, 126 could not
 * confine or exec, 127 PROGRAM not found; else PROGRAM's own status. */
#include <getopt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/mount.h>

#include "common.h"
#include "helper.h"
#include "rights.h"
#include "statuspipe.h"
#include "text.h"
#include "view.h"

const char *progname = "sharness-exec-view";

#ifndef MNT_DETACH
#define MNT_DETACH 2
#endif

#define ATTR_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | \
	MOUNT_ATTR_NOEXEC)

static struct ent *ents;
static size_t nents;
static struct { char *link, *target; } *links;
static size_t nlinks;
static int test;	/* check mode (-t) */
static unsigned long abi_cap = ~0UL;	/* -A */
static int named_devices;	/* a device node of its own in a read or exec path */

static struct ent *find(const char *path)
{
	for (size_t i = 0; i < nents; i++)
		if (!strcmp(ents[i].path, path))
			return &ents[i];
	return NULL;
}

/* A repeated path is joined to its first in plan(). */
static void add(char *path, unsigned rights)
{
	ents = reallocarray(ents, nents + 1, sizeof *ents);
	if (!ents)
		die(EXIT_REFUSED, "out of memory");
	ents[nents++] = (struct ent){ path, rights, 0, 0, 0, SIZE_MAX };
}

static void add_link(char *link, char *target)
{
	links = reallocarray(links, nlinks + 1, sizeof *links);
	if (!links)
		die(EXIT_REFUSED, "out of memory");
	links[nlinks].link = link;
	links[nlinks++].target = target;
}

/* Each path's rights (viewplan.c). */
static unsigned effective(const char *path)
{
	return plan_effective(ents, nents, path);
}

static __u64 attr_of(const struct ent *e)
{
	__u64 a = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;

	if (!(e->eff & W))
		a |= MOUNT_ATTR_RDONLY;
	if (!(e->eff & (W | X)))
		a |= MOUNT_ATTR_NOEXEC;
	/* Device nodes named one by one work; /dev whole is built below. */
	if (path_beneath(e->path, "/dev"))
		a &= ~(__u64)MOUNT_ATTR_NODEV;
	/* A capability-less uid 0 still passes their permission bits. */
	if (path_beneath(e->path, "/sys") || path_beneath(e->path, "/proc/sys") ||
	    path_beneath(e->path, "/proc/sysrq-trigger") ||
	    path_beneath(e->path, "/proc/irq") || path_beneath(e->path, "/proc/bus"))
		a |= ATTR_RO;
	return a;
}

/* 1 when PATH lies in what the view grants. */
static int granted(const char *path)
{
	return (effective(path) & (R | X | W)) != 0;
}

/* An inherited directory descriptor would reach outside the view
 * (openat(fd, "..") climbs the detached host tree). */
static void refuse_dir_fds(void)
{
	struct stat st;
	int fl;

	for (int fd = 0; fd <= 2; fd++) {
		if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
			diex(EXIT_CONFINE, "refused: descriptor %d is an open "
			     "directory, a way out of the view", fd);
		/* /proc/self/fd/N reopens what it names, anywhere. */
		if ((fl = fcntl(fd, F_GETFL)) >= 0 && (fl & O_PATH))
			diex(EXIT_CONFINE, "refused: descriptor %d is an O_PATH "
			     "descriptor, a way out of the view", fd);
	}
}

/* No mount namespace here: the rest of the chain runs with Landlock alone,
 * which holds connecting to pathname UNIX sockets from ABI 9 on. */
static void no_view(const char *call, int err, size_t nprot, char **next)
{
	int sockets_held = landlock_abi_at_most(abi_cap) >= 9;
	char why[160];

	tmpfs_no_view(err);
	if (files_count())
		die(EXIT_CONFINE, "unable to make a mount namespace, which the files of --file "
		    "(run --passwd-fd, --group-fd) need");
	if (nprot && !view_best)
		die_hint(EXIT_CONFINE, err, "-b (--best-effort) runs without "
		         "them, leaving them writable", "unable to make a mount "
		         "namespace, which the protected paths (-P) need");
	if (geteuid() == 0 && !view_best) {
		snprintf(why, sizeof why, "for a root caller %s outside the policy "
		         "%s critical; -b (--best-effort) runs with Landlock alone",
		         sockets_held ? "chmod" : "chmod and pathname sockets",
		         sockets_held ? "is" : "are");
		die_hint(EXIT_CONFINE, err, why, "unable to make a mount namespace");
	}
	guard_no_view(ents, nents);
	warnx_("no mount namespace available (%s: %s): Landlock alone does "
	       "not hold chmod, utime, xattrs, %sinotify or noexec outside the "
	       "policy%s", call, strerror(err),
	       sockets_held ? "" : "pathname UNIX sockets (beneath write paths too), ",
	       nprot ? "; protected paths dropped" : "");
	if (test)
		check_line("mount=none why=%s: %s", call, strerror(err));
	if (!next[0])
		exit(0);
	xexecvp(next[0], next);
}

/* The options; returns the index of PROGRAM. */
static int parse_args(int argc, char **argv, size_t *nprot)
{
	/* Options without a letter: the table of letters (DESIGN.md 1) gives
	 * -s to sockets and -F to the front end's descriptor. */
	static const struct option longopts[] = {
		{ "symlink", required_argument, NULL, 's' << 8 },
		{ "file", required_argument, NULL, 'F' << 8 },
		{ NULL, 0, NULL, 0 }
	};
	char *eq;
	int opt;

	opterr = 0;
	for (;;) {
		if (optind < argc && !strcmp(argv[optind], "--help"))
			opt = 'h';
		else if ((opt = getopt_long(argc, argv, "+:hbr:x:w:P:s:tA:E:W:T:M:vV", longopts, NULL)) == -1)
			break;
		switch (opt) {
		case 'h':
			puts("usage: " VIEW_USAGE);
			exit(0);
		case 'b': view_best = 1; break;
		case 't': test = 1; break;
		case 'A':
			if (!parse_ulong(optarg, 0, 1000, &abi_cap))
				usage_fail(VIEW_USAGE, "unable to parse -A %s: not an ABI number", optarg);
			break;
		case 'W': walls_fd(optarg, VIEW_USAGE); break;
		case 'E': status_fd(optarg, VIEW_USAGE); break;
		case 'r': case 'x': case 'w':
			add(rule_path(opt, optarg, VIEW_USAGE), rule_grant(opt));
			break;
		case 'P': add(rule_path('P', optarg, VIEW_USAGE), PROT); (*nprot)++; break;
		case 'T': tmpfs_add(rule_path('T', optarg, VIEW_USAGE)); break;
		case 'M': tmpfs_size(optarg); break;
		case 'F' << 8: file_add(optarg); break;
		case 's': keep_add(rule_path('s', optarg, VIEW_USAGE)); break;
		case 'v': view_verbose = 1; break;
		case 'V': view_vcs = 1; break;
		case 's' << 8:
			eq = strchr(optarg, '=');
			if (!eq || !eq[1])
				usage_fail(VIEW_USAGE, "unable to parse --symlink %s: not LINK=TARGET", optarg);
			*eq = '\0';
			add_link(rule_path_named("--symlink", optarg, VIEW_USAGE), strdup(eq + 1));
			break;
		default:
			usage_option(VIEW_USAGE, opt, argv[optind - 1]);
		}
	}
	if (optind >= argc && !test)
		usage_fail(VIEW_USAGE, "no program given");
	for (size_t i = 0; i < nents; i++)
		if ((ents[i].rights & PROT) && !(effective(ents[i].path) & (R | X)))
			usage_fail(VIEW_USAGE, "unable to protect %s: it lies beneath no "
			           "-w path", ents[i].path);
	for (size_t i = 0; i < nents; i++)
		tmpfs_refuse_beneath(ents[i].path);
	return optind;
}

/* A mount namespace of our own, nothing propagating to the host; or, where
 * none can be had, the rest of the chain with Landlock alone. */
static void enter_namespace(size_t nprot, char **next)
{
	int err;

	refuse_dir_fds();
	if (unshare(CLONE_NEWNS) < 0) {
		err = errno;
		if (err != EPERM && err != EINVAL && err != ENOSPC && err != ENOSYS)
			die(EXIT_CONFINE, "unable to unshare the mount namespace");
		no_view("unshare", err, nprot, next);
	}
	/* An outer Landlock domain (a nested run) refuses every mount. */
	if (syscall(SYS_mount, NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) < 0) {
		if (errno != EPERM)
			die(EXIT_CONFINE, "unable to keep the mounts from propagating");
		no_view("mount", errno, nprot, next);
	}
}

/* Each path's effective rights and mount flags, parents first. What /,
 * /proc, /sys or /dev grant whole is made here, not bound; /dev granted
 * nowhere is the default one (DESIGN.md 4.5), made all the same. */
static void plan(void)
{
	static const char *const special[] = { "/proc", "/sys", "/dev" };

	for (size_t i = 0; i < sizeof special / sizeof *special; i++)
		if (!find(special[i]) && (effective(special[i]) & (R | X | W)))
			add(strdup(special[i]), 0);
	if (!find("/dev"))
		add(strdup("/dev"), 0);
	/* a policy path there is bound over the private /dev/shm */
	for (size_t i = 0; i < nents; i++)
		dev_shm_bound |= path_beneath(ents[i].path, "/dev/shm");
	for (size_t i = 0; i < tmpfs_count(); i++)
		add(strdup(tmpfs_path(i)), TMPFS);
	nents = plan_sort(ents, nents);
	plan_rights(ents, nents);
	for (size_t i = 0; i < nents; i++)
		ents[i].attr = attr_of(&ents[i]);
}

/* The new root, a clone of / or a small tmpfs, on top of the old one (so
 * the binds below land in this namespace), as the working directory. */
static void new_root(void)
{
	static const char *const root_opts[] = { "mode", "0755", "size", "1m", NULL };
	struct stat st;
	int root, dir;

	if (nents && !strcmp(ents[0].path, "/") && ents[0].eff) {
		if ((root = clone_host("/", &dir)) < 0)
			die(EXIT_CONFINE, "unable to open /");
		set_attr(root, ents[0].attr, "/");
		ents[0].mounted = 1;
	} else {
		root = new_fs("tmpfs", root_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
		if (root < 0 || fstat(root, &st) < 0)
			die(EXIT_CONFINE, "unable to mount a tmpfs for the new root");
		our_dev[0] = st.st_dev;
	}
	if (sys_move_mount(root, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		die(EXIT_CONFINE, "unable to mount the new root");
	if (fchdir(root) < 0)
		die(EXIT_CONFINE, "unable to change to the new root");
	close(root);
}

/* /dev's usual nodes (null, zero, full, random, urandom, tty), whose
 * ioctls reach no hardware: the ones a minimal /dev has too. */
static int usual_device(dev_t rdev)
{
	unsigned mi = minor(rdev);

	if (major(rdev) == 5)
		return mi == 0;
	return major(rdev) == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9);
}

/* A protected path missing at the start is no mount point: the target
 * could create it beneath its write path and write it there (a .git/config
 * that runs code at the next git command outside). Refused unless -b. */
static void missing_protected(const char *path)
{
	if (!view_best)
		die_hint(EXIT_CONFINE, 0, "create it before the run, or -b (--best-effort) "
		         "runs anyway", "refused: the protected path %s does not exist, so "
		         "nothing holds it: the target could create it and write it", qn(path));
	warnx_("best effort: the protected path %s does not exist: the target may create "
	       "it and write it", qn(path));
}

/* Bind ents[I] from the host (or from a fresh /proc above it), opened
 * following no symlink; a missing path is left out (the landlock step
 * says so). A path its nearest bound ancestor already shows the same way
 * costs nothing (a bound /dev is built, not cloned). */
static void bind_one(size_t i)
{
	struct ent *e = &ents[i], *up = NULL;
	int m, dir;

	for (size_t j = e->up; j != SIZE_MAX && !up; j = ents[j].up)
		if (ents[j].mounted)
			up = &ents[j];
	if (up && up->mounted == 1 && up->attr == e->attr)
		return;
	if (up && !strcmp(up->path, "/proc"))
		m = clone_at(AT_FDCWD, e->path + 1, &dir);
	else
		m = clone_rule(e->path, &dir);
	if (m < 0) {
		if (e->rights & PROT)
			missing_protected(e->path);
		return;
	}
	/* A device is written through a read-only mount all the same;
	 * read-write would only let a root target chmod the host's. */
	if (S_ISCHR(clone_st.st_mode) || S_ISBLK(clone_st.st_mode)) {
		e->attr |= MOUNT_ATTR_RDONLY;
		if (!(e->eff & W) && !usual_device(clone_st.st_rdev))
			named_devices = 1;
	}
	set_attr(m, e->attr, e->path);
	attach(m, e->path, dir);
	close(m);
	e->mounted = 1;
}

/* Each path in tree order: a tmpfs (-T) before the paths beneath it,
 * which are bound on top of it (CWD's directories made in it). */
static void bind_all(const char *cwd)
{
	for (size_t i = 0; i < nents; i++) {
		struct ent *e = &ents[i];
		int dev = !strcmp(e->path, "/dev");
		if (e->rights & TMPFS) {
			mount_tmpfs(e->path, cwd);
			e->mounted = 3;
			continue;
		}
		if (!strcmp(e->path, "/") || (!(e->eff & (R | X | W)) && !dev))
			continue;
		if (!strcmp(e->path, "/proc")) {
			e->mounted = mount_proc(e);
		} else if (dev) {
			mount_dev(e, (e->eff & (R | X | W)) != 0);
			e->mounted = 2;
		} else {
			bind_one(i);
		}
	}
	at_root_forget();
	host_forget();
	for (size_t i = 0; i < nlinks; i++)
		make_link(links[i].link, links[i].target);
	host_links(ents, nents);
}

/* The cwd (its path CWD) in the new root; the root and a built /dev
 * read-only; pivot_root, the old root detached, and chdir to CWD there:
 * never the inherited cwd, whose ".." would climb the detached host tree. */
static void finish(const char *cwd, char *const *next)
{
	const struct ent *dev = find("/dev");
	int cfd;

	/* The root is there already. */
	if (strcmp(cwd, "/")) {
		if ((cfd = at_root(cwd, 1, 1)) < 0)
			die(EXIT_CONFINE, "unable to make the working directory %s in the "
			    "new root", cwd);
		close(cfd);
	}
	if (next[0] && next[0][0] == '/')
		bind_steps(next);
	if (our_dev[0] && sys_setattr(AT_FDCWD, ".", 0, MOUNT_ATTR_RDONLY) < 0)
		die(EXIT_CONFINE, "unable to make the new root read-only");
	if (our_dev[1] && dev && !(dev->eff & W) && (cfd = at_root("/dev", 0, 1)) >= 0) {
		if (sys_setattr(cfd, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY) < 0)
			die(EXIT_CONFINE, "unable to make /dev read-only");
		close(cfd);
	}
	at_root_forget();
	/* The last descriptor this step opens, the old root still here. */
	proc_for_landlock();
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		die(EXIT_CONFINE, "unable to change to the new root");
	if (syscall(SYS_umount2, ".", MNT_DETACH) < 0)
		die(EXIT_CONFINE, "unable to detach the old root");
	/* CWD is absolute: from the new root, which is this process's root
	 * now, whatever the working directory was. */
	if (chdir(cwd) < 0)
		die(EXIT_CONFINE, "unable to change to %s in the new root", cwd);
}

int main(int argc, char **argv)
{
	char cwd[PATH_MAX];
	size_t nprot = 0;
	int next = parse_args(argc, argv, &nprot);

	/* The caller's mount table, before ours is made (viewhold.c). */
	for (size_t i = 0; i < nents; i++)
		if (ents[i].rights & W) {
			suid_mounts_read();
			break;
		}
	view_sockets_held = landlock_abi_at_most(abi_cap) >= 9;
	enter_namespace(nprot, argv + next);
	/* A deleted working directory has no path: the target starts at the
	 * root of the view instead, which is no more than it had. */
	if (!getcwd(cwd, sizeof cwd)) {
		if (errno != ENOENT)
			die(EXIT_CONFINE, "unable to find the working directory");
		strcpy(cwd, "/");
	}
	if (cwd[0] != '/')
		diex(EXIT_CONFINE, "unable to find the working directory: it lies "
		     "outside this process's root");
	plan();
	new_root();
	bind_all(cwd);
	guard_writes(ents, nents);
	files_mount();
	note_ours();
	finish(cwd, argv + next);
	if (!granted(cwd))
		warn_cwd(cwd);
	/* Only this step needs it: the ambient set (raised by the netns step
	 * in a user namespace) would carry it on. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_ADMIN, 0, 0) < 0 &&
	    errno != EINVAL)
		die(EXIT_CONFINE, "unable to drop CAP_SYS_ADMIN from the ambient set");
	walls_note("view", "namespace");
	if (named_devices)
		walls_note("devices", "named");
	if (test) {
		const struct ent *proc = find("/proc");
		check_line("mount=namespace root=%s proc=%s", our_dev[0] ? "tmpfs" : "host",
		           proc && proc->mounted ? "fresh" : "none");
	}
	if (next >= argc)
		return 0;
	xexecvp(argv[next], argv + next);
}
