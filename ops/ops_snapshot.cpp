#include "ops/ops_snapshot.hpp"

namespace ibsm::ops {

std::string_view sweep_kind_name(SweepKind k) {
  switch (k) {
    case SweepKind::kLight:
      return "light";
    case SweepKind::kHeavy:
      return "heavy";
    case SweepKind::kTargeted:
      return "targeted";
  }
  return "?";
}

}  // namespace ibsm::ops
