// A protected launch and nothing else: finishLaunching, then launchingFinished, in a state
// directory given as the first argument (a fresh temporary directory by default).
import LaunchProtection

let directory = CommandLine.arguments.dropFirst().first ?? "/tmp/footprint-protected-launch"
let organizer = LaunchOrganizer(stateDirectory: directory)
organizer.finishLaunching(
  shouldProtect: { count in count >= 2 },
  launch: { organizer.launchingFinished() },
  protect: { organizer.protectFinished() })
print("hello, protected (\(organizer.mode))")
