// SPDX-License-Identifier: GPL-2.0
/*
 * The command `trace-cmd ustack -- CMD` launches.
 *
 * It is forked and held before exec until it is in the pid filter and
 * tracing is on: it is traced from its exec on, and nothing else slips in
 * while the filter is still empty. On the fallback path it is also
 * ptraced so that it (its threads, with -c the processes it makes) stops
 * at exit, when its maps can still be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ustack-cmd.h"

struct ustack_child {
	char		**argv;
	pid_t		pid;
	int		go_fd;		/* a byte lets it exec */
	int		err_fd;		/* errno of a failed exec */
	int		sigchld_fd;	/* SIGCHLD, when ptraced */
	bool		ptraced;
	bool		done;
	int		status;
	ustack_exit_fn	at_exit;
	void		*ctx;
};

/* SIGCHLD is read from a signalfd; children get an empty mask back. */
void ustack_child_block_sigchld(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

static void reset_child_signals(void)
{
	sigset_t set;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
}

/*
 * In the child: wait for the go, exec, or report errno and exit. Its
 * copies of the run's ends of the pipes (@go_w, @err_r) go first: with
 * them open, a run that died would leave it waiting forever, holding
 * what it inherited (files of the tracing instance among them).
 */
static void __attribute__((noreturn)) child_main(char **argv, int go, int err,
						 int go_w, int err_r)
{
	ssize_t n;
	char ch;
	int e;

	reset_child_signals();
	close(go_w);
	close(err_r);
	if (read(go, &ch, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	e = errno;
	n = write(err, &e, sizeof(e));
	(void)n;
	_exit(127);
}

/* Whether @path is a file execve() would run: 0, or -1 with errno */
static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;
		return -1;
	}
	return access(path, X_OK);
}

/*
 * @name looked up in $PATH as execvp() does: 0, or -1 with errno; @found,
 * when not NULL, set to the file (malloc'd)
 */
static int find_in_path(const char *name, char **found)
{
	const char *path = getenv("PATH");
	int err = ENOENT;
	char *dirs, *dir, *save, *file;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dirs = strdup(path);
	if (!dirs)
		die("out of memory");
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&file, "%s/%s", dir, name) < 0)
			die("out of memory");
		if (!runnable(file)) {
			if (found)
				*found = file;
			else
				free(file);
			free(dirs);
			return 0;
		}
		/* execvp reports EACCES if some file was found but not runnable */
		if (errno == EACCES)
			err = EACCES;
		free(file);
	}
	free(dirs);
	errno = err;
	return -1;
}

/**
 * ustack_child_check - die unless the command can be run
 * @argv: the command
 *
 * Before any tracing is set up: a typo gets the one-line error alone,
 * not after the notices of a run that never starts. The exec itself
 * still reports what changes in between.
 */
void ustack_child_check(char **argv)
{
	int ret;

	if (!*argv[0])
		ret = -1, errno = ENOENT;
	else if (strchr(argv[0], '/'))
		ret = runnable(argv[0]);
	else
		ret = find_in_path(argv[0], NULL);
	if (ret < 0)
		die("cannot run %s: %s", argv[0], strerror(errno));
}

/**
 * ustack_child_program - the file the command's exec will run
 * @argv: the command (ustack_child_check() passed it)
 *
 * Returns it (malloc'd), or NULL when it is not found now.
 */
char *ustack_child_program(char **argv)
{
	char *file = NULL;

	if (strchr(argv[0], '/'))
		return strdup(argv[0]);
	if (find_in_path(argv[0], &file) < 0)
		return NULL;
	return file;
}

/**
 * ustack_child_fork - start the command, held before its exec
 * @argv: the command
 *
 * Dies when it cannot fork. ustack_child_release() lets it run.
 */
struct ustack_child *ustack_child_fork(char **argv)
{
	struct ustack_child *child = calloc(1, sizeof(*child));
	int go[2], err[2];

	if (!child)
		die("out of memory");
	child->argv = argv;
	child->sigchld_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	child->pid = fork();
	if (child->pid < 0)
		die("fork: %s", strerror(errno));
	if (!child->pid)
		child_main(argv, go[0], err[1], go[1], err[0]);
	close(go[0]);
	close(err[1]);
	child->go_fd = go[1];
	child->err_fd = err[0];
	return child;
}

pid_t ustack_child_pid(const struct ustack_child *child)
{
	return child->pid;
}

