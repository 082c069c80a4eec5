import ChaosProbe

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `state_directory_read_only`: the state directory on a read-only filesystem (EROFS), as a
/// container's read-only root or a `ReadOnlyPaths=` of systemd leaves it: a read-only bind mount
/// of it in a mount namespace of the process's own, made before any thread starts (unshare
/// refuses a process with threads) and gone with the process.
enum ReadOnlyMount {
  private typealias Unshare = @convention(c) (Int32) -> Int32
  private typealias Mount =
    @convention(c) (
      UnsafePointer<CChar>?, UnsafePointer<CChar>, UnsafePointer<CChar>?, UInt, UnsafeRawPointer?
    ) -> Int32

  /// Mounts `stateDirectory` read-only for this process; false (with a `read_only_failed`
  /// event) when it cannot.
  static func apply(stateDirectory: String) -> Bool {
    // unshare and mount through dlsym: glibc exports them without a header in its module.
    guard let unshareSymbol = dlsym(nil, "unshare"), let mountSymbol = dlsym(nil, "mount") else {
      ChaosProbe.emit("read_only_failed", ["step": "dlsym"])
      return false
    }
    let unshare = unsafeBitCast(unshareSymbol, to: Unshare.self)
    let mount = unsafeBitCast(mountSymbol, to: Mount.self)
    let newMountNamespace: Int32 = 0x0002_0000  // CLONE_NEWNS
    let (bind, remount, readOnly, recursive, privateMount): (UInt, UInt, UInt, UInt, UInt) = (
      4096, 32, 1, 16384, 1 << 18
    )
    let steps: [(String, () -> Int32)] = [
      ("unshare", { unshare(newMountNamespace) }),
      // Nothing this process mounts reaches the host's namespace.
      ("private", { mount(nil, "/", nil, recursive | privateMount, nil) }),
      ("bind", { mount(stateDirectory, stateDirectory, nil, bind, nil) }),
      ("remount", { mount(nil, stateDirectory, nil, remount | bind | readOnly, nil) }),
    ]
    for (name, step) in steps where step() != 0 {
      ChaosProbe.emit("read_only_failed", ["step": name, "errno": Int(errno)])
      return false
    }
    return true
  }
}
