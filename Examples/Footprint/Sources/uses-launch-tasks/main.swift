// A workflow of two tasks, one after the other, and its timeline.
import LaunchTasks

let workflow = Workflow()
workflow.add([
  ClosureTask("open") { _ in },
  ClosureTask("serve", after: ["open"]) { _ in },
])
try workflow.run()
print(workflow.generateTimeline().render().split(separator: "\n").count > 0)
