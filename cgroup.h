/* placeholder */
#ifndef SHARNESS_CGROUP_H
#define SHARNESS_CGROUP_H
#endif
