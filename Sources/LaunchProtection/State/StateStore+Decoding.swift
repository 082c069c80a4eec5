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
  /// `read` is what reading the file gave: its bytes (nil: no file) or why it could not be read.
  /// Typed throws, not a `Result`: the first `Result` of a new error type costs a launch a
  /// scan of every protocol conformance in the program (Benchmarks: start-to-exit).
  static func decode(
    _ read: () throws(DurableFile.Failure) -> [UInt8]?, path: @autoclosure () -> String, known: Written = Written()
  ) throws(StateProblem) -> Loaded {
    let bytes: [UInt8]
    do throws(DurableFile.Failure) {
      guard let some = try read() else { return Loaded(state: nil, layout: .none) }
      bytes = some
    } catch {
      throw error.refusal ?? .unreadable(path: path(), errno: error.errno, movedTo: nil)
    }
    guard !bytes.isEmpty else { throw .corrupt(path: path(), movedTo: nil, detail: "empty file") }
    if Self.sameBytes(bytes, known.file) { return Loaded(state: known.state, layout: known.layout) }
    var json = bytes
    var layout = StateFileFormat.Layout.none
    if StateFileFormat.isSlotted(bytes) {
      switch StateFileFormat.decodeSlots(bytes) {
      case .success(let decoded):
        json = decoded.stateJSON
        layout = decoded.layout
      case .failure(let damage):
        throw .corrupt(path: path(), movedTo: nil, detail: damage.detail)
      }
    }
    // The whole text must be JSON before any field counts; then the version alone, so a
    // newer format is reported as such whatever else it holds.
    func corrupt(_ error: StateJSON.DecodeError) -> StateProblem {
      .corrupt(path: path(), movedTo: nil, detail: error.detail(byteCount: json.count))
    }
    let document: StateJSON.Document
    let version: Int
    do throws(StateJSON.DecodeError) {
      document = try StateJSON.Document(json)
      version = try document.version()
    } catch { throw corrupt(error) }
    guard version <= LaunchState.currentVersion else {
      throw .futureVersion(path: path(), found: version, supported: LaunchState.currentVersion, movedTo: nil)
    }
    guard version >= 1 else { throw .corrupt(path: path(), movedTo: nil, detail: "invalid version \(version)") }
    let state: LaunchState
    do throws(StateJSON.DecodeError) { state = try document.state() } catch { throw corrupt(error) }
    if let outOfRange = state.rangeProblem {
      throw .corrupt(path: path(), movedTo: nil, detail: "value out of range: \(outOfRange)")
    }
    return Loaded(state: state, layout: layout)
  }
}
