// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the grtrace trace events of the tracefs instance "grtrace",
 * through libtracefs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "trace.h"
#include "utils.h"

static bool ftrace_has_grtrace(void)
{
	char **systems = tracefs_event_systems(NULL);
	bool found = false;
	int i;

	for (i = 0; systems && systems[i]; i++)
		found |= !strcmp(systems[i], "grtrace");
	tracefs_list_free(systems);
	return found;
}

/*
 * gr_ftrace_events_set - enable or disable the grtrace trace events in the
 * tracefs instance "grtrace", created when needed and kept afterwards so its
 * buffer can be read (trace-cmd show -B grtrace)
 */
int gr_ftrace_events_set(bool enable)
{
	struct tracefs_instance *inst;
	int ret;

	if (!enable && !tracefs_instance_exists(GR_FTRACE_INSTANCE))
		return 0;
	if (!ftrace_has_grtrace()) {
		gr_err_msg("this kernel has no grtrace trace events in tracefs (CONFIG_GRTRACE)\n");
		return -1;
	}
	inst = tracefs_instance_create(GR_FTRACE_INSTANCE);
	if (!inst) {
		gr_err_msg("cannot create the tracefs instance %s: %s\n",
			   GR_FTRACE_INSTANCE, strerror(errno));
		return -1;
	}
	if (enable)
		ret = tracefs_event_enable(inst, "grtrace", NULL);
	else
		ret = tracefs_event_disable(inst, "grtrace", NULL);
	if (ret)
		gr_err_msg("cannot %s the grtrace trace events in instance %s\n",
			   enable ? "enable" : "disable", GR_FTRACE_INSTANCE);
	tracefs_instance_free(inst);
	return ret ? -1 : 0;
}

/*
 * gr_ftrace_events_state - "enabled", "disabled", "partly enabled" or
 * "no instance", for the grtrace events of the "grtrace" instance
 */
const char *gr_ftrace_events_state(void)
{
	struct tracefs_instance *inst;
	const char *state = "unknown";
	char *s;

	if (!tracefs_tracing_dir() || !tracefs_instance_exists(GR_FTRACE_INSTANCE))
		return "no instance";
	inst = tracefs_instance_alloc(NULL, GR_FTRACE_INSTANCE);
	if (!inst)
		return state;
	s = tracefs_instance_file_read(inst, "events/grtrace/enable", NULL);
	if (s && s[0] == '1')
		state = "enabled";
	else if (s && s[0] == '0')
		state = "disabled";
	else if (s && s[0] == 'X')
		state = "partly enabled";
	free(s);
	tracefs_instance_free(inst);
	return state;
}
