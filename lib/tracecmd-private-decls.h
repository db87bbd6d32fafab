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
	USTACK_TRACECMD_OPTION_VERSION		= 9,
	USTACK_TRACECMD_OPTION_PROCMAPS		= 10,
	USTACK_TRACECMD_OPTION_HEADER_INFO	= 16,
	USTACK_TRACECMD_OPTION_PRINTK		= 20,
	USTACK_TRACECMD_OPTION_CMDLINES		= 21,
	USTACK_TRACECMD_OPTION_BUFFER_TEXT	= 22,
};

struct tracecmd_output *tracecmd_output_create(const char *output_file);
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

#endif /* _TRACECMD_PRIVATE_DECLS_H */
