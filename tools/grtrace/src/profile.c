// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: kprobe profiles (Documentation/grtrace-probe.rst).
 *
 * A profile is a text file, a statement per line, '#' to the end of a
 * line is a comment:
 *
 *   ring NAME [ENGINE] [dev=DEVICE]
 *   probe NAME FUNCTION[%return] [FIELD=FETCHARG]...
 *   filter PROBE FILTER
 *   job PROBE TYPE[,TYPE]... [ring=RING] [ringno=F] [key=F] [seqno=F]
 *       [ctx=F] [status=F]
 *   context PROBE create|schedule|destroy ctx=F [ring=RING] [ringno=F]
 *       [ATTRIBUTE=F]...
 *
 * F names a field of the probe.  Loading checks everything that can be
 * checked without the kernel and stops at the first error, told with its
 * file and line; nothing is traced then.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "profile.h"
#include "utils.h"

#define LINE_MAX_LEN	4096
#define FETCH_MAX_LEN	256
#define FUNC_MAX_LEN	128

struct parser {
	struct gr_profile *p;
	int line;
};

__printf(2, 3) static int perr(const struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "grtrace: %s:%d: ", ps->p->path, ps->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A C identifier short enough for a name. */
static bool is_name(const char *s)
{
	const char *c;

	if (!*s || isdigit((unsigned char)*s) || strlen(s) >= GR_PROF_NAME)
		return false;
	for (c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

static struct gr_prof_probe *find_probe(struct gr_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_probes; i++)
		if (!strcmp(p->probe[i].name, name))
			return &p->probe[i];
	return NULL;
}

static int find_ring(const struct gr_profile *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr_rings; i++)
		if (!strcmp(p->ring[i].name, name))
			return i;
	return GR_PROF_NONE;
}

static int find_field(const struct gr_prof_probe *pr, const char *name)
{
	int i;

	for (i = 0; i < pr->nr_fields; i++)
		if (!strcmp(pr->field[i].name, name))
			return i;
	return GR_PROF_NONE;
}

/* ring NAME [ENGINE] [dev=DEVICE] */
static int parse_ring(struct parser *ps, char **tok, int n)
{
	struct gr_profile *p = ps->p;
	struct gr_prof_ring *r;
	int i, engine;

	if (n < 2)
		return perr(ps, "usage: ring NAME [ENGINE] [dev=DEVICE]");
	if (p->nr_rings == GR_PROF_RINGS)
		return perr(ps, "more than %d rings", GR_PROF_RINGS);
	if (!is_name(tok[1]) || strlen(tok[1]) > 20)
		return perr(ps, "ring name '%s': letters, digits and '_', at most 20", tok[1]);
	if (find_ring(p, tok[1]) != GR_PROF_NONE)
		return perr(ps, "ring '%s' is declared twice", tok[1]);
	r = &p->ring[p->nr_rings];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", tok[1]);
	snprintf(r->dev, sizeof(r->dev), "kprobe");
	r->engine = GRTRACE_ENGINE_OTHER;
	for (i = 2; i < n; i++) {
		if (!strncmp(tok[i], "dev=", 4)) {
			if (!tok[i][4] || strlen(tok[i] + 4) >= sizeof(r->dev))
				return perr(ps, "dev=DEVICE: 1 to %zu characters",
					    sizeof(r->dev) - 1);
			snprintf(r->dev, sizeof(r->dev), "%s", tok[i] + 4);
			continue;
		}
		engine = gr_engine_parse(tok[i]);
		if (engine < 0)
			return perr(ps,
				    "unknown engine '%s' (graphics, compute, copy, video_decode, video_encode, other)",
				    tok[i]);
		r->engine = engine;
	}
	p->nr_rings++;
	return 0;
}

/* probe NAME FUNCTION[%return] [FIELD=FETCHARG]... */
static int parse_probe(struct parser *ps, char **tok, int n)
{
	struct gr_profile *p = ps->p;
	struct gr_prof_probe *pr;
	struct gr_prof_field *f;
	char *func, *eq, *c;
	size_t len;
	int i;

	if (n < 3)
		return perr(ps, "usage: probe NAME FUNCTION[%%return] [FIELD=FETCHARG]...");
	if (p->nr_probes == GR_PROF_PROBES)
		return perr(ps, "more than %d probes", GR_PROF_PROBES);
	if (!is_name(tok[1]))
		return perr(ps, "probe name '%s': letters, digits and '_', at most %d",
			    tok[1], GR_PROF_NAME - 1);
	if (find_probe(p, tok[1]))
		return perr(ps, "probe '%s' is declared twice", tok[1]);
	pr = &p->probe[p->nr_probes];
	memset(pr, 0, sizeof(*pr));
	snprintf(pr->name, sizeof(pr->name), "%s", tok[1]);
	pr->line = ps->line;

	func = tok[2];
	len = strlen(func);
	if (len > 7 && !strcmp(func + len - 7, "%return")) {
		pr->ret = true;
		len -= 7;
	}
	if (!len || len >= FUNC_MAX_LEN)
		return perr(ps, "function name: 1 to %d characters", FUNC_MAX_LEN - 1);
	for (c = func; c < func + len; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.')
			return perr(ps, "'%.*s' is not a function name", (int)len, func);
	if (n - 3 > GR_PROF_FIELDS)
		return perr(ps, "more than %d fields", GR_PROF_FIELDS);
	for (i = 3; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i] || !eq[1])
			return perr(ps, "'%s': a field is NAME=FETCHARG", tok[i]);
		*eq = '\0';
		if (!is_name(tok[i]) || !strncmp(tok[i], "gr_", 3) ||
		    !strncmp(tok[i], "common_", 7))
			return perr(ps,
				    "field name '%s': letters, digits and '_', not gr_* or common_*",
				    tok[i]);
		if (find_field(pr, tok[i]) != GR_PROF_NONE)
			return perr(ps, "field '%s' is given twice", tok[i]);
		if (strlen(eq + 1) >= FETCH_MAX_LEN)
			return perr(ps, "fetch argument of '%s' longer than %d", tok[i],
				    FETCH_MAX_LEN - 1);
		if (strpbrk(eq + 1, "\"'\\"))
			return perr(ps, "fetch argument of '%s': no quotes or backslashes", tok[i]);
		f = &pr->field[pr->nr_fields++];
		snprintf(f->name, sizeof(f->name), "%s", tok[i]);
		f->fetch = gr_strdup(eq + 1);
	}
	func[len] = '\0';
	pr->func = gr_strdup(func);
	p->nr_probes++;
	return 0;
}

