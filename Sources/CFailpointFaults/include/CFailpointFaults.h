#ifndef C_FAILPOINT_FAULTS_H
#define C_FAILPOINT_FAULTS_H

/// Real faults that Swift cannot express without the optimiser or the
/// language getting in the way. Each produces its signal through the genuine
/// hardware or kernel mechanism, never through raise().

/// Writes through a null pointer: SIGSEGV (SEGV_MAPERR).
void cf_fault_null_write(void);
/// Touches a page of a file mapping that lies past the end of the file: SIGBUS (BUS_ADRERR).
void cf_fault_bus(void);
/// Divides an integer by zero: SIGFPE (FPE_INTDIV). Swift's own `/` traps with SIGILL instead.
void cf_fault_integer_divide(void);
/// Executes a breakpoint instruction (int3): SIGTRAP.
void cf_fault_breakpoint(void);
/// Overwrites its own saved frame pointer and return address with unmapped addresses, then
/// writes through a null pointer: SIGSEGV on a stack that cannot be walked past this frame.
void cf_fault_smashed_stack(void);

/// Names the calling thread (prctl PR_SET_NAME, 15 characters at most), as crash records show it.
void cf_set_thread_name(const char *name);

#endif
