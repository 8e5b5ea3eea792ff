// Record layouts of the path family (filled by the path records' owner).
#include "sa/record_layout.hpp"

namespace ibsm::sa {

std::span<const RecordLayout> path_layouts() { return {}; }

}  // namespace ibsm::sa