/* The probe a filter, job or context statement is about. */
static struct gr_prof_probe *stmt_probe(struct parser *ps, const char *name)
{
	struct gr_prof_probe *pr = find_probe(ps->p, name);

	if (!pr)
		perr(ps, "no probe '%s' above this line", name);
	return pr;
}

/* filter PROBE FILTER: @rest is the filter, the rest of the line */
static int parse_filter(struct parser *ps, char **tok, int n, const char *rest)
{
	struct gr_prof_probe *pr;

	if (n < 3)
		return perr(ps, "usage: filter PROBE FILTER");
	pr = stmt_probe(ps, tok[1]);
	if (!pr)
		return -1;
	if (pr->filter)
		return perr(ps, "probe '%s' has a filter already (join them with &&)", pr->name);
	pr->filter = gr_strdup(rest);
	return 0;
}

static int parse_types(struct parser *ps, char *list, __u32 *mask)
{
	char *save = NULL, *t;
	unsigned int i;

	*mask = 0;
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < GRTRACE_EV_NR; i++)
			if (!strcasecmp(t, gr_type_name(i)))
				break;
		if (i == GRTRACE_EV_NR)
			return perr(ps, "unknown event type '%s' (submit, commit, end, ...)", t);
		if (*mask & BIT(i))
			return perr(ps, "event type '%s' given twice", t);
		*mask |= BIT(i);
	}
	if (!*mask)
		return perr(ps, "no event type");
	return 0;
}

/* KEY=FIELD of a job or context: sets *@idx; returns 1 if @key is not @name */
static int opt_field(struct parser *ps, const struct gr_prof_probe *pr,
		     const char *tok, const char *name, int *idx)
{
	size_t len = strlen(name);

	if (strncmp(tok, name, len) || tok[len] != '=')
		return 1;
	if (*idx != GR_PROF_NONE)
		return perr(ps, "%s= given twice", name);
	*idx = find_field(pr, tok + len + 1);
	if (*idx == GR_PROF_NONE)
		return perr(ps, "probe '%s' has no field '%s'", pr->name, tok + len + 1);
	return 0;
}

static int opt_ring(struct parser *ps, const char *tok, int *ring)
{
	if (strncmp(tok, "ring=", 5))
		return 1;
	*ring = find_ring(ps->p, tok + 5);
	if (*ring == GR_PROF_NONE)
		return perr(ps, "no ring '%s' declared above this line", tok + 5);
	return 0;
}

