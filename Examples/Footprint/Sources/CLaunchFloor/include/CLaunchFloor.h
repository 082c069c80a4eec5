#ifndef C_LAUNCH_FLOOR_H
#define C_LAUNCH_FLOOR_H

/// The system calls of a protected launch (`finishLaunching`, then `launchingFinished`) in the
/// state directory `directory`, and the SIGTERM watcher's thread, with no Swift code: what a
/// launch would cost if its own code cost nothing. 0, or -1 when the directory cannot be used.
int launch_floor_run(const char *directory);

#endif
