// The floor under `protected-launch`'s start time, for `chaos bench --only whole-process`: the
// system calls LaunchProtection's launch makes (strace of `protected-launch`, 2026-11-29), in
// the same order, and a thread that waits in poll as the SIGTERM watcher does. The writes put
// 4 KiB of filler in the file, not a state: this program's directory is its own.
#define _GNU_SOURCE
#include "CLaunchFloor.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int wake[2] = {-1, -1};

static void on_stop(int signo) {
  (void)signo;
  char byte = 'T';
  ssize_t ignored = write(wake[1], &byte, 1);
  (void)ignored;
}

static void *watch(void *unused) {
  (void)unused;
  struct pollfd descriptor = {.fd = wake[0], .events = POLLIN, .revents = 0};
  char byte;
  for (;;) {
    if (poll(&descriptor, 1, -1) > 0 && read(wake[0], &byte, 1) != 1) return NULL;
  }
}

static void read_small(const char *path) {
  char bytes[4096];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t ignored = read(fd, bytes, sizeof bytes);
  (void)ignored;
  close(fd);
}

int launch_floor_run(const char *directory) {
  // The process's identity.
  read_small("/proc/self/stat");
  read_small("/proc/sys/kernel/random/boot_id");
  // The first update: the directory and its files, checked; locked; read; written.
  int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_PATH | O_DIRECTORY;
  int dir = open(directory, flags);
  if (dir < 0 && mkdir(directory, 0700) == 0) dir = open(directory, flags);
  if (dir < 0) return -1;
  struct stat info;
  fstat(dir, &info);
  int lock = openat(dir, "launch-state.lock", O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0600);
  int state = openat(dir, "launch-state.json", O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock < 0 || state < 0) return -1;
  fstat(lock, &info);
  flock(lock, LOCK_EX | LOCK_NB);
  fstat(state, &info);
  char bytes[8193];
  ssize_t ignored = read(state, bytes, sizeof bytes);
  stat("/proc/self/exe", &info);
  fstatat(dir, "pending-crash-reports", &info, AT_SYMLINK_NOFOLLOW);
  memset(bytes, ' ', 4096);
  ignored = pwrite(state, bytes, 4096, 0);
  flock(lock, LOCK_UN);
  // The SIGTERM watcher: its pipe, its thread, the handler, the wake-up.
  if (pipe2(wake, O_CLOEXEC) != 0) return -1;
  // Detached, as LaunchProtection's QuietThread makes it.
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  (void)pthread_create(&thread, &attributes, watch, NULL);
  pthread_attr_destroy(&attributes);
  struct sigaction action, previous;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, &previous);
  char armed = 'A';
  ignored = write(wake[1], &armed, 1);
  // The second update (`launchingFinished`), then SIGTERM given back.
  flock(lock, LOCK_EX | LOCK_NB);
  fstatat(dir, "launch-state.json", &info, AT_SYMLINK_NOFOLLOW);
  ignored = pread(state, bytes, sizeof bytes, 0);
  ignored = pwrite(state, bytes, 4096, 4096);
  (void)ignored;
  close(state);
  close(lock);
  sigaction(SIGTERM, &previous, NULL);
  return 0;
}
