#ifndef C_PROCESS_SPAWN_H
#define C_PROCESS_SPAWN_H

#include <sys/types.h>

/// Starts `path` as the leader of a new process group, with stdin from /dev/null, stdout and
/// stderr to the given files (created/truncated), an empty signal mask and default signal
/// dispositions. With `die_with_parent`, the child gets PR_SET_PDEATHSIG(SIGKILL) before
/// exec: if the calling thread's process dies — even by SIGKILL, which no handler sees —
/// the kernel kills the child, so no target outlives the harness.
///
/// The death signal is tied to the calling *thread*: call it from a thread that outlives the
/// child (the harness spawns and reaps on the same thread).
///
/// Returns 0 and stores the pid, or an errno value (from the child's failed exec included).
int cps_spawn(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
              const char *stderr_path, int die_with_parent, pid_t *pid);

/// `cps_spawn` with a working directory for the child (`cwd`; NULL keeps the caller's).
int cps_spawn_in(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                 const char *stderr_path, int die_with_parent, const char *cwd, pid_t *pid);

/// `cps_spawn_in` as a container runtime starts an image without an init: the child is PID 1
/// of new PID and mount namespaces (clone(CLONE_NEWPID | CLONE_NEWNS)) with its own /proc
/// mounted, every mount private to it. Needs CAP_SYS_ADMIN: EPERM otherwise. When the child
/// (PID 1) dies, the kernel kills every other process of its PID namespace.
int cps_spawn_container(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                        const char *stderr_path, int die_with_parent, const char *cwd, pid_t *pid);

/// `cps_spawn_in` (`container` 0) or `cps_spawn_container` (1), the child running with the
/// credentials `uid` and `gid` (no supplementary groups) when they are not -1 (a scenario's
/// `user:`). Its output files are opened before the change, as the caller. Needs root.
int cps_spawn_as(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                 const char *stderr_path, int die_with_parent, const char *cwd, int container, long long uid,
                 long long gid, pid_t *pid);

/// A descriptor that becomes readable when `pid` (a child of the caller) exits
/// (pidfd_open(2), Linux 5.3), or -1 with errno (ENOSYS on an older kernel or under a seccomp
/// policy that does not know it): the caller then polls waitpid instead.
int cps_pidfd_open(pid_t pid);

/// Waits up to `timeout_us` microseconds for `fd` to become readable (ppoll(2), restarted
/// after a signal with the time left is not needed: the caller loops). Returns 1 readable,
/// 0 timed out, -1 error.
int cps_wait_readable(int fd, long timeout_us);

#endif
