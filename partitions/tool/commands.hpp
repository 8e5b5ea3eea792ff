// ibsm-part: check, list, show, add, remove, add-member, remove-member, set, fmt and
// plan on a partitions.conf. run_ibsm_part is main() without the process: it takes
// the arguments and streams, and returns the exit status, so tests can drive it.
// Exit status: 0 ok, 1 the file has errors or the command failed, 2 usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ibsm::partitions {

inline constexpr const char* kDefaultPartitionsFile = "/etc/opensm/partitions.conf";

int run_ibsm_part(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ibsm::partitions
