/// The validated dependency graph: declared `runsAfter`/`runsBefore` edges plus the implicit
/// edges of sequential stages.
struct TaskGraph {
  let tasks: [any LaunchTask]
  let successors: [[Int]]
  let predecessorCounts: [Int]

  init(tasks: [any LaunchTask], stageEdges: [(from: Int, to: Int)]) throws(WorkflowError) {
    var index: [String: Int] = [:]
    for (position, task) in tasks.enumerated() {
      if index[task.name] != nil { throw .duplicateName(task.name) }
      index[task.name] = position
    }
    var edges = Set<[Int]>()
    for (position, task) in tasks.enumerated() {
      for name in task.runsAfter {
        guard let before = index[name] else { throw .missingDependency(task: task.name, missing: name) }
        edges.insert([before, position])
      }
      for name in task.runsBefore {
        guard let after = index[name] else { throw .missingDependency(task: task.name, missing: name) }
        edges.insert([position, after])
      }
    }
    for edge in stageEdges { edges.insert([edge.from, edge.to]) }
    var successors = Array(repeating: [Int](), count: tasks.count)
    var counts = Array(repeating: 0, count: tasks.count)
    for edge in edges.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
      successors[edge[0]].append(edge[1])
      counts[edge[1]] += 1
    }
    self.tasks = tasks
    self.successors = successors
    self.predecessorCounts = counts
    if let cycle = findCycle() { throw .cycle(cycle.map { tasks[$0].name }) }
  }

  /// A cycle as a path that returns to its start, found by depth-first search.
  private func findCycle() -> [Int]? {
    enum Mark { case unvisited, inProgress, done }
    var marks = Array(repeating: Mark.unvisited, count: tasks.count)
    var path: [Int] = []
    func visit(_ node: Int) -> [Int]? {
      marks[node] = .inProgress
      path.append(node)
      for next in successors[node] {
        switch marks[next] {
        case .inProgress:
          let start = path.firstIndex(of: next)!
          return Array(path[start...]) + [next]
        case .unvisited:
          if let cycle = visit(next) { return cycle }
        case .done: break
        }
      }
      path.removeLast()
      marks[node] = .done
      return nil
    }
    for node in tasks.indices where marks[node] == .unvisited {
      if let cycle = visit(node) { return cycle }
    }
    return nil
  }

  /// Each task's direct predecessors (declared, and implied by sequential stages), by name.
  var predecessorNames: [String: [String]] {
    var names: [String: [String]] = [:]
    for (from, successors) in successors.enumerated() {
      for to in successors { names[tasks[to].name, default: []].append(tasks[from].name) }
    }
    return names
  }

  /// A topological order; among ready tasks, lower priority value first, then declaration order.
  func topologicalOrder() -> [Int] {
    var counts = predecessorCounts
    var ready = tasks.indices.filter { counts[$0] == 0 }
    var order: [Int] = []
    while !ready.isEmpty {
      ready.sort { (tasks[$0].priority, $0) < (tasks[$1].priority, $1) }
      let next = ready.removeFirst()
      order.append(next)
      for successor in successors[next] {
        counts[successor] -= 1
        if counts[successor] == 0 { ready.append(successor) }
      }
    }
    return order
  }
}
