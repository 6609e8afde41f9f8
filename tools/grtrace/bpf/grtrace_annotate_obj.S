/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF object of grtrace-bpf-annotate, linked into the loader so that
 * the tool is one file.  BPF_OBJ is its path, set by the Makefile.
 */
	.section .rodata
	.balign 8
	.global grtrace_annotate_bpf_obj
grtrace_annotate_bpf_obj:
	.incbin BPF_OBJ
	.global grtrace_annotate_bpf_obj_end
grtrace_annotate_bpf_obj_end:
	.section .note.GNU-stack, "", @progbits
