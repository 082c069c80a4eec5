import CCrashCapture
import Foundation

/// The processCrash launch pair's system calls with none of its work: what `strace` shows for
/// `finishLaunching` after a crash plus `launchingFinished`, replayed on files of the same
/// sizes. No code between them decodes, decides or encodes, so the pair over this replay is
/// what user space adds, and this replay over two bare pwrites is what the contract's locking,
/// reading and opening cost on this machine before any code runs.
struct LaunchPathSystemCalls {
  private let lockPath: String
  private let statePath: String
  private let markerPath: String
  private let image = UnsafeMutableRawBufferPointer.allocate(byteCount: 8193, alignment: 16)
  private let slot = [UInt8](repeating: 0x20, count: 4096)

  /// Makes a state file of two 4 KiB slots and a lock file in `directory`.
  init(directory: String) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    lockPath = directory + "/launch-state.lock"
    statePath = directory + "/launch-state.json"
    markerPath = directory + "/pending-crash-reports"
    try Data(repeating: 0x20, count: 8192).write(to: URL(fileURLWithPath: statePath))
  }

  /// One pair: the launch id's random bytes and thread id, then `finishLaunching`'s update
  /// (with the look for the crash handler's marker) into one slot and `launchingFinished`'s
  /// into the other.
  func replayPair() {
    var random = (UInt64(0), UInt64(0))
    _ = withUnsafeMutableBytes(of: &random) { lcc_random_bytes($0.baseAddress!, 16) }
    _ = lcc_current_thread_id()
    update(slotOffset: 0, lookForMarker: true)
    update(slotOffset: 4096, lookForMarker: false)
  }

  /// Lock, read the whole file, write one slot in place, unlock: the state store's update.
  private func update(slotOffset: off_t, lookForMarker: Bool) {
    let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    _ = flock(lock, LOCK_EX | LOCK_NB)
    let state = open(statePath, O_RDWR | O_CLOEXEC)
    _ = read(state, image.baseAddress, image.count)
    if lookForMarker { _ = access(markerPath, F_OK) }
    _ = slot.withUnsafeBytes { pwrite(state, $0.baseAddress, $0.count, slotOffset) }
    close(state)
    _ = flock(lock, LOCK_UN)
    close(lock)
  }

  /// Frees the read buffer.
  func deallocate() { image.deallocate() }
}
