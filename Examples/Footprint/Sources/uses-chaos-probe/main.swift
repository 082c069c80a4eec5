// The probe outside the harness: it declares failpoints and does nothing else.
import ChaosProbe

ChaosProbe.declare(["open"])
print(ChaosProbe.isActive)
