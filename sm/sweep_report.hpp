// What went wrong during a sweep, for the log and for deciding that the next
// sweep must be heavy (OpenSM's subnet_initialization_error, made explicit).
#pragma once

#include <string>
#include <vector>

#include "common/error.hpp"

namespace ibsm::sm {

inline constexpr ErrorId kErrNodeUnreachable{2201};
inline constexpr ErrorId kErrNodeBadAnswer{2202};
inline constexpr ErrorId kErrProgrammingFailed{2203};
inline constexpr ErrorId kErrRoutingFailed{2204};
inline constexpr ErrorId kErrDuplicateGuid{2205};
inline constexpr ErrorId kErrGuid2LidRead{2206};
inline constexpr ErrorId kErrGuid2LidWrite{2207};
inline constexpr ErrorId kErrSmPortDown{2208};
inline constexpr ErrorId kErrHopLimit{2209};

struct SweepReport {
  std::vector<Error> problems;
  void add(ErrorId id, std::string message) { problems.push_back(Error{id, std::move(message)}); }
  bool clean() const { return problems.empty(); }
};

}  // namespace ibsm::sm
