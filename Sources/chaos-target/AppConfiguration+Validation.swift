import LaunchProtection

/// The checks of the newer string fields' values, which JSONDecoder cannot make.
extension AppConfiguration {
  /// `exhausted` as a policy action; nil when absent or not understood.
  static func exhaustedAction(_ text: String?) -> ExhaustedLevels? {
    switch text {
    case "repeat-last-level": return .repeatLastLevel
    case "stay-degraded": return .stayDegraded
    case let text? where text.hasPrefix("exit(") && text.hasSuffix(")"):
      return Int32(text.dropFirst(5).dropLast()).map { .exit(status: $0) }
    default: return nil
    }
  }

  /// What is wrong with the values of the newer string fields, if anything.
  var problem: String? {
    if let launchOn, !["main", "thread", "dispatch", "async"].contains(launchOn) {
      return "launch_on must be main, thread, dispatch or async, not '\(launchOn)'"
    }
    if let exhausted, Self.exhaustedAction(exhausted) == nil {
      return "exhausted must be repeat-last-level, stay-degraded or exit(N), not '\(exhausted)'"
    }
    if let sigtermSource, !["before_launch", "during_launch", "before_finish", "after_launch"].contains(sigtermSource) {
      return
        "sigterm_source must be before_launch, during_launch, before_finish or after_launch, not '\(sigtermSource)'"
    }
    if let sigtermHandler,
      !["before_launch", "during_launch", "before_finish", "chaining_during_launch"].contains(sigtermHandler)
    {
      return
        "sigterm_handler must be before_launch, during_launch, before_finish or chaining_during_launch, not '\(sigtermHandler)'"
    }
    if let when = lifeActionsWhen, !["after_launch", "during_launch"].contains(when) {
      return "life_actions_when must be after_launch or during_launch, not '\(when)'"
    }
    if let fileSizeLimit, fileSizeLimit < 1 { return "file_size_limit must be at least 1" }
    if earlierOrganizerSharesState == true, earlierOrganizer != true {
      return "earlier_organizer_shares_state needs earlier_organizer"
    }
    if earlierOrganizerFinishedFirst == true, earlierOrganizer != true || earlierOrganizerUnfinished == true {
      return "earlier_organizer_finished_first needs earlier_organizer, and excludes earlier_organizer_unfinished"
    }
    if lifeActionsWhen == "during_launch", protectFinish == .afterLifeActions {
      return "life_actions_when during_launch needs a protect_finish other than after_life_actions"
    }
    if let when = handleException?.when, !["during_launch", "after_launch"].contains(when) {
      return "handle_exception.when must be during_launch or after_launch, not '\(when)'"
    }
    if let dependency {
      let tasks = ReferenceGraph.declarations.map(\.name) + (extraTasks ?? []).compactMap(\.name)
      if let task = dependency.task, !tasks.contains(task) {
        return "dependency.task must be one of the tasks (\(tasks.joined(separator: ", "))), not '\(task)'"
      }
      if dependency.name.isEmpty { return "dependency.name must not be empty" }
      if let giveUp = dependency.giveUpMilliseconds, giveUp < 0 { return "dependency.give_up_ms must be at least 0" }
      if let attempts = dependency.attempts, attempts < 1 { return "dependency.attempts must be at least 1" }
      if dependency.afterLaunch == true, dependency.task != nil {
        return "dependency.after_launch and dependency.task exclude each other"
      }
    }
    if let subdirectory = stateSubdirectory, subdirectory.isEmpty || subdirectory.hasPrefix("/") {
      return "state_subdirectory must be a relative path, not '\(subdirectory)'"
    }
    if let relative = relativeStateDirectory, relative.isEmpty || relative.hasPrefix("/") {
      return "relative_state_directory must be a relative path, not '\(relative)'"
    }
    if repairThrows != nil, launchOn != "async" {
      return "repair_throws needs launch_on: async (the async API's repair is the one that can throw)"
    }
    return nil
  }
}
