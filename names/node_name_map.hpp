// Node names from infiniband-diags' node-name-map (node_name_map_name): one
// `GUID "name"` per line, as ibnetdiscover, iblinkinfo and OpenSM read it, so one
// file names the nodes the same way in the SM's logs and dumps and in the
// diagnostics. Nodes the map does not name go by their NodeDescription.
//
// Format (the facts of rdma-core's and OpenSM's reader): blank lines and lines whose
// first non-blank character is '#' are skipped; a line starts with a node GUID in C
// notation (0x hex, leading 0 octal, else decimal) followed by white space, '#' or
// the end of the line; the name is the first run of characters that are neither '"'
// nor '#' after it (so `0x1 "sw-1"` and `0x1 sw-1 # core` both give sw-1, the
// latter with its trailing blank). A GUID with no name names nothing. The first
// line for a GUID wins. A GUID that does not parse is an error of the whole file.
// Names are kept as display text (common/display_text.hpp): valid UTF-8, no control
// character.
//
// ibsm is stricter where the diagnostics would silently misread a file: a GUID
// beyond 64 bits or written with a sign, and a line longer than 255 characters
// (their line buffer: the rest of it would be read as another line), are errors too.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"

namespace ibsm::names {

using Guid = std::uint64_t;

class NodeNameMap {
 public:
  NodeNameMap() = default;

  // Parses `text`; `file` names the source in errors and warnings ("file:line: ...").
  // An error (IBSM-2050) rejects the whole map.
  static Result<NodeNameMap> parse(std::string_view text, std::string_view file);
  // Reads and parses `path`; an unreadable file is an error (IBSM-2051).
  static Result<NodeNameMap> load(const std::string& path);

  // The name the map gives `node_guid`, or nullptr.
  const std::string* find(Guid node_guid) const;
  // The name to show for a node: the map's, else its NodeDescription as display text
  // cut at 63 bytes, as OpenSM's print_desc (text::display_name: the one rule).
  std::string name_of(Guid node_guid, std::string_view description) const;

  std::size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const std::string& source() const { return source_; }  // the file it was read from
  // Lines that did not change the map: a GUID named again ("file:line: ...").
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::unordered_map<Guid, std::string>& entries() const { return names_; }

 private:
  std::unordered_map<Guid, std::string> names_;
  std::string source_;
  std::vector<std::string> warnings_;
};

// The name to show for a node under `map`, which may be null (no map in force): the one
// rule of every sink (the SM's logs and dumps, ibsm-ctl's reports, the metrics' topology
// picture), map->name_of(node_guid, description) or printable_description(description).
std::string name_of(const NodeNameMap* map, Guid node_guid, std::string_view description);

// A NodeDescription as a node's name (no map): text::display_name(nullptr, d), that
// is display text up to the first NUL, at most 63 bytes (OpenSM's print_desc length).
std::string printable_description(std::string_view description);

// The map in force in a running SM, replaced whole on reload. Readers on other
// threads (ctl, metrics) take a snapshot(); the SM's thread reloads.
class NodeNames {
 public:
  // Where the map comes from: node_name_map_name, or "" for OpenSM's default
  // (/etc/opensm/ib-node-name-map, read only if it exists).
  static constexpr std::string_view kDefaultPath = "/etc/opensm/ib-node-name-map";

  // (Re)reads the map named by node_name_map_name. On success the new map replaces
  // the old one; on an error the map in force stays (the last good one, or none at
  // start-up) and the error is returned for the caller to log.
  Result<std::shared_ptr<const NodeNameMap>> reload(const std::string& node_name_map_name);
  // Replaces the map (tests, or a caller that parsed one itself).
  void set(NodeNameMap map);

  std::shared_ptr<const NodeNameMap> snapshot() const;
  std::string name_of(Guid node_guid, std::string_view description) const;

 private:
  mutable std::mutex mutex_;  // guards map_ (the pointer, not the map: that is immutable)
  std::shared_ptr<const NodeNameMap> map_ = std::make_shared<const NodeNameMap>();
};

}  // namespace ibsm::names