static struct gr_prof_action *new_action(struct parser *ps, struct gr_prof_probe *pr,
					 enum gr_prof_kind kind)
{
	struct gr_prof_action *a;

	if (!ps->p->nr_rings) {
		perr(ps, "declare a ring first");
		return NULL;
	}
	if (pr->nr_actions == GR_PROF_ACTIONS) {
		perr(ps, "more than %d job and context lines for probe '%s'",
		     GR_PROF_ACTIONS, pr->name);
		return NULL;
	}
	a = &pr->action[pr->nr_actions];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->line = ps->line;
	a->ring = GR_PROF_NONE;
	a->ringno = GR_PROF_NONE;
	a->key = GR_PROF_NONE;
	a->seqno = GR_PROF_NONE;
	a->ctx = GR_PROF_NONE;
	a->status = GR_PROF_NONE;
	return a;
}

/* job PROBE TYPES [ring=R] [ringno=F] [key=F] [seqno=F] [ctx=F] [status=F] */
static int parse_job(struct parser *ps, char **tok, int n)
{
	struct gr_prof_action *a;
	struct gr_prof_probe *pr;
	int i, ret;

	if (n < 3)
		return perr(ps, "usage: job PROBE TYPE[,TYPE]... [OPTION=FIELD]...");
	pr = stmt_probe(ps, tok[1]);
	if (!pr)
		return -1;
	a = new_action(ps, pr, GR_PROF_JOB);
	if (!a || parse_types(ps, tok[2], &a->types))
		return -1;
	for (i = 3; i < n; i++) {
		ret = opt_ring(ps, tok[i], &a->ring);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "ringno", &a->ringno);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "key", &a->key);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "seqno", &a->seqno);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "ctx", &a->ctx);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "status", &a->status);
		if (ret == 1)
			return perr(ps, "unknown job option '%s'", tok[i]);
		if (ret)
			return -1;
	}
	if (a->ring == GR_PROF_NONE)
		a->ring = 0;
	if (a->status != GR_PROF_NONE && !(a->types & (BIT(GRTRACE_EV_COMPLETE) |
						       BIT(GRTRACE_EV_ERROR))))
		return perr(ps, "status= is for complete and error events");
	pr->nr_actions++;
	return 0;
}

/* context PROBE WHAT ctx=F [ring=R] [ringno=F] [ATTRIBUTE=F]... */
static int parse_context(struct parser *ps, char **tok, int n)
{
	struct gr_prof_action *a;
	struct gr_prof_probe *pr;
	int i, ret;
	char *eq;

	if (n < 4)
		return perr(ps, "usage: context PROBE create|schedule|destroy ctx=F [NAME=F]...");
	pr = stmt_probe(ps, tok[1]);
	if (!pr)
		return -1;
	a = new_action(ps, pr, GR_PROF_CTX);
	if (!a)
		return -1;
	for (a->what = 0; a->what < GR_CTX_NR; a->what++)
		if (!strcmp(tok[2], gr_ctx_what_name(a->what)))
			break;
	if (a->what == GR_CTX_NR)
		return perr(ps, "'%s': a context is created, scheduled or destroyed", tok[2]);
	for (i = 3; i < n; i++) {
		ret = opt_ring(ps, tok[i], &a->ring);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "ringno", &a->ringno);
		if (ret == 1)
			ret = opt_field(ps, pr, tok[i], "ctx", &a->ctx);
		if (ret < 0)
			return -1;
		if (!ret)
			continue;
		eq = strchr(tok[i], '=');
		if (!eq)
			return perr(ps, "'%s': an attribute is NAME=FIELD", tok[i]);
		*eq = '\0';
		if (!is_name(tok[i]))
			return perr(ps, "attribute name '%s': letters, digits and '_'", tok[i]);
		if (a->nr_attrs == GR_PROF_ATTRS)
			return perr(ps, "more than %d attributes", GR_PROF_ATTRS);
		snprintf(a->attr[a->nr_attrs], GR_PROF_NAME, "%s", tok[i]);
		a->attr_field[a->nr_attrs] = find_field(pr, eq + 1);
		if (a->attr_field[a->nr_attrs] == GR_PROF_NONE)
			return perr(ps, "probe '%s' has no field '%s'", pr->name, eq + 1);
		a->nr_attrs++;
	}
	if (a->ctx == GR_PROF_NONE)
		return perr(ps, "a context line needs ctx=FIELD");
	if (a->ringno != GR_PROF_NONE && a->ring == GR_PROF_NONE)
		a->ring = 0;
	pr->nr_actions++;
	return 0;
}

