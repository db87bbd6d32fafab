/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Private to lib/: the structure of a trace.dat checked before
 * libtracecmd reads it (ustack-tracedat-check.c), and what the check found where
 * (the layout ustack-tracedat-cpu.c reads CPU data by).
 */
#ifndef _USTACK_TRACEDAT_CHECK_H
#define _USTACK_TRACEDAT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracecmd_compression;

/* Sub-buffers ustack-tracedat-cpu.c reads at once from uncompressed CPU data */
#define USTACK_TRACEDAT_PAGES_PER_READ	16

/* One CPU's data as the buffer option gives it */
struct ustack_tracedat_layout_cpu {
	uint32_t	cpu;
	uint64_t	offset;
	uint64_t	size;		/* without the chunk count, when compressed */
};

/* One buffer option of a version 7 file, "" being the top buffer */
struct ustack_tracedat_layout_buffer {
	char				*name;
	uint32_t			page;
	uint32_t			nr_cpus;
	struct ustack_tracedat_layout_cpu	*cpus;
};

struct ustack_tracedat_layout {
	int				version;
	bool				big;		/* big-endian file */
	bool				compressed;
	unsigned int			lsize;		/* long size of the traced kernel */
	unsigned int			page;		/* the file header's */
	char				compression[64];
	char				compression_version[64];
	/* options that make libtracecmd shift or scale timestamps, latency buffers */
	bool				ts_options;
	bool				latency;
	bool				incomplete;	/* out of memory while filling it in */
	/* file offset of the compressed block of kallsyms; 0: none (v6, uncompressed) */
	uint64_t			kallsyms_block;
	/* bytes the compressed CPU data of every buffer decompresses to */
	uint64_t			cpu_inflated;
	struct ustack_tracedat_layout_buffer	*buffers;
	size_t				nr_buffers;
	size_t				alloc_buffers;
};

int ustack_tracedat_check_file(int fd, char *msg, size_t size);
int ustack_tracedat_check_layout(int fd, struct ustack_tracedat_layout *layout, char *msg, size_t size);
void ustack_tracedat_check_layout_free(struct ustack_tracedat_layout *layout);
int ustack_tracedat_check_chunks(int fd, const struct ustack_tracedat_layout *layout, char *msg, size_t size);
uint64_t ustack_tracedat_check_budget(void);
bool ustack_tracedat_check_commit_fits(uint64_t commit, unsigned int page, unsigned int lsize);
const char *ustack_tracedat_check_chunk_sizes(uint32_t csize, uint32_t usize, uint64_t left,
				       unsigned int page);
ssize_t ustack_tracedat_check_inflate(struct tracecmd_compression *zip, int fd, uint64_t pos,
			       uint32_t usize, char *buf);

#endif /* _USTACK_TRACEDAT_CHECK_H */
