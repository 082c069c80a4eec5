// Local-only unwinding: without UNW_LOCAL_ONLY the names map to the remote
// (_Ux86_64_*) API and the link wants libunwind-generic.
#define UNW_LOCAL_ONLY
#include <libunwind.h>
