// Slurm's topology/tree from the InfiniBand fabric (issue 36): which hosts hang off
// which switch, and a tree of switches above them with one top that reaches every host.
// Pure: takes the fabric as plain values (FabricInput, filled by ops/slurm_fabric.hpp
// from the SA's snapshot) and returns the tree; slurm/render.hpp writes it as
// topology.conf or JSON. No SM, no MAD.
//
// Hosts. A host is a name: the node name map's name of a CA, else its NodeDescription,
// cut at the first blank (Linux writes "hostname mlx5_0"). The CA ports of one name are
// that host's rails, ordered by NodeDescription, node GUID and port number (mlx5_0
// before mlx5_1, port 1 before port 2): rail 0 is the first. Slurm warns about a node
// under two leaf switches, so by default each host goes under the switch of its rail
// `rail` only (0 unless asked); Rails::kAll puts it under every switch it hangs off.
// A name Slurm cannot take (empty, or a character outside A-Z a-z 0-9 . _ -), or a host
// without the rail asked for, is left out and listed in `skipped`.
//
// Switches. Leaves are the switches with hosts placed. Above them, levels by
// breadth-first search from every switch with a CA (a switch's level is its distance
// from the nearest one; a leaf whose hosts are filtered out or on another rail stays
// at level 0, never above another); a
// tree switch of level k gets one parent among its neighbours of level k+1, chosen so
// that as few parents as possible cover the level (greedily: the neighbour adjacent to
// the most switches still without a parent, then the lowest GUID), so a pod's leaves
// share one parent and the spare spines of a fat tree stay out. Switches with no parent
// are tops; more than one top get a virtual top over them, so exactly one switch
// reaches every host. A single top that is one of several switches of its level (a
// core of a fat tree with several) would stand for its level arbitrarily: it is left
// out and the virtual top takes its place over the level below, as sites write by hand.
// (Slurm takes a switch under several parents too; a tree keeps its file small, and
// slurmctld's switch distances cost the cube of the switches listed.) On fabrics whose switches all
// have hosts (dragonfly, torus, random graphs) every switch is a leaf and all sit under the virtual
// top: Slurm learns which hosts share a switch, not how far apart switches are. Names: the node
// name map's, else the NodeDescription, made safe for Slurm (each character outside A-Z a-z 0-9 . _
// - becomes '_', at most 48 bytes, a trailing digit run of more than 18 digits gets a '_' after it)
// and unique (a repeat gets
// "_<GUID in hex>" appended). The virtual top is "ibsm_top" (unique the same way).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::slurm {

inline constexpr std::uint32_t kNoSwitch = UINT32_MAX;

struct SwitchInput {
  std::uint64_t guid = 0;
  std::string name;                  // the map's name, else the NodeDescription
  std::vector<std::uint32_t> peers;  // the switches linked to it (indices), repeats allowed
};

// One CA port linked to a switch.
struct HostPortInput {
  std::uint64_t guid = 0;  // the CA's node GUID
  std::uint8_t port = 0;
  std::string name;              // the map's name, else the NodeDescription
  std::string description;       // the NodeDescription: orders the rails
  std::uint32_t sw = kNoSwitch;  // index in FabricInput::switches
  std::uint8_t sw_port = 0;
};

struct FabricInput {
  std::vector<SwitchInput> switches;
  std::vector<HostPortInput> host_ports;
};

enum class Rails : std::uint8_t { kOne, kAll };

struct Options {
  Rails rails = Rails::kOne;
  unsigned rail = 0;  // with kOne
  // A host is kept when this says so (null: every host); ibsm-ctl's --include/--exclude.
  std::function<bool(std::string_view)> keep_host;
};

struct TreeSwitch {
  std::string name;
  std::uint64_t guid = 0;  // 0: the virtual top
  unsigned level = 0;      // 0 leaves; a parent 1 + its highest child, as Slurm counts
  std::uint32_t parent = kNoSwitch;
  std::vector<std::string> hosts;       // leaves: sorted
  std::vector<std::uint32_t> children;  // others: indices in Topology::switches
};

struct Skipped {
  std::string name;  // as the fabric gave it
  std::uint64_t guid = 0;
  std::uint8_t port = 0;
  std::string reason;
};

struct Topology {
  std::vector<TreeSwitch> switches;  // by level, then name; the top last
  std::vector<Skipped> skipped;      // by name, GUID, port
  std::size_t hosts = 0;             // distinct hosts placed
  std::size_t excluded = 0;          // hosts keep_host refused
  bool virtual_top = false;
  std::uint32_t top() const {
    return switches.empty() ? kNoSwitch : static_cast<std::uint32_t>(switches.size() - 1);
  }
};

Topology build_topology(const FabricInput& fabric, const Options& options);

// The host name in `raw` (up to its first blank), or "" when Slurm cannot take it.
std::string host_name(std::string_view raw);
// `raw` made safe as a Slurm switch name (not yet unique).
std::string safe_switch_name(std::string_view raw);

}  // namespace ibsm::slurm
