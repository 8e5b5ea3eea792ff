// Record layouts of the service family (filled by the service records' owner).
#include "sa/record_layout.hpp"

namespace ibsm::sa {

std::span<const RecordLayout> service_layouts() { return {}; }

}  // namespace ibsm::sa
