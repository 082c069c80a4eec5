#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Encoding and decoding the state file, and the memo of the last file written.
extension StateStore {
  /// Byte equality by `memcmp`: `==` on two arrays compares element by element.
  private static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { a in b.withUnsafeBytes { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 } }
  }

  /// The state as one line of JSON (sorted keys, so equal states are equal bytes).
  static func encode(_ state: LaunchState) -> [UInt8] { StateJSON.encode(state) }

  /// What was on disk: the state (nil: no file) and where the next in-place write can go.
  struct Loaded {
    var state: LaunchState?
    var layout: StateFileFormat.Layout
  }

  /// `known`: a file whose state is known (the last write), answered without reading it again.
  static func decode(
    _ read: Result<[UInt8]?, DurableFile.Failure>, path: @autoclosure () -> String, known: Written = Written()
  ) -> Result<Loaded, StateProblem> {
    let bytes: [UInt8]
    switch read {
    case .success(nil): return .success(Loaded(state: nil, layout: .none))
    case .success(let some?): bytes = some
    case .failure(let failure):
      return .failure(failure.refusal ?? .unreadable(path: path(), errno: failure.errno, movedTo: nil))
    }
    guard !bytes.isEmpty else { return .failure(.corrupt(path: path(), movedTo: nil, detail: "empty file")) }
    if Self.sameBytes(bytes, known.file) { return .success(Loaded(state: known.state, layout: known.layout)) }
    var json = bytes
    var layout = StateFileFormat.Layout.none
    if StateFileFormat.isSlotted(bytes) {
      switch StateFileFormat.decodeSlots(bytes) {
      case .success(let decoded):
        json = decoded.stateJSON
        layout = decoded.layout
      case .failure(let damage):
        return .failure(.corrupt(path: path(), movedTo: nil, detail: damage.detail))
      }
    }
    do throws(StateJSON.DecodeError) {
      // The whole text must be JSON before any field counts; then the version alone, so a
      // newer format is reported as such whatever else it holds.
      let document = try StateJSON.Document(json)
      let version = try document.version()
      guard version <= LaunchState.currentVersion else {
        return .failure(
          .futureVersion(path: path(), found: version, supported: LaunchState.currentVersion, movedTo: nil))
      }
      guard version >= 1 else {
        return .failure(.corrupt(path: path(), movedTo: nil, detail: "invalid version \(version)"))
      }
      let state = try document.state()
      if let outOfRange = state.rangeProblem {
        return .failure(.corrupt(path: path(), movedTo: nil, detail: "value out of range: \(outOfRange)"))
      }
      return .success(Loaded(state: state, layout: layout))
    } catch {
      return .failure(.corrupt(path: path(), movedTo: nil, detail: error.detail(byteCount: json.count)))
    }
  }
}
