import ChaosProbe
import LaunchProtection

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `state_file_read_only`: the state file left with mode 0444 before the launch (as an operator's
/// `chmod a-w`), and the app without `CAP_DAC_OVERRIDE`, so that root too obeys the file's mode
/// bits, as every other user does: the organizer may read the file, not write it.
enum ReadOnlyStateFile {
  private struct CapabilityHeader {
    var version: UInt32 = 0x2008_0522  // _LINUX_CAPABILITY_VERSION_3
    var pid: Int32 = 0
  }

  private struct CapabilityData {
    var effective: UInt32 = 0
    var permitted: UInt32 = 0
    var inheritable: UInt32 = 0
  }

  private typealias CapabilityCall = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Int32

  /// Makes `launch-state.json` in `stateDirectory` read-only for this process; false (with a
  /// `read_only_failed` event) when it cannot.
  static func apply(stateDirectory: String) -> Bool {
    guard chmod(stateDirectory + "/launch-state.json", 0o444) == 0 else {
      ChaosProbe.emit("read_only_failed", ["step": "chmod", "errno": Int(errno)])
      return false
    }
    // capget/capset through dlsym: glibc exports them without a header in its module.
    guard let get = dlsym(nil, "capget"), let set = dlsym(nil, "capset") else {
      ChaosProbe.emit("read_only_failed", ["step": "dlsym"])
      return false
    }
    var header = CapabilityHeader()
    var data = [CapabilityData(), CapabilityData()]
    let dropped = data.withUnsafeMutableBytes { data in
      guard unsafeBitCast(get, to: CapabilityCall.self)(&header, data.baseAddress!) == 0 else { return false }
      // CAP_DAC_OVERRIDE (1) out of the effective set; the permitted set keeps it.
      data.baseAddress!.assumingMemoryBound(to: CapabilityData.self).pointee.effective &= ~(UInt32(1) << 1)
      return unsafeBitCast(set, to: CapabilityCall.self)(&header, data.baseAddress!) == 0
    }
    if !dropped { ChaosProbe.emit("read_only_failed", ["step": "capset", "errno": Int(errno)]) }
    return dropped
  }
}

/// `report_write_failures`: each failed state write as `write_failed {operation, errno}`, the
/// errno by name: the cause a user reads in the problem's description.
enum WriteFailureReport {
  static func install(_ organizer: LaunchOrganizer) {
    organizer.observe { observation in
      guard let problem = observation.event?.stateProblem, problem.code == .writeFailed,
        let operation = problem.operation, let code = problem.errno
      else { return }
      ChaosProbe.emit("write_failed", ["operation": operation, "errno": name(of: code)])
    }
  }

  static func name(of code: Int32) -> String {
    switch code {
    case EACCES: "EACCES"
    case EPERM: "EPERM"
    case EBADF: "EBADF"
    case EROFS: "EROFS"
    case EIO: "EIO"
    case ENOSPC: "ENOSPC"
    case ENOENT: "ENOENT"
    case EFBIG: "EFBIG"
    default: "errno \(code)"
    }
  }
}
