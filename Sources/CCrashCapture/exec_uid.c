// The effective uid the process had at exec, from the auxiliary vector: no system call.
#include "CCrashCapture.h"

#include <sys/auxv.h>

unsigned int lcc_exec_effective_uid(void) { return (unsigned int)getauxval(AT_EUID); }
