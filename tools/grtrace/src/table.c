// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: tables printed as aligned text, CSV or JSON arrays of objects.
 *
 * In JSON the whole output is one object; every table is a member holding
 * an array of row objects.  In CSV the output is one table, as a CSV
 * reader expects: only tables are printed, and a table of the same
 * columns as the one before continues it, without a header of its own
 * (the commands give such tables a column that tells their rows apart
 * and refuse to print tables of other columns in one CSV output).
 */
#include <stdlib.h>
#include <stdio_ext.h>
#include <string.h>

#include "table.h"

void gr_out_begin(struct gr_out *o, FILE *f, enum gr_fmt fmt)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->fmt = fmt;
	/* One thread writes: no lock per call (a row is a few dozen) */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	if (fmt == GR_FMT_JSON)
		fputs("{", f);
}

void gr_out_end(struct gr_out *o)
{
	if (o->fmt == GR_FMT_JSON)
		fputs("\n}\n", o->f);
	free(o->csv_keys);
	o->csv_keys = NULL;
}

/* The tag column's key, then @cols' keys, comma-separated: a CSV header.  To free. */
static char *csv_header(const struct gr_out *o, const struct gr_col *cols, int nr_cols)
{
	size_t len = 1 + (o->tag_key ? strlen(o->tag_key) + 1 : 0);
	char *h;
	int i;

	for (i = 0; i < nr_cols; i++)
		len += strlen(cols[i].key) + 1;
	h = gr_zalloc(len);
	if (o->tag_key)
		strcat(h, o->tag_key);
	for (i = 0; i < nr_cols; i++) {
		if (i || o->tag_key)
			strcat(h, ",");
		strcat(h, cols[i].key);
	}
	return h;
}

/*
 * gr_tbl_tag - in CSV, a first column @key of the next table, @value in
 * each of its rows: what tells its rows from those of another table of the
 * same columns, which CSV prints as one.  Text and JSON leave it out.
 */
void gr_tbl_tag(struct gr_out *o, const char *key, const char *value)
{
	o->tag_key = key;
	o->tag = value;
}

/* JSON: start the next top level member, "key": */
void gr_out_member(struct gr_out *o, const char *key)
{
	fputs(o->members++ ? ",\n" : "\n", o->f);
	gr_json_str(o->f, key);
	fputs(": ", o->f);
}

void gr_tbl_begin(struct gr_out *o, const char *key, const char *title,
		  const struct gr_col *cols, int nr_cols)
{
	char *h;
	int i;

	o->cols = cols;
	o->nr_cols = nr_cols;
	o->rows = 0;
	switch (o->fmt) {
	case GR_FMT_JSON:
		gr_out_member(o, key);
		fputc('[', o->f);
		break;
	case GR_FMT_CSV:
		h = csv_header(o, cols, nr_cols);
		if (o->csv_keys && !strcmp(h, o->csv_keys)) {
			free(h);
			break;
		}
		/* Another table's columns: the command refused them */
		if (o->csv_keys)
			fputc('\n', o->f);
		free(o->csv_keys);
		o->csv_keys = h;
		fprintf(o->f, "%s\n", h);
		break;
	case GR_FMT_TEXT:
		fprintf(o->f, "\n%s\n", title);
		for (i = 0; i < nr_cols; i++)
			fprintf(o->f, i < nr_cols - 1 ? "%*s " : "%*s\n",
				i < nr_cols - 1 ? cols[i].width : 0, cols[i].title);
		break;
	}
	o->tables++;
}

static void json_cell(struct gr_out *o, const struct gr_col *c, const char *s)
{
	gr_json_str(o->f, c->key);
	fputs(": ", o->f);
	if (!c->num)
		gr_json_str(o->f, s);
	else if (!*s || !strcmp(s, "-"))
		fputs("null", o->f);
	else
		fputs(s, o->f);
}

void gr_tbl_row(struct gr_out *o, char * const *cells)
{
	const char *text;
	int i;

	if (o->fmt == GR_FMT_JSON)
		fputs(o->rows ? ",\n  {" : "\n  {", o->f);
	else if (o->fmt == GR_FMT_CSV && o->tag_key)
		gr_csv_str(o->f, o->tag);
	for (i = 0; i < o->nr_cols; i++) {
		switch (o->fmt) {
		case GR_FMT_JSON:
			fputs(i ? ", " : "", o->f);
			json_cell(o, &o->cols[i], cells[i]);
			break;
		case GR_FMT_CSV:
			fputs(i || o->tag_key ? "," : "", o->f);
			gr_csv_str(o->f, cells[i]);
			break;
		case GR_FMT_TEXT:
			text = *cells[i] ? cells[i] : "-";
			fprintf(o->f, i < o->nr_cols - 1 ? "%*s " : "%*s\n",
				i < o->nr_cols - 1 ? o->cols[i].width : 0, text);
			break;
		}
	}
	if (o->fmt == GR_FMT_JSON)
		fputc('}', o->f);
	else if (o->fmt == GR_FMT_CSV)
		fputc('\n', o->f);
	o->rows++;
}

void gr_tbl_end(struct gr_out *o)
{
	o->tag_key = NULL;
	o->tag = NULL;
	if (o->fmt == GR_FMT_JSON)
		fputs(o->rows ? "\n]" : "]", o->f);
	else if (o->fmt == GR_FMT_TEXT && !o->rows)
		fputs("(none)\n", o->f);
}

/*
 * gr_cell_ns - a time for a table cell: microseconds with ns precision in
 * text, ns in CSV and JSON, empty when not @valid
 */
const char *gr_cell_ns(const struct gr_out *o, char *buf, size_t len, bool valid, long long ns)
{
	if (!valid)
		buf[0] = '\0';
	else if (o->fmt == GR_FMT_TEXT)
		snprintf(buf, len, "%s%lld.%03lld", ns < 0 ? "-" : "",
			 (ns < 0 ? -ns : ns) / 1000, (ns < 0 ? -ns : ns) % 1000);
	else
		snprintf(buf, len, "%lld", ns);
	return buf;
}
