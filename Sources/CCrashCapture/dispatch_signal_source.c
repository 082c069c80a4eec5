// A Dispatch signal source for SIGTERM, made through libdispatch's C API reached by weak
// references: the library links no libdispatch (whose constructor would run in every process
// that links the library), and libdispatch can own a signal only in a process that has it. In
// such a process (an app that made a Dispatch signal source: swift-service-lifecycle, Vapor),
// the references resolve to the app's libdispatch; elsewhere they are null and no source is
// made. Not called from a signal handler.
#include "CCrashCapture.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

// libdispatch's own declarations (dispatch/source.h, object.h, queue.h), with its object types
// as plain pointers: a transparent union of pointers is passed as a pointer.
extern const char _dispatch_source_type_signal __attribute__((weak));
extern void *dispatch_queue_create(const char *label, void *attributes) __attribute__((weak));
extern void *dispatch_source_create(const void *type, uintptr_t handle, uintptr_t mask, void *queue)
    __attribute__((weak));
extern void dispatch_set_context(void *object, void *context) __attribute__((weak));
extern void dispatch_set_finalizer_f(void *object, void (*finalizer)(void *)) __attribute__((weak));
extern void dispatch_source_set_event_handler_f(void *source, void (*handler)(void *)) __attribute__((weak));
extern void dispatch_source_set_registration_handler_f(void *source, void (*handler)(void *))
    __attribute__((weak));
extern void dispatch_resume(void *object) __attribute__((weak));
extern void dispatch_source_cancel(void *source) __attribute__((weak));
extern void dispatch_release(void *object) __attribute__((weak));

int lcc_dispatch_available(void) {
  return &_dispatch_source_type_signal != NULL && dispatch_queue_create && dispatch_source_create &&
         dispatch_set_context && dispatch_set_finalizer_f && dispatch_source_set_event_handler_f &&
         dispatch_source_set_registration_handler_f && dispatch_resume && dispatch_source_cancel &&
         dispatch_release;
}

void *lcc_dispatch_signal_source_make(int signo, void *context, void (*on_signal)(void *),
                                      void (*on_registered)(void *), void (*finalizer)(void *)) {
  if (!lcc_dispatch_available()) return NULL;
  // One serial queue for the process's sources, made with the first (never released).
  static void *_Atomic queue;
  void *target = queue;
  if (!target) {
    void *made = dispatch_queue_create("launch-protection.stop-signal", NULL);
    void *expected = NULL;
    if (atomic_compare_exchange_strong(&queue, &expected, made)) {
      target = made;
    } else {
      dispatch_release(made);
      target = expected;
    }
  }
  void *source = dispatch_source_create(&_dispatch_source_type_signal, (uintptr_t)signo, 0, target);
  if (!source) return NULL;
  dispatch_set_context(source, context);
  dispatch_set_finalizer_f(source, finalizer);
  dispatch_source_set_event_handler_f(source, on_signal);
  dispatch_source_set_registration_handler_f(source, on_registered);
  // Resumed before it is returned: an inactive source must never be released (libdispatch
  // traps on that), and from here it may only be cancelled.
  dispatch_resume(source);
  return source;
}

void lcc_dispatch_source_cancel(void *source) {
  dispatch_source_cancel(source);
  // The source keeps itself alive while a handler is in flight; its finalizer runs after.
  dispatch_release(source);
}
