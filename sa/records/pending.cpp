// Attributes whose handlers are being written: dropped like unknown attributes
// until then (OpenSM's behaviour for attributes it does not serve).
#include "sa/handlers.hpp"

namespace ibsm::sa {


}  // namespace ibsm::sa
