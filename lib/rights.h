/* Rights and walls (DESIGN.md 4.7): for every right a policy relies on,
 * which walls of a run can hold it, and when. The one table: the landlock
 * step weighs it against the walls that stand in this run (refusing, in
 * strict mode, what none holds), its check line names the wall holding
 * each right (run --check, probe, hello), and its --rights prints the
 * table that sharness-exec-landlock(1) holds itself to (tests/meta/man.bats).
 *
 * The walls before the landlock step note what they stood in the walls
 * record, a memfd the front end hands each step as -W FD ("net=namespace",
 * one line each); a step run by hand without -W stands alone, and the
 * landlock step then weighs Landlock alone. */
#ifndef SHARNESS_RIGHTS_H
#define SHARNESS_RIGHTS_H

#include <stddef.h>

/* The walls besides Landlock. */
#define WALL_VIEW       0x001	/* the view step's mount namespace */
#define WALL_VIEW_NODEV 0x002	/* the view, with no device node of its own
				 * beyond /dev's usual ones in a read or exec
				 * path (the rest is nodev) */
#define WALL_NETNS      0x004	/* a network namespace of the run's own */
#define WALL_SOCKETS    0x008	/* the netns step's filter: AF_UNIX only */
#define WALL_PIDNS      0x010	/* a pid namespace, and the landlock step's
				 * filter refusing kill() at the caller's
				 * process group, which it shares */
#define WALL_IPCNS      0x020	/* an IPC namespace of the run's own */
#define WALL_ALLOWLIST  0x040	/* the object form's socket allowlist, with
				 * no UDP port listed: no UDP socket at all */
#define WALL_SESSION    0x080	/* the caller's network namespace, found to
				 * hold no interface but lo (run --in-session):
				 * a session's loopback, shared with its other
				 * components, abstract sockets and all */

/* When a run relies on a right. */
enum relied { ALWAYS, NONE_FORM, OBJECT_FORM, SOCKET_DIRS, WRITE_PATHS };

/* What nothing holding it means: refusal (126) unless --best-effort; for
 * a root caller only, the others running with the steps' own warning
 * (DESIGN.md 4.5); or always that warning (4.2). */
enum strictness { STRICT, ROOT_STRICT, WARN };

struct right {
	const char *name;	/* in the lines and the report */
	const char *what;	/* for people */
	int abi;		/* the Landlock ABI that holds it, 0 none */
	const char *kernel;	/* the Linux release that brought that ABI */
	unsigned walls;		/* the other walls that hold it */
	enum relied relied;
	enum strictness strict;
};

extern const struct right rights_table[];
extern const size_t nrights;

/* The walls of one run, as the landlock step finds them. */
struct run_walls {
	int abi;		/* Landlock's, 0 without Landlock */
	unsigned stand;		/* WALL_* */
	int object_form, socket_dirs;
	int write_paths;	/* a write rule (-w) */
};

/* Read the walls record (walls_fd's; without one nothing stands) into
 * W->stand. */
void walls_read(struct run_walls *w);
/* Does this run rely on R? */
int right_relied(const struct right *r, const struct run_walls *w);
/* The wall holding R in this run: "landlock", a wall's name, or NULL. */
const char *right_holder(const struct right *r, const struct run_walls *w);
/* The walls that could hold R, for a hint: "Landlock ABI 6 (Linux 6.12)
 * or a pid namespace". */
void right_would(const struct right *r, char *buf, size_t size);

/* sharness-exec-landlock --rights: the table, a right a line, tab-separated:
 * NAME, ABI, KERNEL ("-" without one), what nothing holding it means, and
 * the walls that hold it. */
void rights_print(void);

/* A read or exec path that is, or lies above, a directory where daemons
 * keep their sockets (/run, /var/lib/docker, ...). */
int socket_dir_beneath(const char *path);

/* The walls record, for the steps that stand a wall: -W FD's descriptor
 * (parsed from ARG, refusing with USAGE), then one line per note,
 * KEY=VALUE ("view=namespace", "tmpfs=/tmp"); and whether a step before
 * noted that line. */
void walls_fd(const char *arg, const char *usage);
void walls_note(const char *key, const char *value);
/* 1 when this step was given a walls record (-W). */
int walls_given(void);
int walls_noted(const char *key, const char *value);
/* The value of the first KEY note (a static copy), or NULL: the front
 * end's "listener" (sockscan.h). */
const char *walls_value(const char *key);
/* Close the record, before the target runs; what was read stays known. */
void walls_close(void);
/* The landlock step's --scan FD (parsed from ARG, refusing with USAGE): the
 * front end's socket scan, run beside the chain (front/sockscan.h), says
 * "y" on FD once its finding is in the record. walls_wait reads it
 * before the record is weighed and closes it; without the "y" (the
 * scanner failed, or was killed) nothing says what listens beneath the
 * read and exec paths: refused (126). Without -S it does nothing. */
void walls_scan_fd(const char *arg, const char *usage);
void walls_wait(void);

#endif
