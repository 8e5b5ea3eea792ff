#include <array>

#include "sa/record_layout.hpp"

namespace ibsm::sa {

const RecordLayout* find_layout(std::uint16_t attr_id) {
  for (auto family : {topology_layouts(), path_layouts(), service_layouts(), multicast_layouts(),
                      table_layouts()}) {
    for (const RecordLayout& l : family)
      if (l.attr_id == attr_id) return &l;
  }
  return nullptr;
}

}  // namespace ibsm::sa
