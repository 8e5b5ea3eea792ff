// What ibsm-part list and show print: partitions with P_Keys, flags in human
// units and member counts.
#pragma once

#include <string>

#include "partitions/model.hpp"
#include "partitions/resolve.hpp"

namespace ibsm::partitions {

std::string list_partitions(const Config& config, const ResolvedConfig& resolved);
// Empty if the selector (name or P_Key) matches no partition.
std::string show_partition(const Config& config, const ResolvedConfig& resolved,
                           const std::string& selector);

}  // namespace ibsm::partitions
