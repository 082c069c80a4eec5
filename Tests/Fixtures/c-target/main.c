// c-target: a chaos target written in C, with its own launch counter and no LaunchProtection.
// It follows Docs/Protocol.md only, so the harness never quietly assumes the reference app.
//
//   CHAOS_STATE_DIR   its counter file lives here (count + "unfinished launch" sentinel)
//   CHAOS_EVENTS      NDJSON events, one write(2) per line
//   CHAOS_FAILPOINTS  name=action;...  names: launch.begin, task.load_config, task.serve,
//                     protect.begin; actions: off segv abort exit(n) hang kill
//   CHAOS_APP         {"threshold": N}  (protect mode at count >= N, default 2)
//   CHAOS_LIST_FAILPOINTS=1  prints the failpoints as JSON and exits 0
//
// Its crash handler writes the protocol's `crash` record: return addresses from glibc's
// backtrace() (warmed up at install) and the module map taken with dl_iterate_phdr, so
// `backtrace_contains` can name this file's functions.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *failpoint_names[] = {"launch.begin", "task.load_config", "task.serve", "protect.begin"};
enum { FAILPOINT_COUNT = 4 };
static char failpoint_actions[FAILPOINT_COUNT][64];
static int events_fd = -1;
static char state_path[4096];

static unsigned long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void write_all(int fd, const char *text, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, text, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return;
    }
    text += written;
    length -= (size_t)written;
  }
}

/// One event line: `fields` is the JSON text of the extra fields (may be empty).
static void emit(const char *event, const char *fields) {
  if (events_fd < 0) return;
  char line[1024];
  int length = snprintf(line, sizeof line, "{\"event\":\"%s\",\"pid\":%d,\"t\":%llu%s%s}\n", event, (int)getpid(),
                        now_ns(), fields[0] ? "," : "", fields);
  write_all(events_fd, line, (size_t)length);
}

static void fail(const char *message, const char *detail) {
  fprintf(stderr, "c-target: %s%s\n", message, detail);
  exit(2);
}

// ---- crash capture ---------------------------------------------------------------------

static char module_map[16384];  // the JSON array, rendered at install
static size_t module_map_length;
static char crash_line[32768];  // preallocated: the handler must not malloc

static int add_module(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  uintptr_t low = UINTPTR_MAX, high = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    if (info->dlpi_phdr[i].p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    uintptr_t end = start + info->dlpi_phdr[i].p_memsz;
    if (start < low) low = start;
    if (end > high) high = end;
  }
  char path[4096];
  const char *name = info->dlpi_name;
  if (name == NULL || name[0] == 0) {
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length < 0) return 0;
    path[length] = 0;
    name = path;
  }
  if (name[0] != '/' || high == 0) return 0;
  size_t room = sizeof module_map - module_map_length;
  int length = snprintf(module_map + module_map_length, room, "%s{\"path\":\"%s\",\"base\":\"0x%lx\",\"start\":\"0x%lx\",\"end\":\"0x%lx\"}",
                        module_map_length > 1 ? "," : "", name, (unsigned long)info->dlpi_addr, (unsigned long)low,
                        (unsigned long)high);
  if (length > 0 && (size_t)length < room) module_map_length += (size_t)length;
  return 0;
}

/// Appends text at *cursor; async-signal-safe (no locale, no malloc).
static void put(char **cursor, const char *text) {
  while (*text) *(*cursor)++ = *text++;
}

static void put_number(char **cursor, unsigned long long value, int base) {
  char digits[32];
  int count = 0;
  do {
    digits[count++] = "0123456789abcdef"[value % (unsigned)base];
    value /= (unsigned)base;
  } while (value);
  if (base == 16) put(cursor, "0x");
  while (count) *(*cursor)++ = digits[--count];
}

