// SPDX-License-Identifier: GPL-2.0
/*
 * bench/perfsrc/selfcpu.c: preloaded into a traced workload, appends
 * "PID USER_S SYS_S" of the process (all its threads) at exit to the
 * file $SELFCPU_OUT. The recorder's own CPU is then the recorder run's
 * total (recorder and workload, bench/pipeline/timed) less this: the
 * kernel's sampling work, charged to the traced task, is the workload's
 * and the same for every recorder.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

__attribute__((destructor)) static void selfcpu_report(void)
{
	const char *out = getenv("SELFCPU_OUT");
	struct rusage ru;
	char line[128];
	int fd, len;

	if (!out || getrusage(RUSAGE_SELF, &ru))
		return;
	len = snprintf(line, sizeof(line), "%d %ld.%06ld %ld.%06ld\n", getpid(),
		       (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		       (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) != len)
		len = 0;
	close(fd);
}
