/* The network form's own checks (policy.h): a network.hosts entry is
 * checked with the egress step's grammar (egress/allow.c), so that
 * `check` accepts exactly what the step serves. */
#include <stdio.h>
#include <string.h>

#include "egress/egress.h"
#include "json.h"
#include "policy.h"

const char *policy_host_refused(const char *s, size_t len)
{
	struct allow a;
	const char *why;

	if (strlen(s) != len)
		return "contains a NUL";
	return allow_parse(s, &a, &why) < 0 ? why : NULL;
}

int policy_hosts_check(const struct json_doc *d, unsigned net, size_t nhosts,
                       void (*problem)(void *ctx, const char *kp, const char *msg),
                       void *ctx)
{
	static const char *const ports[] = { "connect_tcp_ports", "bind_tcp_ports",
	                                     "connect_udp_ports", "bind_udp_ports" };
	unsigned h = json_get(d, net, "hosts");
	char msg[256];

	if (!h)
		return 0;
	for (size_t i = 0; i < sizeof ports / sizeof *ports; i++) {
		if (!json_get(d, net, ports[i]))
			continue;
		snprintf(msg, sizeof msg, "names hosts reached through the egress step, in a "
		         "network namespace of the run's own; network.%s keeps the host's "
		         "network: one or the other", ports[i]);
		problem(ctx, "network.hosts", msg);
	}
	if (json_type(d, h) == JSON_ARRAY && !nhosts)
		problem(ctx, "network.hosts", "is empty: \"network\": \"none\" says no network");
	return 1;
}
