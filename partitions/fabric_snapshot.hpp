// The fabric as the SM saw it after a sweep, in a small versioned text file that
// ibsm-part plan reads. The SM writes it (write_fabric_snapshot) after each sweep.
//
//   ibsm-fabric-snapshot 1
//   # port <node_guid> <port_num> <ca|switch|router> <port_guid> [field=value]...
//   port 0x0000000000200000 0 switch 0x0000000000200000 sm=1 cap=8 pkeys=0xffff,0x8002
//   port 0x0000000000200000 1 switch 0x0000000000200000 cap=64 pkeys=0xffff peer=0x0000000000100001
//   enforce=in,out port 0x0000000000100000 1 ca 0x0000000000100001 cap=64 pkeys=0xffff desc=Hca1
//   HCA-1
//
// Fields: sm=1 (the SM's port), cap= (PartitionCap or PartitionEnforcementCap),
// pkeys= (the table up to its last non-zero entry, '-' if empty), peer= (switch
// external ports: the end port GUID they face, or 'switch'), enforce= (in,out or '-'),
// desc= (node description, always last, to the end of the line). '#' lines are
// comments. Readers reject a version they do not know.
#pragma once

#include <string>
#include <string_view>

#include "common/result.hpp"
#include "partitions/diagnostic.hpp"
#include "partitions/fabric.hpp"

namespace ibsm::partitions {

inline constexpr int kFabricSnapshotVersion = 1;

struct FabricSnapshot {
  Fabric fabric;
  std::vector<std::string> descriptions;  // parallel to fabric.ports
};

std::string write_fabric_snapshot(const FabricSnapshot& snapshot);
Result<FabricSnapshot, Diagnostic> read_fabric_snapshot(std::string_view text);

}  // namespace ibsm::partitions
