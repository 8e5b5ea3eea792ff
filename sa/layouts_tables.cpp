// Record layouts of the table family (filled by the table records' owner).
#include "sa/record_layout.hpp"

namespace ibsm::sa {

std::span<const RecordLayout> table_layouts() { return {}; }

}  // namespace ibsm::sa
