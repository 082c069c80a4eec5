// vfork + exec with PR_SET_PDEATHSIG, which posix_spawn cannot set; or clone into new PID and
// mount namespaces (a container's PID 1) + exec.
//
// Between the fork and exec the child shares the parent's memory and runs on its own or the
// parent's stack, so it only makes async-signal-safe system calls and reports a failure
// through `child_error` (the parent is suspended until the child execs or exits). The parent
// blocks every signal around the fork so none of its handlers runs in the child; the child
// resets every caught or ignored signal to its default before unblocking (its handler table
// is its own copy).
#define _GNU_SOURCE
#include "CProcessSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436  // the same number on every Linux architecture (5.9)
#endif

struct child_args {
  const char *path;
  char *const *argv;
  char *const *envp;
  const char *stdout_path;
  const char *stderr_path;
  const char *cwd;
  int die_with_parent;
  pid_t parent;
  int container;
  long long uid;  // -1: unchanged
  long long gid;  // -1: unchanged
  volatile int child_error;
};

static int redirect(const char *path, int flags, int target) {
  int fd = open(path, flags, 0644);
  if (fd < 0) return -1;
  if (fd != target) {
    if (dup2(fd, target) < 0) return -1;
    close(fd);
  }
  return 0;
}

/// Closes every descriptor from 3 up, as Python's subprocess does with close_fds=True: the
/// harness's other threads open files without O_CLOEXEC (Foundation's writes), and a child
/// spawned meanwhile would inherit them. close_range(2) where the kernel has it (5.9); else
/// each entry of /proc/self/fd, read with raw getdents64 (opendir allocates); else every
/// number below the descriptor limit. Async-signal-safe: it runs between vfork and exec.
static void close_inherited(void) {
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
  int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    char buffer[1024];
    long length;
    while ((length = syscall(SYS_getdents64, dir, buffer, sizeof buffer)) > 0) {
      for (long offset = 0; offset < length;) {
        // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name.
        unsigned short record = *(unsigned short *)(buffer + offset + 16);
        const char *name = buffer + offset + 19;
        int fd = 0, digits = 0;
        for (; *name >= '0' && *name <= '9'; name++, digits++) fd = fd * 10 + (*name - '0');
        if (digits > 0 && *name == '\0' && fd > 2 && fd != dir) close(fd);
        offset += record;
      }
    }
    close(dir);
    if (length == 0) return;
  }
  struct rlimit limit;
  int highest = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? (int)limit.rlim_cur : 65536;
  for (int fd = 3; fd < highest; fd++) close(fd);
}

/// The child's side: only system calls, then exec; never returns.
static int run_child(struct child_args *args) {
  struct sigaction dfl = {0};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; sig++) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) == 0 && current.sa_handler != SIG_DFL) sigaction(sig, &dfl, NULL);
  }
  if (args->container) {
    // Its own /proc, as a container has, without touching the host's mounts: make every
    // mount private to this namespace first, then mount a proc for the new PID namespace.
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) goto failed;
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) goto failed;
  }
  if (setpgid(0, 0) < 0) goto failed;
  // Output files first, as the caller: the artifacts directory may be closed to the user.
  if (redirect("/dev/null", O_RDONLY, 0) < 0) goto failed;
  if (redirect(args->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 1) < 0) goto failed;
  if (redirect(args->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 2) < 0) goto failed;
  if (args->cwd != NULL && chdir(args->cwd) < 0) goto failed;
  close_inherited();
  // Another user's credentials (`user:`): raw system calls, which change only this thread's
  // (the vfork child's) credentials; glibc's setuid would signal the parent's threads. Before
  // PR_SET_PDEATHSIG, which a change of credentials clears.
  if (args->gid >= 0) {
    if (syscall(SYS_setgroups, 0, NULL) < 0) goto failed;
    if (syscall(SYS_setresgid, (gid_t)args->gid, (gid_t)args->gid, (gid_t)args->gid) < 0) goto failed;
  }
  if (args->uid >= 0 && syscall(SYS_setresuid, (uid_t)args->uid, (uid_t)args->uid, (uid_t)args->uid) < 0) goto failed;
  if (args->die_with_parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) goto failed;
    // The parent may have died before the prctl: then nobody would kill us. (In a new PID
    // namespace the parent is outside it and getppid() is 0.)
    if (!args->container && getppid() != args->parent) _exit(127);
  }
  sigset_t empty;
  sigemptyset(&empty);
  sigprocmask(SIG_SETMASK, &empty, NULL);
  execve(args->path, args->argv, args->envp);
failed:
  args->child_error = errno ? errno : EINVAL;
  _exit(127);
}

static int clone_child(void *arg) { return run_child(arg); }

static int spawn(struct child_args *args, pid_t *pid) {
  // The clone child's stack (CLONE_VM: it runs in our memory until it execs).
  size_t stack_size = 256 * 1024;
  void *stack = NULL;
  if (args->container) {
    stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return errno;
  }
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  args->parent = getpid();
  args->child_error = 0;

  pid_t child;
  if (args->container) {
    child = clone(clone_child, (char *)stack + stack_size,
                  CLONE_NEWPID | CLONE_NEWNS | CLONE_VM | CLONE_VFORK | SIGCHLD, args);
  } else {
    child = vfork();
    if (child == 0) run_child(args);
  }

  int result = 0;
  if (child < 0) {
    result = errno;
  } else if (args->child_error != 0) {
    // The child failed before exec and has exited: reap it so no zombie is left.
    result = args->child_error;
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  } else {
    *pid = child;
  }
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  if (stack) munmap(stack, stack_size);
  return result;
}

int cps_spawn(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
              const char *stderr_path, int die_with_parent, pid_t *pid) {
  return cps_spawn_in(path, argv, envp, stdout_path, stderr_path, die_with_parent, NULL, pid);
}

int cps_spawn_in(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                 const char *stderr_path, int die_with_parent, const char *cwd, pid_t *pid) {
  return cps_spawn_as(path, argv, envp, stdout_path, stderr_path, die_with_parent, cwd, 0, -1, -1, pid);
}

int cps_spawn_container(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                        const char *stderr_path, int die_with_parent, const char *cwd, pid_t *pid) {
  return cps_spawn_as(path, argv, envp, stdout_path, stderr_path, die_with_parent, cwd, 1, -1, -1, pid);
}

int cps_spawn_as(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                 const char *stderr_path, int die_with_parent, const char *cwd, int container, long long uid,
                 long long gid, pid_t *pid) {
  struct child_args args = {path, argv, envp, stdout_path, stderr_path, cwd, die_with_parent, 0, container, uid, gid, 0};
  return spawn(&args, pid);
}

int cps_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int cps_wait_readable(int fd, long timeout_us) {
  struct pollfd entry = {.fd = fd, .events = POLLIN, .revents = 0};
  struct timespec timeout = {.tv_sec = timeout_us / 1000000, .tv_nsec = (timeout_us % 1000000) * 1000};
  int ready = ppoll(&entry, 1, &timeout, NULL);
  return ready < 0 ? -1 : ready > 0 ? 1 : 0;
}
