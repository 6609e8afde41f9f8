/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: tables printed as aligned text, CSV or JSON arrays of objects.
 */
#ifndef __GRTRACE_TABLE_H
#define __GRTRACE_TABLE_H

#include <stdio.h>

#include "utils.h"

struct col {
	const char *key;	/* CSV header and JSON member name */
	const char *title;	/* text header */
	int width;		/* text width, negative: left aligned */
	bool num;		/* JSON number; an empty cell is null */
};

/* The output of one command: a JSON object holding all the sections. */
struct out {
	FILE *f;
	enum out_fmt fmt;
	int members;		/* JSON members written at the top level */
	int rows;		/* rows of the current table */
	int tables;
	const struct col *cols;
	int nr_cols;
};

void out_begin(struct out *o, FILE *f, enum out_fmt fmt);
void out_end(struct out *o);
void out_member(struct out *o, const char *key);

void tbl_begin(struct out *o, const char *key, const char *title,
	       const struct col *cols, int nr_cols);
void tbl_row(struct out *o, char * const *cells);
void tbl_end(struct out *o);

const char *cell_ns(const struct out *o, char *buf, size_t len, bool valid, long long ns);

#endif /* __GRTRACE_TABLE_H */
