// A protected launch and nothing else: finishLaunching, then launchingFinished, in a state
// directory given as the first argument (a fresh temporary directory by default).
import LaunchProtection

let directory = CommandLine.arguments.dropFirst().first ?? "/tmp/footprint-protected-launch"
let organizer = LaunchOrganizer(stateDirectory: directory)
organizer.finishLaunching(
  policy: .threshold(2),
  launch: { organizer.launchingFinished() },
  protect: { _ in organizer.protectFinished() })
print("hello, protected (\(organizer.status.modeName))")
