#include <gtest/gtest.h>

#include <set>

#include "agent/errors.hpp"

namespace ibsm::agent {
namespace {

TEST(AgentErrors, CatalogIdsAreUniqueInTheAgentRangeAndDocumented) {
  std::set<std::uint16_t> seen;
  for (const ErrorInfo& e : kAgentErrors) {
    EXPECT_GE(e.id.code, 6000) << e.title;
    EXPECT_LT(e.id.code, 7000) << e.title;
    EXPECT_TRUE(seen.insert(e.id.code).second) << "duplicate " << e.id.code;
    EXPECT_FALSE(e.title.empty() || e.meaning.empty() || e.action.empty()) << e.id.code;
  }
  for (ErrorId id : {kNodeFileUnreadable,
                     kNodeFileSyntax,
                     kNodeFileUnknownKey,
                     kNodeFileBadValue,
                     kInvalidPKey,
                     kNameTooLong,
                     kConnectedModeUnsupported,
                     kMtuTooLarge,
                     kNotInfiniBand,
                     kKernelSupportMissing,
                     kDeviceNotFound,
                     kNetdevNotFound,
                     kDuplicateInterface,
                     kForeignObject,
                     kBadAddress,
                     kDisruptiveRefused,
                     kStepFailed,
                     kWriteFailed,
                     kCommandFailed,
                     kReadFailed,
                     kPortQueryFailed,
                     kGroupMtuNoAnswer,
                     kGroupMtuRejected,
                     kUsage,
                     kIfupdownSnippetsUnread,
                     kWatchFailed,
                     kWaitTimedOut,
                     kCheckpointFailed,
                     kRolledBack})
    EXPECT_TRUE(seen.count(id.code)) << id.code << " missing from kAgentErrors";
}

}  // namespace
}  // namespace ibsm::agent
