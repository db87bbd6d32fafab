/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The deferred path's recorder: one thread per CPU moves full sub-buffers
 * from per_cpu/cpuN/trace_pipe_raw to "<prefix>.cpuN.XXXXXX" (unique, made
 * by mkstemp()) with splice(2), through a pipe, without copying them to
 * user space or parsing them, the way `trace-cmd record` does. Nothing
 * else waits on it, so a busy consumer cannot make the ring buffer overrun.
 */
#ifndef _USTACK_RECORDER_H
#define _USTACK_RECORDER_H

#include <stdint.h>
#include <sys/types.h>

struct ustack_instance;
struct ustack_recorder;

struct ustack_recorder *ustack_recorder_open(struct ustack_instance *ui, int nr_cpus,
					     int subbuf_size, int commit_size, const char *prefix,
					     unsigned int tick_us);
int ustack_recorder_start(struct ustack_recorder *rec);
/* Thread id of CPU @cpu's thread (to keep it out of system-wide traces). */
pid_t ustack_recorder_tid(const struct ustack_recorder *rec, int cpu);
/* Bytes written to the files so far (for the progress line). */
uint64_t ustack_recorder_bytes(const struct ustack_recorder *rec);
/* errno of the first failed file write so far, or 0 (any thread). */
int ustack_recorder_error(const struct ustack_recorder *rec);
/* Last drain, then join the threads; returns -1 if a file write failed. */
int ustack_recorder_stop(struct ustack_recorder *rec);
/* The per-CPU file names (the array has nr_cpus entries). */
char * const *ustack_recorder_files(const struct ustack_recorder *rec);
void ustack_recorder_free(struct ustack_recorder *rec);

#endif /* _USTACK_RECORDER_H */
