// The PerfMgr's counter database (OpenSM's perfmgr_db): per node and port the last
// reading and the totals accumulated since the PerfMgr started (or the last
// clear_counters), in OpenSM's units. Each new reading adds its increase over the
// previous one; a reading lower than the previous (an out-of-band clear) or a
// reset the PerfMgr made restarts the previous reading at zero, so a total never
// goes backwards and never counts a clear as traffic.
//
// Owned by the SM's thread; the dumps are OpenSM's formats (perfmgr_db.c: "mach"
// tab-separated, "human" per port). A copy of the database shares its nodes and each
// side copies a node only when it changes one the other still holds (copy on write),
// so the console hands another thread a snapshot to format for the price of a pointer
// per node, and a node's counters are copied only if the PerfMgr updates them while
// that snapshot lives.
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::perfmgr {

// Error counters, in OpenSM's order.
enum class Err : std::uint8_t {
  kSymbol,
  kLinkRecover,
  kLinkDowned,
  kRcv,
  kRcvRemotePhys,
  kRcvSwitchRelay,
  kXmitDiscards,
  kXmitConstraint,
  kRcvConstraint,
  kLinkIntegrity,
  kBufferOverrun,
  kVl15Dropped,
  kXmitWait,
};
inline constexpr std::size_t kErrCount = 13;
// Data counters, in OpenSM's order.
enum class Data : std::uint8_t {
  kXmitData,
  kRcvData,
  kXmitPkts,
  kRcvPkts,
  kUnicastXmitPkts,
  kUnicastRcvPkts,
  kMulticastXmitPkts,
  kMulticastRcvPkts,
};
inline constexpr std::size_t kDataCount = 8;

struct CounterName {
  std::string_view iba;     // IBA / perfquery name: "SymbolErrorCounter"
  std::string_view opensm;  // OpenSM's dump column: "symbol_err_cnt"
};
extern const std::array<CounterName, kErrCount> kErrNames;
extern const std::array<CounterName, kDataCount> kDataNames;

struct ErrReading {
  std::array<std::uint64_t, kErrCount> v{};
  std::time_t time = 0;
  std::uint64_t& operator[](Err e) { return v[static_cast<std::size_t>(e)]; }
  std::uint64_t operator[](Err e) const { return v[static_cast<std::size_t>(e)]; }
};
struct DataReading {
  std::array<std::uint64_t, kDataCount> v{};
  std::time_t time = 0;
  std::uint64_t& operator[](Data d) { return v[static_cast<std::size_t>(d)]; }
  std::uint64_t operator[](Data d) const { return v[static_cast<std::size_t>(d)]; }
};

struct DbPort {
  bool valid = false;  // has had a reading
  std::time_t last_reset = 0;
  ErrReading err_previous, err_total;
  DataReading dc_previous, dc_total;
};

struct DbNode {
  std::uint64_t guid = 0;
  std::string name;
  bool esp0 = false;  // enhanced switch port 0: monitored too
  bool active = false;
  std::vector<DbPort> ports;  // index = port number, size = NumPorts + 1
};

class CounterDb {
 public:
  // Makes the node's entry if it has none (OpenSM: perfmgr_db_create_entry).
  DbNode& create(std::uint64_t guid, bool esp0, unsigned num_ports, std::string name,
                 std::time_t now);
  DbNode* find(std::uint64_t guid);
  const DbNode* find(std::uint64_t guid) const;
  void erase(std::uint64_t guid) { nodes_.erase(guid); }
  void mark_active(std::uint64_t guid, bool active);

  // Adds a reading's increase over the previous one to the totals. nullopt when the
  // node or port is unknown.
  bool add_err(std::uint64_t guid, unsigned port, const ErrReading& r);
  // `ietf`: the unicast/multicast counters are valid (otherwise left alone).
  bool add_data(std::uint64_t guid, unsigned port, const DataReading& r, bool ietf);
  const DbPort* port(std::uint64_t guid, unsigned port) const;
  // The previous reading restarts at zero (after a clear, ours or someone else's).
  void clear_prev_err(std::uint64_t guid, unsigned port, std::time_t now);
  void clear_prev_data(std::uint64_t guid, unsigned port, std::time_t now);
  // Totals back to zero (console `perfmgr clear_counters`); readings are kept.
  void clear_totals(std::time_t now);

  std::size_t size() const { return nodes_.size(); }
  // Every node, by GUID.
  template <class F>
  void for_each_node(F&& f) const {
    for (const auto& [guid, n] : nodes_)
      f(static_cast<const DbNode&>(*n));
  }

  // OpenSM's dump formats (perfmgr_db_dump): "mach" = tab-separated with a header per
  // node; "human" = a block per port.
  std::string dump_mach() const;
  std::string dump_human(bool err_only) const;
  // One node (by name, else by GUID "0x..."), optionally one port (text as typed).
  std::string print_node(const std::string& name_or_guid, const std::string& port,
                         bool err_only) const;
  // The node print_node(name_or_guid, ...) would print, alone in a database of its
  // own (empty when none matches): a copy of one node for another thread to format.
  CounterDb subset(const std::string& name_or_guid) const;

 private:
  bool valid_port(const DbNode& n, unsigned port) const {
    return port < n.ports.size() && (port != 0 || n.esp0);
  }
  // The node, copied first when a copy of the database still shares it.
  static DbNode& writable(std::shared_ptr<DbNode>& n);
  // Shared with copies of the database; written only through writable().
  std::map<std::uint64_t, std::shared_ptr<DbNode>> nodes_;
};

// Writes OpenSM's dump of `db` ("mach" or "human") to `path`, atomically.
Status write_counter_dump(const CounterDb& db, bool mach, const std::string& path);

// Formats a time as ctime() does, without the newline ("Fri Nov 27 16:39:00 2026").
std::string ctime_text(std::time_t t);

}  // namespace ibsm::perfmgr
