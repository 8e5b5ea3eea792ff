// partitions: the result of the last partitions.conf reload and the P_Keys programmed
// on each end port (and switch port 0).
#include <cstdint>
#include <string>

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl::reports {

Answer partitions(const OpsSnapshot& s, const Snap* f, const NodeNamer& name_of) {
  Answer a;
  JsonWriter j;
  const auto& p = s.partitions;
  j.begin_object()
      .field("file", p.file)
      .field("ok", p.ok)
      .field("partitions", p.partitions)
      .field("when", ops::format_utc(p.when));
  j.key("errors").begin_array();
  for (const auto& e : p.errors)
    j.str(e);
  j.end_array();
  a.text = fmt::format("partitions.conf {}: {} at {} ({} partitions)\n", p.file,
                       p.ok ? "read" : "IN ERROR, last good one in force", ops::format_utc(p.when),
                       p.partitions);
  for (const auto& e : p.errors)
    a.text += "   " + e + "\n";
  j.key("ports").begin_array();
  if (f != nullptr) {
    for (const sa::SnapNode& n : f->nodes)
      for (const sa::SnapPort& q : n.ports) {
        if (!q.present || q.pkeys.empty()) continue;
        if (n.is_switch() && q.num != 0)
          continue;  // inter-switch tables are not the partition view
        std::string keys;
        j.begin_object()
            .field("port_guid", hex16(q.guid))
            .field("port", q.num)
            .field("lid", q.lid)
            .field("node_desc", n.description)
            .field("node_name", name_of(n))
            .key("pkeys")
            .begin_array();
        for (std::uint16_t k : q.pkeys) {
          if ((k & 0x7fff) == 0) continue;
          keys += fmt::format(" 0x{:04x}", k);
          j.str(fmt::format("0x{:04x}", k));
        }
        j.end_array().end_object();
        a.text += fmt::format("   {} port {} LID {} ({}):{}\n", hex16(q.guid), q.num, q.lid,
                              name_of(n), keys);
      }
  }
  j.end_array().end_object();
  a.json = j.text();
  return a;
}

}  // namespace ibsm::ctl::reports