/**
 * ustack_child_watch_exit - stop the command's tasks at their exit
 * @child:	the command, not released yet
 * @forks:	the processes it makes too (-c)
 * @fn:		called with each task stopped at its exit
 * @ctx:	passed to @fn
 *
 * Best effort (PTRACE_O_TRACEEXIT: the mm is still there then): ptrace
 * may be restricted, and then tasks exit without a call.
 */
void ustack_child_watch_exit(struct ustack_child *child, bool forks, ustack_exit_fn fn,
			     void *ctx)
{
	sigset_t set;
	long opts;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	child->sigchld_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (child->sigchld_fd < 0)
		return;
	opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACECLONE;
	if (forks)
		opts |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	if (ptrace(PTRACE_SEIZE, child->pid, 0, opts) < 0) {
		close(child->sigchld_fd);
		child->sigchld_fd = -1;
		return;
	}
	child->ptraced = true;
	child->at_exit = fn;
	child->ctx = ctx;
}

/**
 * ustack_child_release - let the command exec
 * @child: the command
 *
 * Dies, with the command reaped, when the exec fails.
 */
void ustack_child_release(struct ustack_child *child)
{
	char ch = 0;
	int status;
	ssize_t n;
	int e;

	if (write(child->go_fd, &ch, 1) != 1)
		die("cannot start %s: %s", child->argv[0], strerror(errno));
	close(child->go_fd);
	n = read(child->err_fd, &e, sizeof(e));
	close(child->err_fd);
	if (n != sizeof(e))
		return;
	/* It may sit in a ptrace exit stop, which SIGKILL does not end. */
	while (waitpid(child->pid, &status, __WALL) == child->pid && WIFSTOPPED(status))
		ptrace(PTRACE_CONT, child->pid, 0, 0);
	child->done = true;
	ustack_signals_child(0);
	die("cannot run %s: %s", child->argv[0], strerror(e));
}

/* Readable on SIGCHLD when ptraced (poll it); -1 otherwise. */
int ustack_child_fd(const struct ustack_child *child)
{
	return child ? child->sigchld_fd : -1;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/*
 * A ptrace stop of the command or of a task it made: report an exit,
 * let new tasks and fork/clone events go on, pass signals on.
 */
static void handle_stop(struct ustack_child *child, pid_t pid, int status)
{
	switch (status >> 16) {
	case PTRACE_EVENT_EXIT:
		if (child->at_exit)
			child->at_exit(pid, child->ctx);
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case PTRACE_EVENT_STOP:
		/* group stop: stay stopped; first stop of a new task: go */
		if (is_stop_signal(WSTOPSIG(status)))
			ptrace(PTRACE_LISTEN, pid, 0, 0);
		else
			ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	case 0:
		ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(status));
		break;
	default:
		ptrace(PTRACE_CONT, pid, 0, 0);
		break;
	}
}

/**
 * ustack_child_reap - handle what happened to the command's tasks
 * @child: the command (may be NULL)
 *
 * Without blocking: stops are handled, the command's exit is noted.
 */
void ustack_child_reap(struct ustack_child *child)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	if (!child)
		return;
	while (child->sigchld_fd >= 0 && read(child->sigchld_fd, &si, sizeof(si)) > 0)
		;
	while (!child->done &&
	       (pid = waitpid(child->ptraced ? -1 : child->pid, &status, WNOHANG | __WALL)) > 0) {
		if (WIFSTOPPED(status)) {
			handle_stop(child, pid, status);
			continue;
		}
		if (pid != child->pid)
			continue;
		child->status = status;
		child->done = true;
		ustack_signals_child(0);
	}
}

bool ustack_child_done(const struct ustack_child *child)
{
	return child && child->done;
}

/**
 * ustack_child_end - our command is ours to end when the run ends first
 * @child: the command (may be NULL)
 *
 * SIGTERM, a second to go, then SIGKILL.
 */
void ustack_child_end(struct ustack_child *child)
{
	int i;

	ustack_child_reap(child);
	if (!child || child->done)
		return;
	kill(child->pid, SIGTERM);
	for (i = 0; i < 50 && !child->done; i++) {
		usleep(20000);
		ustack_child_reap(child);
	}
	if (child->done)
		return;
	kill(child->pid, SIGKILL);
	/* reaping also lets a ptrace exit stop go on */
	for (i = 0; i < 500 && !child->done; i++) {
		usleep(10000);
		ustack_child_reap(child);
	}
}

void ustack_child_free(struct ustack_child *child)
{
	if (!child)
		return;
	if (child->sigchld_fd >= 0)
		close(child->sigchld_fd);
	free(child);
}
