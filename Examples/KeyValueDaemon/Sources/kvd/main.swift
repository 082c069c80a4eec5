import ChaosProbe
import Foundation
import LaunchProtection

// kvd: a key-value daemon. Its launch loads the config, replays the journal and opens the
// listener (three LaunchTasks tasks); LaunchProtection counts launches that die before the
// listener is up, and after two it repairs by quarantining the journal.
//
//   KVD_DATA_DIR=/var/lib/kvd kvd        then: echo "SET k v" | nc -U /var/lib/kvd/kvd.sock
//
// Under chaos the data lives in the harness's state directory (`data/` in it), so each run
// starts from its own empty data: data kept anywhere else would carry one run's journal into
// another's launches, which the contract model cannot predict. KVD_DATA_DIR still wins.

let chaosState = ChaosProbe.stateDirectory(default: "")
let dataDirectory =
  ProcessInfo.processInfo.environment["KVD_DATA_DIR"] ?? (chaosState.isEmpty ? "/var/lib/kvd" : chaosState + "/data")
let store = KeyValueStore(dataDirectory: dataDirectory)
let organizer = LaunchOrganizer(stateDirectory: ChaosProbe.stateDirectory(default: dataDirectory + "/launch"))
let workflow = store.launchWorkflow()
// Evaluated for each request on the socket, never during the launch: `chaos explore` reaches
// it only with a workload (`--workload Examples/KeyValueDaemon/explore-workload.yaml`).
ChaosProbe.declare(["kvd.request"])
ChaosProbe.attach(workflow)
ChaosProbe.attach(organizer)

organizer.observe { observation in log("launch protection: \(observation)") }
Shutdown.install()
organizer.finishLaunching(
  policy: .threshold(2),
  launch: {
    do {
      try workflow.run()
    } catch {
      log("launch failed: \(error)")
      exit(1)
    }
    guard store.isServing else { exit(1) }
    organizer.launchingFinished()
  },
  protect: { _ in
    store.quarantineJournal()
    organizer.protectFinished()
  })

Shutdown.waitForTermination()
store.stop()
log("stopped")
exit(0)
