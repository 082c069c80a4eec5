// vfork + exec with PR_SET_PDEATHSIG, which posix_spawn cannot set.
//
// Between vfork and exec the child shares the parent's memory and runs on its stack, so it
// only makes async-signal-safe system calls and reports a failure through `child_error`
// (the parent is suspended until the child execs or exits). The parent blocks every signal
// around vfork so none of its handlers runs in the child; the child resets every caught or
// ignored signal to its default before unblocking (its handler table is its own copy).
#define _GNU_SOURCE
#include "CProcessSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

static int redirect(const char *path, int flags, int target) {
  int fd = open(path, flags, 0644);
  if (fd < 0) return -1;
  if (fd != target) {
    if (dup2(fd, target) < 0) return -1;
    close(fd);
  }
  return 0;
}

int cps_spawn(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
              const char *stderr_path, int die_with_parent, pid_t *pid) {
  return cps_spawn_in(path, argv, envp, stdout_path, stderr_path, die_with_parent, NULL, pid);
}

int cps_spawn_in(const char *path, char *const argv[], char *const envp[], const char *stdout_path,
                 const char *stderr_path, int die_with_parent, const char *cwd, pid_t *pid) {
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  pid_t parent = getpid();
  volatile int child_error = 0;

  pid_t child = vfork();
  if (child == 0) {
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++) {
      struct sigaction current;
      if (sigaction(sig, NULL, &current) == 0 && current.sa_handler != SIG_DFL) sigaction(sig, &dfl, NULL);
    }
    if (setpgid(0, 0) < 0) goto failed;
    if (die_with_parent) {
      if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) goto failed;
      // The parent may have died before the prctl: then nobody would kill us.
      if (getppid() != parent) _exit(127);
    }
    if (redirect("/dev/null", O_RDONLY, 0) < 0) goto failed;
    if (redirect(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 1) < 0) goto failed;
    if (redirect(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 2) < 0) goto failed;
    if (cwd != NULL && chdir(cwd) < 0) goto failed;
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, NULL);
    execve(path, argv, envp);
  failed:
    child_error = errno ? errno : EINVAL;
    _exit(127);
  }

  int result = 0;
  if (child < 0) {
    result = errno;
  } else if (child_error != 0) {
    // The child failed before exec and has exited: reap it so no zombie is left.
    result = child_error;
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  } else {
    *pid = child;
  }
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  return result;
}