static void crash_handler(int signal, siginfo_t *info, void *context) {
  (void)context;
  unsigned long long entered = now_ns();
  void *frames[64];
  int count = backtrace(frames, 64);
  unsigned long long unwound = now_ns();
  char *cursor = crash_line;
  put(&cursor, "{\"event\":\"crash\",\"pid\":");
  put_number(&cursor, (unsigned long long)getpid(), 10);
  put(&cursor, ",\"t\":");
  put_number(&cursor, entered, 10);
  put(&cursor, ",\"signal\":");
  put_number(&cursor, (unsigned long long)signal, 10);
  put(&cursor, ",\"signal_name\":\"");
  put(&cursor, signal == SIGSEGV ? "SIGSEGV" : signal == SIGABRT ? "SIGABRT" : signal == SIGBUS ? "SIGBUS" : "SIGILL");
  put(&cursor, "\",\"code\":");
  put_number(&cursor, (unsigned long long)(unsigned)info->si_code, 10);
  put(&cursor, ",\"addr\":\"");
  put_number(&cursor, (unsigned long long)(uintptr_t)info->si_addr, 16);
  put(&cursor, "\",\"thread\":");
  put_number(&cursor, (unsigned long long)syscall(SYS_gettid), 10);
  put(&cursor, ",\"entered\":");
  put_number(&cursor, entered, 10);
  put(&cursor, ",\"unwound\":");
  put_number(&cursor, unwound, 10);
  put(&cursor, ",\"frames\":[");
  for (int i = 0; i < count; i++) {
    if (i) put(&cursor, ",");
    put(&cursor, "\"");
    put_number(&cursor, (unsigned long long)(uintptr_t)frames[i], 16);
    put(&cursor, "\"");
  }
  put(&cursor, "],\"modules\":");
  for (size_t i = 0; i < module_map_length; i++) *cursor++ = module_map[i];
  put(&cursor, ",\"done\":");
  put_number(&cursor, now_ns(), 10);
  put(&cursor, "}\n");
  if (events_fd >= 0) write_all(events_fd, crash_line, (size_t)(cursor - crash_line));
  // Die by the same signal, so the harness sees it.
  struct sigaction dfl = {0};
  dfl.sa_handler = SIG_DFL;
  sigaction(signal, &dfl, NULL);
  raise(signal);
}

static void install_crash_capture(void) {
  module_map_length = 0;
  module_map[module_map_length++] = '[';
  dl_iterate_phdr(add_module, NULL);
  module_map[module_map_length++] = ']';
  void *warm[4];
  backtrace(warm, 4);  // loads libgcc_s now, not inside the handler
  static char alternate_stack[256 * 1024];
  stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
  sigaltstack(&stack, NULL);
  struct sigaction action = {0};
  action.sa_sigaction = crash_handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  int signals[] = {SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &action, NULL);
}

// ---- failpoints ---------------------------------------------------------------------------

static void configure_failpoints(const char *spec) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", spec ? spec : "");
  char *saveptr = NULL;
  for (char *entry = strtok_r(copy, ";", &saveptr); entry; entry = strtok_r(NULL, ";", &saveptr)) {
    char *equals = strchr(entry, '=');
    if (!equals) fail("invalid CHAOS_FAILPOINTS entry (expected name=action): ", entry);
    *equals = 0;
    int found = -1;
    for (int i = 0; i < FAILPOINT_COUNT; i++)
      if (strcmp(entry, failpoint_names[i]) == 0) found = i;
    if (found < 0)
      fail("unknown failpoint (declared: launch.begin, task.load_config, task.serve, protect.begin): ", entry);
    const char *action = equals + 1;
    int code;
    if (strcmp(action, "off") && strcmp(action, "segv") && strcmp(action, "abort") && strcmp(action, "hang") &&
        strcmp(action, "kill") && sscanf(action, "exit(%d)", &code) != 1)
      fail("unknown failpoint action (known: off segv abort exit(n) hang kill): ", action);
    snprintf(failpoint_actions[found], sizeof failpoint_actions[found], "%s", action);
  }
}

static volatile int *volatile null_pointer;

static void failpoint(const char *name) {
  for (int i = 0; i < FAILPOINT_COUNT; i++) {
    if (strcmp(name, failpoint_names[i]) || !failpoint_actions[i][0] || !strcmp(failpoint_actions[i], "off")) continue;
    const char *action = failpoint_actions[i];
    char fields[256];
    snprintf(fields, sizeof fields, "\"name\":\"%s\",\"action\":\"%s\"", name, action);
    emit("failpoint", fields);
    fprintf(stderr, "c-target: failpoint %s fired: %s\n", name, action);
    int code;
    if (!strcmp(action, "segv")) *null_pointer = 1;
    if (!strcmp(action, "abort")) abort();
    if (!strcmp(action, "kill")) kill(getpid(), SIGKILL);
    if (!strcmp(action, "hang"))
      for (;;) pause();
    if (sscanf(action, "exit(%d)", &code) == 1) exit(code);
  }
}

