// Record layouts of the multicast family (filled by the multicast records' owner).
#include "sa/record_layout.hpp"

namespace ibsm::sa {

std::span<const RecordLayout> multicast_layouts() { return {}; }

}  // namespace ibsm::sa
