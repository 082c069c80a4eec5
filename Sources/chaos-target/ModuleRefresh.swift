import ChaosProbe
import LaunchProtection

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `refresh_modules`: after the launch, code loaded with `dlopen` (glibc's libresolv, on every
/// glibc system), then `CrashCapture.refreshModules()`, as its documentation asks.
enum ModuleRefresh {
  static func run() {
    let handle = dlopen("libresolv.so.2", RTLD_NOW)
    ChaosProbe.emit("modules_refreshed", ["loaded": handle != nil, "refreshed": CrashCapture.refreshModules()])
  }
}
