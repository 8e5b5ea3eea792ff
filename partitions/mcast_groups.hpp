// The multicast group table: the groups partitions.conf pre-creates, each with its
// MLID. Keyed by MGID; a group remembers where it came from so that SA joins
// (Origin::kJoined, with members) can live in the same table later without being
// touched by a configuration reload. MLIDs survive reloads (groups that stay keep
// theirs) and restarts (pass the previous assignment, see format/parse below).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "partitions/diagnostic.hpp"
#include "partitions/mlid_allocator.hpp"
#include "partitions/resolve.hpp"

namespace ibsm::partitions {

struct McGroup {
  enum class Origin { kConfigured, kJoined };
  GroupSpec params;
  std::uint16_t mlid = 0;
  Origin origin = Origin::kConfigured;
};

using MlidAssignment = std::map<Gid, std::uint16_t>;

class McGroupTable {
 public:
  explicit McGroupTable(std::uint16_t last_mlid = kLastMlid) : mlids_(last_mlid) {}

  // Makes the configured groups exactly `groups` (minus those of partitions absent
  // from the fabric, if partition_present is given). Groups that stay keep their
  // MLID; a group named in `previous` gets that MLID back if it is free; new groups
  // take the lowest free MLID in creation order. Joined groups are left alone.
  std::vector<Diagnostic> apply_configuration(const std::vector<GroupSpec>& groups,
                                              const std::vector<bool>* partition_present = nullptr,
                                              const MlidAssignment& previous = {});

  const McGroup* find(const Gid& mgid) const;
  std::vector<McGroup> by_mlid() const;
  MlidAssignment assignment() const;
  std::size_t size() const { return groups_.size(); }

 private:
  std::map<Gid, McGroup> groups_;
  MlidAllocator mlids_;
};

// "mgid mlid" lines, e.g. "ff12:401b:ffff::ffff:ffff 0xc000", for the SM's cache.
std::string format_mlid_assignment(const MlidAssignment& a);
MlidAssignment parse_mlid_assignment(std::string_view text);

}  // namespace ibsm::partitions