/* Split @s at blanks into at most @max tokens; @rest: after the second. */
static int split(char *s, char **tok, int max, const char **rest)
{
	int n = 0;

	*rest = "";
	while (n < max) {
		s += strspn(s, " \t");
		if (!*s)
			break;
		if (n == 2)
			*rest = s;
		tok[n++] = s;
		s += strcspn(s, " \t");
		if (*s)
			*s++ = '\0';
	}
	return *s && n == max ? -1 : n;
}

static int parse_line(struct parser *ps, char *line)
{
	char *tok[GR_PROF_FIELDS + 4], *copy;
	const char *rest;
	int n, ret;

	line[strcspn(line, "#\n")] = '\0';
	copy = gr_strdup(line);
	n = split(line, tok, ARRAY_SIZE(tok), &rest);
	ret = 0;
	if (n < 0)
		ret = perr(ps, "too many words");
	else if (!n)
		ret = 0;
	else if (!strcmp(tok[0], "ring"))
		ret = parse_ring(ps, tok, n);
	else if (!strcmp(tok[0], "probe"))
		ret = parse_probe(ps, tok, n);
	else if (!strcmp(tok[0], "filter"))
		ret = parse_filter(ps, tok, n, copy + (rest - line));
	else if (!strcmp(tok[0], "job"))
		ret = parse_job(ps, tok, n);
	else if (!strcmp(tok[0], "context"))
		ret = parse_context(ps, tok, n);
	else
		ret = perr(ps, "unknown statement '%s' (ring, probe, filter, job, context)",
			   tok[0]);
	free(copy);
	return ret;
}

/* Every probe does something; keyed jobs begin somewhere. */
static int check_profile(struct parser *ps)
{
	struct gr_profile *p = ps->p;
	struct gr_prof_probe *pr;
	bool keyed = false, begins = false;
	int i, j;

	if (!p->nr_probes)
		return perr(ps, "no probe in the profile");
	for (i = 0; i < p->nr_probes; i++) {
		pr = &p->probe[i];
		ps->line = pr->line;
		if (!pr->nr_actions)
			return perr(ps, "probe '%s' has no job or context line", pr->name);
		for (j = 0; j < pr->nr_actions; j++) {
			if (pr->action[j].kind != GR_PROF_JOB || pr->action[j].key == GR_PROF_NONE)
				continue;
			keyed = true;
			begins |= !!(pr->action[j].types & BIT(GRTRACE_EV_SUBMIT));
		}
	}
	if (keyed && !begins)
		return perr(ps, "jobs by key= need a submit event with key= to begin");
	return 0;
}

/*
 * gr_profile_load - read and check the profile @path
 *
 * Returns: 0, or -1 with the problem printed as "FILE:LINE: ...".
 */
int gr_profile_load(struct gr_profile *p, const char *path)
{
	struct parser ps = { .p = p };
	char line[LINE_MAX_LEN];
	FILE *f;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->path = gr_strdup(path);
	f = fopen(path, "r");
	if (!f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		ps.line++;
		if (!strchr(line, '\n') && !feof(f))
			ret = perr(&ps, "line longer than %d characters", LINE_MAX_LEN - 2);
		else
			ret = parse_line(&ps, line);
	}
	if (!ret && ferror(f))
		ret = perr(&ps, "read error");
	fclose(f);
	if (!ret)
		ret = check_profile(&ps);
	return ret;
}

void gr_profile_free(struct gr_profile *p)
{
	int i, j;

	for (i = 0; i < p->nr_probes; i++) {
		for (j = 0; j < p->probe[i].nr_fields; j++)
			free(p->probe[i].field[j].fetch);
		free(p->probe[i].func);
		free(p->probe[i].filter);
	}
	free(p->path);
	memset(p, 0, sizeof(*p));
}

/*
 * gr_profile_args - the fetch arguments of a kprobe of @pr: its fields and
 * gr_comm, the task's name.  Returns: an allocated string.
 */
char *gr_profile_args(const struct gr_prof_probe *pr)
{
	size_t len = 16;
	char *s;
	int i;

	for (i = 0; i < pr->nr_fields; i++)
		len += strlen(pr->field[i].name) + strlen(pr->field[i].fetch) + 2;
	s = gr_zalloc(len);
	for (i = 0; i < pr->nr_fields; i++)
		sprintf(s + strlen(s), "%s=%s ", pr->field[i].name, pr->field[i].fetch);
	strcat(s, "gr_comm=$comm");
	return s;
}
