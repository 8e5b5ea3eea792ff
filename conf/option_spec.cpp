#include "conf/option_spec.hpp"

#include <cctype>

namespace ibsm::conf {

std::string_view section_name(Section s) {
  switch (s) {
    case Section::kDevice:
      return "device";
    case Section::kPartitions:
      return "partitions";
    case Section::kSweep:
      return "sweep";
    case Section::kRouting:
      return "routing";
    case Section::kHandover:
      return "handover";
    case Section::kTiming:
      return "timing";
    case Section::kMisc:
      return "misc";
    case Section::kPerfmgr:
      return "perfmgr";
    case Section::kEvents:
      return "events";
    case Section::kLogging:
      return "logging";
    case Section::kQos:
      return "qos";
    case Section::kCongestion:
      return "congestion";
    case Section::kIbsm:
      return "ibsm";
  }
  return "?";
}

std::string_view section_title(Section s) {
  switch (s) {
    case Section::kDevice:
      return "DEVICE ATTRIBUTES";
    case Section::kPartitions:
      return "PARTITIONING";
    case Section::kSweep:
      return "SWEEP";
    case Section::kRouting:
      return "ROUTING";
    case Section::kHandover:
      return "HANDOVER - MULTIPLE SMs";
    case Section::kTiming:
      return "TIMING AND THREADING";
    case Section::kMisc:
      return "MISC";
    case Section::kPerfmgr:
      return "PERFORMANCE MANAGER";
    case Section::kEvents:
      return "EVENT DB, EVENT PLUGINS, NODE NAMES";
    case Section::kLogging:
      return "LOGGING AND DEBUG";
    case Section::kQos:
      return "QoS";
    case Section::kCongestion:
      return "CONGESTION CONTROL (experimental)";
    case Section::kIbsm:
      return "ibsm extensions (OpenSM ignores these keys)";
  }
  return "?";
}

}  // namespace ibsm::conf
