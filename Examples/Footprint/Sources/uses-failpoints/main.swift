// A failpoint configured and evaluated.
import Failpoints

let registry = FailpointRegistry()
try registry.configure("open=return(EIO)")
print(registry.evaluate("open"))