// ---- the launch counter -------------------------------------------------------------------

static void read_state(int *count, int *unfinished) {
  *count = 0;
  *unfinished = 0;
  FILE *file = fopen(state_path, "r");
  if (!file) return;
  if (fscanf(file, "%d %d", count, unfinished) != 2) *count = *unfinished = 0;
  fclose(file);
}

static void write_state(int count, int unfinished) {
  char temporary[4200];
  snprintf(temporary, sizeof temporary, "%s.tmp", state_path);
  int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("cannot write the counter file in CHAOS_STATE_DIR: ", strerror(errno));
  char text[64];
  int length = snprintf(text, sizeof text, "%d %d\n", count, unfinished);
  write_all(fd, text, (size_t)length);
  fsync(fd);
  close(fd);
  rename(temporary, state_path);
}

// ---- the app ----------------------------------------------------------------------------------

// noinline: each must stay a frame of its own, so backtraces name it.
__attribute__((noinline)) static void load_config(void) {
  emit("task_start", "\"task\":\"load_config\"");
  failpoint("task.load_config");
  emit("task_end", "\"task\":\"load_config\"");
}

__attribute__((noinline)) static void serve(void) {
  emit("task_start", "\"task\":\"serve\"");
  failpoint("task.serve");
  emit("task_end", "\"task\":\"serve\"");
}

static void launch(int count) {
  failpoint("launch.begin");
  load_config();
  serve();
  write_state(0, 0);
  (void)count;
  emit("launching_finished", "");
}

int main(void) {
  const char *list = getenv("CHAOS_LIST_FAILPOINTS");
  if (list && strcmp(list, "") && strcmp(list, "0")) {
    printf("{\"accepts_app\":true,\"failpoints\":[\"launch.begin\",\"protect.begin\",\"task.load_config\","
           "\"task.serve\"],\"protocol\":2}\n");
    return 0;
  }
  const char *directory = getenv("CHAOS_STATE_DIR");
  if (!directory || !directory[0]) fail("CHAOS_STATE_DIR is not set", "");
  snprintf(state_path, sizeof state_path, "%s/c-target-counter", directory);
  const char *events = getenv("CHAOS_EVENTS");
  if (events && events[0]) {
    events_fd = open(events, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (events_fd < 0) fail("cannot open CHAOS_EVENTS: ", strerror(errno));
  }
  configure_failpoints(getenv("CHAOS_FAILPOINTS"));
  int threshold = 2;
  const char *app = getenv("CHAOS_APP");
  const char *field = app ? strstr(app, "\"threshold\":") : NULL;
  if (field) threshold = atoi(field + strlen("\"threshold\":"));
  install_crash_capture();

  int count, unfinished;
  read_state(&count, &unfinished);
  if (unfinished) count += 1;  // the previous launch died before finishing
  write_state(count, 1);       // the sentinel, durably, before any launch code
  int protect = count >= threshold;
  char fields[768];
  // Protocol 2: the policy this target keeps — one level at the threshold that repeats, a
  // relaunch after the repair, and no filters (SIGTERM, reboots and new binaries all count).
  snprintf(fields, sizeof fields,
           "\"count\":%d,\"mode\":\"%s\"%s,\"protocol\":2,\"policy\":{\"kind\":\"ladder\",\"levels\":"
           "[{\"name\":\"reset\",\"at\":%d}],\"exhausted\":\"repeat-last-level\",\"relaunches\":true,"
           "\"ignore_termination\":false,\"ignore_reboots\":false,\"reset_on_new_binary\":false}",
           count, protect ? "protect" : "normal", protect ? ",\"level\":1" : "", threshold);
  emit("launch", fields);
  if (protect) {
    snprintf(fields, sizeof fields, "\"count\":%d,\"level\":1", count);
    emit("protect_enter", fields);
    failpoint("protect.begin");
    emit("repair", "\"repair\":\"reset\"");
    emit("protect_finish", "\"level\":1");
    emit("relaunch", "");
  }
  launch(count);
  return 0;
}
