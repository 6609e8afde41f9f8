/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: tables printed as aligned text, CSV or JSON arrays of objects.
 */
#ifndef __GRTRACE_TABLE_H
#define __GRTRACE_TABLE_H

#include <stdio.h>

#include "utils.h"

struct gr_col {
	const char *key;	/* CSV header and JSON member name */
	const char *title;	/* text header */
	int width;		/* text width, negative: left aligned */
	bool num;		/* JSON number; an empty cell is null */
};

/* The output of one command: a JSON object holding all the sections. */
struct gr_out {
	FILE *f;
	enum gr_fmt fmt;
	int members;		/* JSON members written at the top level */
	int rows;		/* rows of the current table */
	int tables;
	const struct gr_col *cols;
	int nr_cols;
	char *csv_keys;		/* CSV: the header printed */
	const char *tag_key;	/* CSV: the next table's first column */
	const char *tag;	/* and its value in every row */
};

void gr_out_begin(struct gr_out *o, FILE *f, enum gr_fmt fmt);
void gr_out_end(struct gr_out *o);
void gr_out_member(struct gr_out *o, const char *key);

void gr_tbl_begin(struct gr_out *o, const char *key, const char *title,
		  const struct gr_col *cols, int nr_cols);
void gr_tbl_tag(struct gr_out *o, const char *key, const char *value);
void gr_tbl_row(struct gr_out *o, char * const *cells);
void gr_tbl_end(struct gr_out *o);

const char *gr_cell_ns(const struct gr_out *o, char *buf, size_t len, bool valid, long long ns);

#endif /* __GRTRACE_TABLE_H */
