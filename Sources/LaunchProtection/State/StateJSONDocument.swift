/// Reading: a state file's JSON checked whole, then its fields.
extension StateJSON {
  /// Why bytes are not a state, in the words the store's problem reports use.
  package enum DecodeError: Error, Equatable {
    /// Not JSON at all (RFC 8259): why, and the byte offset where.
    case syntax(String, offset: Int)
    /// A field the state requires is absent (`path` as `launchesInProgress.0.launchID`).
    case missing(path: String)
    /// A field has the wrong JSON type, or a value its Swift type cannot hold.
    case wrongType(path: String, detail: String)

    /// The detail of the `.corrupt` problem; `byteCount` is the size of the JSON read.
    func detail(byteCount: Int) -> String {
      switch self {
      case .syntax(let reason, let offset): "not valid JSON (\(byteCount) bytes): \(reason) at byte \(offset)"
      case .missing(let path): "missing field '\(path)'"
      case .wrongType(let path, let detail): "wrong type at '\(path)': \(detail)"
      }
    }
  }

  /// A parsed JSON text: the whole input's structure was checked first (as `JSONDecoder`
  /// does), so a file is either JSON or reported as such before any field is looked at.
  package struct Document {
    let bytes: [UInt8]
    let nodes: [Node]

    /// Parses `bytes` as one JSON value (with surrounding whitespace).
    init(_ bytes: [UInt8]) throws(DecodeError) {
      self.bytes = bytes
      var parser = Parser(bytes: bytes)
      nodes = try parser.parse()
    }

    /// The `version` field, read on its own so that a newer format is told apart before
    /// the rest of it is judged.
    func version() throws(DecodeError) -> Int {
      let root = try object(at: 0, path: "")
      return try integer(required(root, "version", path: ""), path: "version")
    }

    /// The whole state.
    func state() throws(DecodeError) -> LaunchState {
      let root = try object(at: 0, path: "")
      var state = LaunchState()
      state.version = try integer(required(root, "version", path: ""), path: "version")
      state.consecutiveCrashes = try integer(
        required(root, "consecutiveCrashes", path: ""), path: "consecutiveCrashes")
      let launches = try required(root, "launchesInProgress", path: "")
      guard nodes[launches].kind == .array else {
        throw .wrongType(path: "launchesInProgress", detail: "expected an array, found \(describe(launches))")
      }
      var records: [LaunchRecord] = []
      var element = launches + 1
      var index = 0
      while element < nodes[launches].next {
        records.append(try record(at: element, path: "launchesInProgress.\(index)"))
        element = nodes[element].next
        index += 1
      }
      state.launchesInProgress = records
      if let level = optional(root, "attemptedProtectLevel") {
        state.attemptedProtectLevel = try integer(level, path: "attemptedProtectLevel")
      }
      if let executable = optional(root, "executableID") {
        state.executableID = try string(executable, path: "executableID")
      }
      if let cause = optional(root, "lastCrashCause") { state.lastCrashCause = try crashCause(at: cause) }
      if let exit = optional(root, "lastUncountedExit") { state.lastUncountedExit = try uncountedExit(at: exit) }
      if let outage = optional(root, "lastDependencyOutage") {
        state.lastDependencyOutage = try dependencyOutage(at: outage)
      }
      return state
    }

    private func record(at index: Int, path: @autoclosure () -> String) throws(DecodeError) -> LaunchRecord {
      let object = try object(at: index, path: path())
      let process = try required(object, "process", path: path())
      _ = try self.object(at: process, path: path() + ".process")
      var identity = ProcessIdentity(
        pid: try integer(required(process, "pid", path: path() + ".process"), path: path() + ".process.pid"),
        startTime: try integer(
          required(process, "startTime", path: path() + ".process"), path: path() + ".process.startTime"),
        bootID: try string(required(process, "bootID", path: path() + ".process"), path: path() + ".process.bootID"))
      if let machine = optional(process, "machine") {
        identity.machine = try string(machine, path: path() + ".process.machine")
      }
      let phaseText = try string(required(object, "phase", path: path()), path: path() + ".phase")
      guard let phase = LaunchPhase(rawValue: phaseText) else {
        throw .wrongType(path: path() + ".phase", detail: "no launch phase named \"\(phaseText)\"")
      }
      var record = LaunchRecord(
        process: identity, launchID: try string(required(object, "launchID", path: path()), path: path() + ".launchID"),
        phase: phase,
        startedSeconds: try double(required(object, "startedAt", path: path()), path: path() + ".startedAt"))
      if let stop = optional(object, "stopRequestedAt") {
        record.stopRequestedSeconds = try double(stop, path: path() + ".stopRequestedAt")
      }
      if let dependency = optional(object, "waitingFor") {
        record.waitingFor = try string(dependency, path: path() + ".waitingFor")
      }
      return record
    }

    private func crashCause(at index: Int) throws(DecodeError) -> CrashCause {
      let path = "lastCrashCause"
      _ = try object(at: index, path: path)
      var cause = CrashCause(
        type: try string(required(index, "type", path: path), path: path + ".type"),
        recordedSeconds: try double(required(index, "recordedAt", path: path), path: path + ".recordedAt"))
      cause.afterLaunch = try boolean(required(index, "afterLaunch", path: path), path: path + ".afterLaunch")
      if let detail = optional(index, "detail") { cause.detail = try string(detail, path: path + ".detail") }
      if let pid = optional(index, "pid") { cause.pid = try integer(pid, path: path + ".pid") }
      return cause
    }

    private func uncountedExit(at index: Int) throws(DecodeError) -> UncountedExit {
      let path = "lastUncountedExit"
      _ = try object(at: index, path: path)
      let reasonText = try string(required(index, "reason", path: path), path: path + ".reason")
      guard let reason = UncountedReason(rawValue: reasonText) else {
        throw .wrongType(path: path + ".reason", detail: "no reason named \"\(reasonText)\"")
      }
      return UncountedExit(
        reason: reason, pid: try integer(required(index, "pid", path: path), path: path + ".pid"),
        decidedSeconds: try double(required(index, "decidedAt", path: path), path: path + ".decidedAt"))
    }

    private func dependencyOutage(at index: Int) throws(DecodeError) -> DependencyOutage {
      let path = "lastDependencyOutage"
      _ = try object(at: index, path: path)
      return DependencyOutage(
        dependency: try string(required(index, "dependency", path: path), path: path + ".dependency"),
        launchesInARow: try integer(required(index, "launchesInARow", path: path), path: path + ".launchesInARow"),
        pid: try integer(required(index, "pid", path: path), path: path + ".pid"),
        decidedSeconds: try double(required(index, "decidedAt", path: path), path: path + ".decidedAt"),
        firstDecidedSeconds: try optional(index, "firstDecidedAt").map { (value) throws(DecodeError) in
          try double(value, path: path + ".firstDecidedAt")
        })
    }

    // Lookups. An object's members are key and value nodes in turn. Only the state's own
    // objects are searched, so this stays linear in size.

    /// The object at `index`, its keys checked (`JSONDecoder` reads every key of an object it
    /// decodes, and only those).
    private func object(at index: Int, path: @autoclosure () -> String) throws(DecodeError) -> Int {
      guard nodes[index].kind == .object else {
        throw .wrongType(path: path(), detail: "expected an object, found \(describe(index))")
      }
      var key = index + 1
      while key < nodes[index].next {
        if nodes[key].unchecked { try Parser.check(bytes, nodes[key].start..<nodes[key].end) }
        key = nodes[key + 1].next
      }
      return index
    }

    /// The value node of `key` in the object at `object`, or nil when absent or null
    /// (an optional field; `JSONDecoder` reads null as absent too).
    private func optional(_ object: Int, _ key: StaticString) -> Int? {
      guard let value = member(object, key), nodes[value].kind != .null else { return nil }
      return value
    }

    private func required(_ object: Int, _ key: StaticString, path: @autoclosure () -> String) throws(DecodeError)
      -> Int
    {
      // The path is built only for a report: on the launch path no field is missing.
      func field() -> String { path().isEmpty ? "\(key)" : "\(path()).\(key)" }
      guard let value = member(object, key) else { throw .missing(path: field()) }
      guard nodes[value].kind != .null else { throw .wrongType(path: field(), detail: "expected a value, found null") }
      return value
    }

    /// A repeated key: the first one counts, as in `JSONDecoder`.
    private func member(_ object: Int, _ key: StaticString) -> Int? {
      var index = object + 1
      let end = nodes[object].next
      while index < end {
        if keyEquals(index, key) { return index + 1 }
        index = nodes[index + 1].next
      }
      return nil
    }

    private func keyEquals(_ index: Int, _ key: StaticString) -> Bool {
      let node = nodes[index]
      guard !node.escaped else { return Array(unescaped(node).utf8) == key.withUTF8Buffer { Array($0) } }
      let count = key.utf8CodeUnitCount
      guard node.end - node.start == count else { return false }
      // Byte by byte through pointers: this runs for every member of every object read.
      return bytes.withUnsafeBufferPointer { all in
        let found = all.baseAddress! + node.start
        let wanted = key.utf8Start
        for offset in 0..<count where found[offset] != wanted[offset] { return false }
        return true
      }
    }

    // Lenient lookups, for the crash handler's reports (`CrashReports.parse`): a member that is
    // absent, null or of another type reads as nil, and a malformed one is skipped, not thrown.

    /// The value node of `key` in the root object; nil when absent or null, or when the root is
    /// not an object.
    func rootMember(_ key: StaticString) -> Int? {
      guard nodes[0].kind == .object, (try? object(at: 0, path: "")) != nil else { return nil }
      return optional(0, key)
    }

    /// The string at `index`, or nil.
    func lenientString(_ index: Int?) -> String? { index.flatMap { try? string($0, path: "") } }

    /// The integer at `index` when it fits `T`, or nil.
    func lenientInteger<T: FixedWidthInteger>(_ index: Int?, as: T.Type = T.self) -> T? {
      index.flatMap { try? integer($0, path: "") as T }
    }

    /// The boolean at `index`, or nil.
    func lenientBoolean(_ index: Int?) -> Bool? { index.flatMap { try? boolean($0, path: "") } }

    /// The array of strings at `index`; nil when it is not an array or an element is no string.
    func lenientStrings(_ index: Int?) -> [String]? {
      guard let index, nodes[index].kind == .array else { return nil }
      var strings: [String] = []
      var element = index + 1
      while element < nodes[index].next {
        guard let text = lenientString(element) else { return nil }
        strings.append(text)
        element = nodes[element].next
      }
      return strings
    }
  }
}
