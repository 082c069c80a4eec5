// Context for `chaos bench --only whole-process`: `protected-launch`'s system calls and its
// SIGTERM watcher's thread made from C (`CLaunchFloor`), with no LaunchProtection linked. Its
// ratio to the hello is the part of the protected program's ratio that Swift code does not cause.
import CLaunchFloor

let directory = CommandLine.arguments.dropFirst().first ?? "/tmp/footprint-launch-floor"
let status = launch_floor_run(directory)
print("hello, floor (\(status == 0 ? "finished" : "no state directory"))")
