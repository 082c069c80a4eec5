import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writing the state: in place into the older slot, or a whole new file renamed over the old.
extension StateStore {
  /// In `.processCrash` mode, an existing slotted file takes the new state in its older slot,
  /// in place; anything else (no file yet, a bare JSON file, a state too big for the slots,
  /// `.powerLoss` mode) replaces the whole file. `current`: the file's bytes as read (the
  /// in-place write's other slot); `fd`: the state file open for writing, or -1.
  func write(
    _ state: LaunchState, over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32,
    in directory: StateDirectory, replaced: inout Bool
  ) -> StateProblem? {
    var written = Written(state: state)
    let problem = write(
      Self.encode(state), over: layout, of: current, through: fd, in: directory, into: &written, replaced: &replaced)
    lastWritten.withLock { $0 = problem == nil && state.rangeProblem == nil ? written : Written() }
    return problem
  }

  /// Writes `json`; on success, `written` takes the whole file as it now is (empty when
  /// unknown) and its layout. (A problem, not a `Result`: a fresh process would look up
  /// `Result`'s `Error` conformance at run time, as costly as the rest of its launch.)
  private func write(
    _ json: [UInt8], over layout: StateFileFormat.Layout, of current: consuming [UInt8]?, through fd: Int32,
    in directory: StateDirectory, into written: inout Written, replaced: inout Bool
  ) -> StateProblem? {
    var sequence: UInt64 = 1
    if case .slots(let slotSize, let newest, let previous) = layout, previous < StateFileFormat.maximumSequence {
      sequence = previous + 1
      if durability == .processCrash,
        let slot = StateFileFormat.slot(json: json, sequence: sequence, slotSize: slotSize)
      {
        let offset = (1 - newest) * slotSize
        let result =
          fd >= 0
          ? DurableFile.overwrite(fd, at: offset, with: slot, failpoints: failpoints)
          : DurableFile.overwrite(
            StateDirectory.stateName, in: directory, at: offset, with: slot, failpoints: failpoints)
        if let problem = Self.problem(result, path: directory.path(of: StateDirectory.stateName)) { return problem }
        if var image = current, image.count == 2 * slotSize {
          image.replaceSubrange(offset..<(offset + slotSize), with: slot)
          written.file = image
          written.layout = .slots(slotSize: slotSize, newest: 1 - newest, sequence: sequence)
        }
        return nil
      }
    }
    let file = StateFileFormat.file(json: json, sequence: sequence)
    let suffix = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    // A new file is renamed over the old one (also when the rename then fails: the kept
    // descriptor is not trusted after that).
    replaced = true
    let result = DurableFile.replace(
      StateDirectory.stateName, in: directory, with: file.bytes, uniqueSuffix: suffix, sync: durability == .powerLoss,
      readerGroup: readerGroup, failpoints: failpoints)
    if let problem = Self.problem(result, path: directory.path(of: StateDirectory.stateName)) { return problem }
    written.file = file.bytes
    written.layout = .slots(
      slotSize: file.slotSize, newest: 0, sequence: min(sequence, StateFileFormat.maximumSequence))
    return nil
  }

  private static func problem(_ result: DurableFile.Failure?, path: @autoclosure () -> String) -> StateProblem? {
    guard let failure = result else { return nil }
    return failure.refusal ?? .writeFailed(path: path(), operation: failure.operation, errno: failure.errno)
  }

  static func needsRewrite(_ problem: StateProblem) -> Bool {
    problem.code == .corrupt || problem.code == .futureVersion || problem.code == .unreadable
      || (isRefusal(problem) && problem.movedTo != nil)
  }
}
