/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The trace.dat writer of libtracecmd is exported by libtracecmd.so (3.1.6
 * through 3.4, same prototypes) but declared only in trace-cmd's private
 * header, which distributions do not ship. These are the declarations we
 * use, written from the documented prototypes. Linking
 * tracecmd/trace-cmd-ustack fails if one of them stops being exported,
 * rather than a trace.dat being silently not written.
 */
#ifndef _TRACECMD_PRIVATE_DECLS_H
#define _TRACECMD_PRIVATE_DECLS_H

#include <stdbool.h>
#include <sys/types.h>

struct tracecmd_output;
struct tracecmd_option;
struct tracecmd_input;

/* glob(3) patterns "system/event"; NULL list = every event */
struct tracecmd_event_list {
	struct tracecmd_event_list	*next;
	const char			*glob;
};

/* Option ids: file-format constants (trace-cmd.dat.v7 documentation). */
enum {
	USTACK_TRACECMD_OPTION_DONE		= 0,
	USTACK_TRACECMD_OPTION_DATE		= 1,
	USTACK_TRACECMD_OPTION_BUFFER		= 3,
	USTACK_TRACECMD_OPTION_TRACECLOCK	= 4,
	USTACK_TRACECMD_OPTION_UNAME		= 5,
	USTACK_TRACECMD_OPTION_OFFSET		= 7,
	USTACK_TRACECMD_OPTION_VERSION		= 9,
	USTACK_TRACECMD_OPTION_PROCMAPS		= 10,
	USTACK_TRACECMD_OPTION_TIME_SHIFT	= 12,
	USTACK_TRACECMD_OPTION_TSC2NSEC		= 14,
	USTACK_TRACECMD_OPTION_HEADER_INFO	= 16,
	USTACK_TRACECMD_OPTION_KALLSYMS		= 19,
	USTACK_TRACECMD_OPTION_PRINTK		= 20,
	USTACK_TRACECMD_OPTION_CMDLINES		= 21,
	USTACK_TRACECMD_OPTION_BUFFER_TEXT	= 22,
};

struct tracecmd_output *tracecmd_output_create(const char *output_file);
/* Before the headers; NULL: libtracefs' tracing directory, looked up again */
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
/* Before the headers; a path that does not exist: no kallsyms stored */
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_set_compression(struct tracecmd_output *handle, const char *compression);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle,
					    unsigned short id, int size, const void *data);
int tracecmd_add_buffer_info(struct tracecmd_output *handle, const char *name, int cpus);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus, char * const *cpu_data_files);
int tracecmd_append_buffer_cpu_data(struct tracecmd_output *handle, const char *name,
				    int cpus, char * const *cpu_data_files);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
void tracecmd_output_close(struct tracecmd_output *handle);

/*
 * Decompressing the chunks of compressed CPU data (ustack-tracedat-cpu.c), with
 * whichever algorithm the file names and the library has. The chunk's
 * layout is the same from 3.1.6 through 3.4.
 */
struct tracecmd_compression;
struct tracecmd_msg_handle;
struct tep_handle;

struct tracecmd_compress_chunk {
	unsigned int		size;		/* decompressed */
	unsigned int		zsize;		/* compressed */
	off_t			zoffset;	/* file offset of its sizes */
	off_t			offset;		/* in the decompressed data */
};

struct tracecmd_compression *tracecmd_compress_alloc(const char *name, const char *version,
						     int fd, struct tep_handle *tep,
						     struct tracecmd_msg_handle *msg_handle);
void tracecmd_compress_destroy(struct tracecmd_compression *handle);
int tracecmd_uncompress_chunk(struct tracecmd_compression *handle,
			      struct tracecmd_compress_chunk *chunk, char *data);

/*
 * A section's block, and the buffer its reader reads (ustack-tracedat.c);
 * a chunk read as a block, for the size it really decompressed to
 * (ustack-tracedat-check.c). tracecmd_compress_buffer_read() takes an int and
 * returns one in 3.1.6, a size_t and a ssize_t in 3.4: declared with the
 * wider argument and the narrower result, which both read the same.
 */
int tracecmd_uncompress_block(struct tracecmd_compression *handle);
void tracecmd_compress_reset(struct tracecmd_compression *handle);
int tracecmd_compress_buffer_read(struct tracecmd_compression *handle, char *dst, size_t len);
int tracecmd_compress_buffer_write(struct tracecmd_compression *handle,
				   const void *data, size_t size);
off_t tracecmd_compress_lseek(struct tracecmd_compression *handle, off_t offset, int whence);

/* The page size of an input: its buffer's own, for a buffer's handle (v7) */
int tracecmd_page_size(struct tracecmd_input *handle);

#endif /* _TRACECMD_PRIVATE_DECLS_H */
