// Context for `chaos bench --only whole-process`: `protected-launch` with
// `ignoreTermination = false`, so the launch arms no SIGTERM handler and starts no
// `launch-stop-watcher` thread. The difference to `protected-launch` is what recording a stop
// during the launch costs a fresh process.
import LaunchProtection

let directory = CommandLine.arguments.dropFirst().first ?? "/tmp/footprint-protected-launch"
var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
configuration.ignoreTermination = false
let organizer = LaunchOrganizer(configuration: configuration)
organizer.finishLaunching(
  policy: .threshold(2),
  launch: { organizer.launchingFinished() },
  protect: { _ in organizer.protectFinished() })
print("hello, protected (\(organizer.status.modeName))")
