#include "sa/sa_db.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include "common/atomic_file.hpp"
#include "sa/bytes.hpp"
#include "sa/errors.hpp"
#include "sa/server.hpp"

namespace ibsm::sa {

namespace {

// A big-endian field as printf's %llx wants it (OpenSM's dump format).
unsigned long long be_ull(std::span<const std::uint8_t> b, std::size_t off, std::size_t n) {
  return get_be(b, off, n);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// Reads the fields of one record line the way OpenSM's PARSE_AHEAD does: each
// key is searched after the previous value, then a hex number of at most `bits`
// bits must follow, ended by white space, ':' or the end of the line.
class FieldReader {
 public:
  explicit FieldReader(std::string_view line) : s_(line) {}
  const std::string& error() const { return error_; }

  bool num(std::string_view key, unsigned bits, std::uint64_t& out) {
    if (!seek(key)) return false;
    std::size_t i = pos_;
    std::uint64_t v = 0;
    bool any = false;
    bool overflow = false;
    while (i < s_.size() && hex_digit(s_[i]) >= 0) {
      if ((v >> 60) != 0) overflow = true;
      v = (v << 4) | static_cast<std::uint64_t>(hex_digit(s_[i]));
      any = true;
      ++i;
    }
    const bool ended = i == s_.size() || is_space(s_[i]) || s_[i] == ':';
    if (!any || overflow || !ended || (bits < 64 && (v >> bits) != 0)) {
      error_ = "cannot read a hexadecimal value of at most " + std::to_string(bits) +
               " bits after \"" + std::string(key) + "\"";
      return false;
    }
    pos_ = i;
    out = v;
    return true;
  }
  template <class T>
  bool value(std::string_view key, unsigned bits, T& out) {
    std::uint64_t v = 0;
    if (!num(key, bits, v)) return false;
    out = static_cast<T>(v);
    return true;
  }
  // A big-endian number stored into `n` bytes of a record at `off`.
  bool bytes(std::string_view key, std::span<std::uint8_t> rec, std::size_t off, std::size_t n) {
    std::uint64_t v = 0;
    if (!num(key, static_cast<unsigned>(n * 8), v)) return false;
    put_be(rec, off, v, n);
    return true;
  }
  // "0x<prefix>:0x<guid>"
  bool gid(std::string_view key, std::span<std::uint8_t> out) {
    return bytes(key, out, 0, 8) && bytes(":0x", out, 8, 8);
  }
  // A name, quoted with ' or " (or ended by a space), at most 64 bytes kept.
  bool name(std::string_view key, std::span<std::uint8_t> out) {
    if (!seek(key)) return false;
    char delim = ' ';
    if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) delim = s_[pos_++];
    std::size_t n = 0;
    while (pos_ < s_.size() && s_[pos_] != delim && s_[pos_] != '\n' && s_[pos_] != '\r') {
      if (n < out.size()) out[n++] = static_cast<std::uint8_t>(s_[pos_]);
      ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == delim && delim != ' ') ++pos_;
    return true;
  }

 private:
  bool seek(std::string_view key) {
    const std::size_t p = s_.find(key, pos_);
    if (p == std::string_view::npos) {
      error_ = "cannot find \"" + std::string(key) + "\"";
      return false;
    }
    pos_ = p + key.size();
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;
};

bool read_service(FieldReader& f, DbService& s) {
  auto& r = s.record;
  using namespace service_field;
  return f.bytes(" id=0x", r, kId, 8) && f.gid(" gid=0x", std::span(r).subspan(kGid, 16)) &&
         f.bytes(" pkey=0x", r, kPKey, 2) && f.bytes(" lease=0x", r, kLease, 4) &&
         f.bytes(" key=0x", r, kKey, 8) && f.bytes(":0x", r, kKey + 8, 8) &&
         f.name(" name=", std::span(r).subspan(kName, 64)) && f.bytes(" data8=0x", r, kData8, 8) &&
         f.bytes(":0x", r, kData8 + 8, 8) && f.bytes(" data16=0x", r, kData16, 8) &&
         f.bytes(":0x", r, kData16 + 8, 8) && f.bytes(" data32=0x", r, kData32, 8) &&
         f.bytes(":0x", r, kData32 + 8, 8) && f.bytes(" data64=0x", r, kData64, 8) &&
         f.bytes(":0x", r, kData64 + 8, 8) && f.value(" modified_time=0x", 32, s.modified_time) &&
         f.value(" lease_period=0x", 32, s.lease_period);
}

bool read_inform(FieldReader& f, Subscription& s) {
  auto& i = s.info;
  using namespace inform_field;
  std::uint8_t path_bits = 0;
  std::uint8_t static_rate = 0;
  return f.gid(" subscriber_gid=0x", s.subscriber_gid) &&
         f.value(" subscriber_enum=0x", 16, s.subscriber_enum) &&
         f.gid(" gid=0x", std::span(i).subspan(kGid, 16)) &&
         f.bytes(" lid_range_begin=0x", i, kLidBegin, 2) &&
         f.bytes(" lid_range_end=0x", i, kLidEnd, 2) &&
         f.bytes(" is_generic=0x", i, kIsGeneric, 1) &&
         f.bytes(" subscribe=0x", i, kSubscribe, 1) && f.bytes(" trap_type=0x", i, kType, 2) &&
         f.bytes(" trap_num=0x", i, kTrapNumber, 2) &&
         f.bytes(" qpn_resp_time_val=0x", i, kQpnRespTime, 4) &&
         f.bytes(" node_type=0x", i, kProducer - 1, 4) &&
         f.value(" rep_addr: lid=0x", 16, s.report_addr.lid) &&
         f.value(" path_bits=0x", 8, path_bits) && f.value(" static_rate=0x", 8, static_rate) &&
         f.value(" remote_qp=0x", 32, s.report_addr.qpn) &&
         f.value(" remote_qkey=0x", 32, s.report_addr.qkey) &&
         f.value(" pkey_ix=0x", 16, s.report_addr.pkey_index) &&
         f.value(" sl=0x", 8, s.report_addr.sl);
}

bool read_group(FieldReader& f, DbGroup& g) {
  return f.value(" 0x", 16, g.mlid) && f.gid(" mgid=0x", g.mgid) &&
         f.gid(" port_gid=0x", g.port_gid) && f.value(" qkey=0x", 32, g.qkey) &&
         f.value(" mlid=0x", 16, g.record_mlid) && f.value(" mtu=0x", 8, g.mtu) &&
         f.value(" tclass=0x", 8, g.tclass) && f.value(" pkey=0x", 16, g.pkey) &&
         f.value(" rate=0x", 8, g.rate) && f.value(" pkt_life=0x", 8, g.pkt_life) &&
         f.value(" sl_flow_hop=0x", 32, g.sl_flow_hop) &&
         f.value(" scope_state=0x", 8, g.scope_state) && f.value(" proxy_join=0x", 8, g.proxy_join);
}

bool read_member(FieldReader& f, DbGroupMember& m) {
  return f.gid(" port_gid=0x", m.port_gid) && f.value(" scope_state=0x", 8, m.scope_state) &&
         f.value(" proxy_join=0x", 8, m.proxy_join);
}

bool read_guid_info(FieldReader& f, DbGuidInfo& g) {
  if (!(f.value(" base_guid=0x", 64, g.base_guid) && f.value(" lid=0x", 16, g.lid) &&
        f.value(" block_num=0x", 8, g.block)))
    return false;
  static constexpr std::array<std::string_view, 8> kKeys = {" guid0=0x", " guid1=0x", " guid2=0x",
                                                            " guid3=0x", " guid4=0x", " guid5=0x",
                                                            " guid6=0x", " guid7=0x"};
  for (std::size_t i = 0; i < 8; ++i)
    if (!f.value(kKeys[i], 64, g.guids[i])) return false;
  return true;
}

std::string where(std::string_view file, std::size_t line) {
  return std::string(file) + ":" + std::to_string(line) + ": ";
}

// printf into a std::string (the attribute lets the compiler check the arguments).
__attribute__((format(printf, 2, 3))) void append(std::string& out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  if (n > 0) {
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data() + at, static_cast<std::size_t>(n) + 1, format, again);
    out.resize(at + static_cast<std::size_t>(n));
  }
  va_end(again);
}

unsigned long long gid_half(const Gid& g, std::size_t half) {
  return be_ull(g, half * 8, 8);
}

}  // namespace

SaDbParse parse_sa_db(std::string_view text, std::string_view file_name) {
  SaDbParse out;
  std::size_t lineno = 0;
  DbGroup* group = nullptr;  // the group mcm_port lines belong to
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++lineno;
    while (!line.empty() && is_space(line.front()))
      line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    FieldReader f(line);
    bool ok = true;
    std::string_view kind;
    if (line.starts_with("MC Group")) {
      kind = "MC Group";
      DbGroup g;
      const std::size_t colon = line.find(':');
      g.well_known = line.substr(0, colon).find("(well known)") != std::string_view::npos;
      ok = read_group(f, g);
      if (ok) {
        out.db.kept.groups.push_back(std::move(g));
        group = &out.db.kept.groups.back();
      }
    } else if (line.starts_with("mcm_port")) {
      kind = "mcm_port";
      DbGroupMember m;
      ok = read_member(f, m);
      if (ok && group != nullptr) group->members.push_back(m);
      if (ok && group == nullptr)
        out.warnings.push_back(where(file_name, lineno) + "mcm_port outside a group, ignored");
    } else if (line.starts_with("Service Record:")) {
      kind = "Service Record";
      group = nullptr;
      DbService s;
      ok = read_service(f, s);
      if (ok) out.db.services.push_back(s);
    } else if (line.starts_with("InformInfo Record:")) {
      kind = "InformInfo Record";
      group = nullptr;
      Subscription s;
      ok = read_inform(f, s);
      if (ok) out.db.informs.push_back(s);
    } else if (line.starts_with("GUIDInfo Record:")) {
      kind = "GUIDInfo Record";
      group = nullptr;
      DbGuidInfo g;
      ok = read_guid_info(f, g);
      if (ok) out.db.kept.guid_info.push_back(g);
    } else {
      out.warnings.push_back(where(file_name, lineno) + "not an SA database record, ignored: \"" +
                             std::string(line.substr(0, 40)) + "\"");
      continue;
    }
    if (!ok) {
      out.error = where(file_name, lineno) + std::string(kind) + ": " + f.error();
      return out;
    }
  }
  return out;
}

std::string format_sa_db(const SaDb& db) {
  std::string out;
  for (const DbGuidInfo& g : db.kept.guid_info) {
    append(out, "GUIDInfo Record: base_guid=0x%016llx lid=0x%04x block_num=0x%x",
           static_cast<unsigned long long>(g.base_guid), unsigned{g.lid}, unsigned{g.block});
    for (std::size_t i = 0; i < 8; ++i)
      append(out, " guid%zu=0x%016llx", i, static_cast<unsigned long long>(g.guids[i]));
    out += "\n\n";
  }
  for (const DbGroup& g : db.kept.groups) {
    append(out,
           "MC Group 0x%04x %s: mgid=0x%016llx:0x%016llx port_gid=0x%016llx:0x%016llx "
           "qkey=0x%08x mlid=0x%04x mtu=0x%02x tclass=0x%02x pkey=0x%04x rate=0x%02x "
           "pkt_life=0x%02x sl_flow_hop=0x%08x scope_state=0x%02x proxy_join=0x%x\n\n",
           unsigned{g.mlid}, g.well_known ? " (well known)" : "", gid_half(g.mgid, 0),
           gid_half(g.mgid, 1), gid_half(g.port_gid, 0), gid_half(g.port_gid, 1), g.qkey,
           unsigned{g.record_mlid}, unsigned{g.mtu}, unsigned{g.tclass}, unsigned{g.pkey},
           unsigned{g.rate}, unsigned{g.pkt_life}, g.sl_flow_hop, unsigned{g.scope_state},
           unsigned{g.proxy_join});
    for (const DbGroupMember& m : g.members)
      append(out, "mcm_port: port_gid=0x%016llx:0x%016llx scope_state=0x%02x proxy_join=0x%x\n\n",
             gid_half(m.port_gid, 0), gid_half(m.port_gid, 1), unsigned{m.scope_state},
             unsigned{m.proxy_join});
  }
  for (const Subscription& s : db.informs) {
    const auto& i = s.info;
    using namespace inform_field;
    append(out,
           "InformInfo Record: subscriber_gid=0x%016llx:0x%016llx subscriber_enum=0x%x "
           "InformInfo: gid=0x%016llx:0x%016llx lid_range_begin=0x%x lid_range_end=0x%x "
           "is_generic=0x%x subscribe=0x%x trap_type=0x%x trap_num=0x%x qpn_resp_time_val=0x%x "
           "node_type=0x%06x",
           gid_half(s.subscriber_gid, 0), gid_half(s.subscriber_gid, 1),
           unsigned{s.subscriber_enum}, be_ull(i, kGid, 8), be_ull(i, kGid + 8, 8),
           static_cast<unsigned>(be_ull(i, kLidBegin, 2)),
           static_cast<unsigned>(be_ull(i, kLidEnd, 2)), unsigned{i[kIsGeneric]},
           unsigned{i[kSubscribe]}, static_cast<unsigned>(be_ull(i, kType, 2)),
           static_cast<unsigned>(be_ull(i, kTrapNumber, 2)),
           static_cast<unsigned>(be_ull(i, kQpnRespTime, 4)),
           static_cast<unsigned>(be_ull(i, kProducer - 1, 4)));
    // ibsm keeps no path bits or static rate in an address vector: written as 0.
    append(out,
           " rep_addr: lid=0x%04x path_bits=0x00 static_rate=0x00 remote_qp=0x%08x "
           "remote_qkey=0x%08x pkey_ix=0x%04x sl=0x%02x\n\n",
           unsigned{s.report_addr.lid}, s.report_addr.qpn, s.report_addr.qkey,
           unsigned{s.report_addr.pkey_index}, unsigned{s.report_addr.sl});
  }
  for (const DbService& s : db.services) {
    const auto& r = s.record;
    using namespace service_field;
    // The name is written between quotes and read back up to the next quote:
    // a quote or line break inside it would cut the record, so those become '?'.
    std::string name;
    for (std::size_t k = 0; k < 64 && r[kName + k] != 0; ++k) {
      const char c = static_cast<char>(r[kName + k]);
      name += (c == '\'' || c == '\n' || c == '\r') ? '?' : c;
    }
    append(out, "Service Record: id=0x%016llx gid=0x%016llx:0x%016llx pkey=0x%x lease=0x%x",
           be_ull(r, kId, 8), be_ull(r, kGid, 8), be_ull(r, kGid + 8, 8),
           static_cast<unsigned>(be_ull(r, kPKey, 2)), static_cast<unsigned>(be_ull(r, kLease, 4)));
    append(out, " key=0x%016llx:0x%016llx name='", be_ull(r, kKey, 8), be_ull(r, kKey + 8, 8));
    out += name;
    append(out,
           "' data8=0x%016llx:0x%016llx data16=0x%016llx:0x%016llx data32=0x%016llx:0x%016llx "
           "data64=0x%016llx:0x%016llx modified_time=0x%x lease_period=0x%x\n\n",
           be_ull(r, kData8, 8), be_ull(r, kData8 + 8, 8), be_ull(r, kData16, 8),
           be_ull(r, kData16 + 8, 8), be_ull(r, kData32, 8), be_ull(r, kData32 + 8, 8),
           be_ull(r, kData64, 8), be_ull(r, kData64 + 8, 8), s.modified_time, s.lease_period);
  }
  return out;
}

std::optional<Clock::Duration> remaining_lease(std::uint32_t modified_time,
                                               std::uint32_t lease_period, std::int64_t wall_now) {
  if (lease_period == kInfiniteLease) return std::nullopt;
  // A clock that went backwards since the dump costs no lease time.
  const std::int64_t elapsed = std::max<std::int64_t>(0, wall_now - std::int64_t{modified_time});
  const std::int64_t left = std::max<std::int64_t>(0, std::int64_t{lease_period} - elapsed);
  return std::chrono::duration_cast<Clock::Duration>(std::chrono::seconds(left));
}

SaDb collect_sa_db(const ServiceStore& services, const InformStore& informs, const SaDbKept& kept,
                   const AliasGuids& aliases, const Snapshot* snap, Clock::TimePoint now,
                   std::int64_t wall_now) {
  SaDb db;
  db.kept = kept;
  // The alias tables as they stand, so a restart gets back what clients set since
  // the load. OpenSM writes them in its port-GUID map's order: network-order GUIDs
  // compared as host integers.
  std::vector<std::pair<Guid, const std::vector<Guid>*>> tables;
  tables.reserve(aliases.tables().size());
  for (const auto& [guid, table] : aliases.tables())
    tables.emplace_back(guid, &table);
  std::sort(tables.begin(), tables.end(), [](const auto& a, const auto& b) {
    return __builtin_bswap64(a.first) < __builtin_bswap64(b.first);
  });
  for (const auto& [guid, table] : tables) {
    Lid lid = 0;
    if (snap != nullptr) {
      if (const PortRef p = snap->find_port_guid(guid); p.valid()) lid = snap->port(p).lid;
    }
    // Every block of the table, empty ones too, as OpenSM dumps them.
    for (std::size_t b = 0; b < table->size() / kGuidsPerBlock; ++b) {
      DbGuidInfo g;
      g.base_guid = guid;
      g.lid = lid;
      g.block = static_cast<std::uint8_t>(b);
      std::copy_n(table->begin() + static_cast<std::ptrdiff_t>(b * kGuidsPerBlock), kGuidsPerBlock,
                  g.guids.begin());
      db.kept.guid_info.push_back(g);
    }
  }
  db.informs = informs.subscriptions();
  for (const ServiceStore::Entry& e : services.entries()) {
    DbService s;
    s.record = e.record;
    s.modified_time = static_cast<std::uint32_t>(wall_now);
    if (!e.infinite) {
      // Whole seconds left, rounded up so a record never dies early after a restart.
      const auto left = std::chrono::ceil<std::chrono::seconds>(e.expires - now).count();
      s.lease_period = static_cast<std::uint32_t>(
          std::clamp<std::int64_t>(left, 0, std::int64_t{kInfiniteLease} - 1));
    }
    db.services.push_back(s);
  }
  return db;
}

SaDbRestored restore_sa_db(const SaDb& db, ServiceStore& services, InformStore& informs,
                           SaDbKept& kept, Clock::TimePoint now, std::int64_t wall_now) {
  SaDbRestored n;
  for (const DbService& s : db.services) {
    if (services.restore(s.record, remaining_lease(s.modified_time, s.lease_period, wall_now),
                         now)) {
      ++n.services;
    } else {
      ++n.duplicates;
    }
  }
  for (const Subscription& s : db.informs) {
    if (informs.restore(s)) {
      ++n.informs;
    } else {
      ++n.duplicates;
    }
  }
  kept.groups.insert(kept.groups.end(), db.kept.groups.begin(), db.kept.groups.end());
  kept.guid_info.insert(kept.guid_info.end(), db.kept.guid_info.begin(), db.kept.guid_info.end());
  n.groups = db.kept.groups.size();
  n.guid_info = db.kept.guid_info.size();
  return n;
}

AliasesRestored restore_alias_guids(SaDbKept& kept, AliasGuids& aliases, const Snapshot& snap) {
  AliasesRestored n;
  for (const DbGuidInfo& g : kept.guid_info) {
    const AliasGuids::Restored r = aliases.restore(snap, g.base_guid, g.block, g.guids);
    ++n.blocks;
    n.guids += r.guids;
    n.skipped += r.skipped;
  }
  kept.guid_info.clear();
  return n;
}

// Alias GUIDs need the ports (GUIDCap, who owns which GUID): the blocks read wait
// for a snapshot, as OpenSM restores them after its first master sweep's discovery.
// The tables go to the SM as a Set's would (AliasGuids::take_pending), so the loop
// step after the sweep writes them into the ports.
void SaServer::restore_db_aliases() {
  if (!snapshot_ || state_->db_kept.guid_info.empty()) return;
  const AliasesRestored n = restore_alias_guids(state_->db_kept, state_->aliases, *snapshot_);
  log_->info("SA database: {} alias GUIDs restored from {} GUIDInfo blocks", n.guids, n.blocks);
  if (n.skipped > 0)
    log_->warn(
        "{}: SA database: {} alias GUIDs not restored (port not in the fabric, index "
        "beyond its GUIDCap, or GUID already in use)",
        format_error_id(kErrSaDbLoad), n.skipped);
}

// The daemon's side: OpenSM restores the file named by sa_db_file once, before
// its first master sweep, and writes opensm-sa.dump (mode 0600: it holds
// ServiceKeys) only when something changed since the last write.
Status SaServer::load_db() {
  const std::string& path = settings_.sa_db_file;
  if (path.empty()) return {};
  auto text = read_file(path);
  if (!text.ok()) {
    log_->error("{}: cannot restore the SA database: {}", format_error_id(kErrSaDbLoad),
                text.error().message);
    return fail(kErrSaDbLoad, text.error().message);
  }
  const SaDbParse parsed = parse_sa_db(*text, path);
  for (const std::string& w : parsed.warnings)
    log_->warn("{}: {}", format_error_id(kErrSaDbLoad), w);
  const SaDbRestored n = restore_sa_db(parsed.db, state_->services, state_->informs,
                                       state_->db_kept, clock_.now(), std::time(nullptr));
  // What was just read is what the file holds: nothing to write back yet.
  state_->services.clear_dirty();
  state_->informs.clear_dirty();
  log_->info(
      "SA database {}: restored {} service records, {} event subscriptions, kept {} "
      "multicast groups; {} GUIDInfo blocks wait for the sweep's ports",
      path, n.services, n.informs, n.groups, n.guid_info);
  restore_db_aliases();  // at once when a sweep already published its ports
  if (parsed.error) {
    log_->error("{}: {}; the records after it are not restored", format_error_id(kErrSaDbLoad),
                *parsed.error);
    return fail(kErrSaDbLoad, *parsed.error);
  }
  return {};
}

bool SaServer::dump_db() {
  if (!settings_.sa_db_dump || settings_.dump_files_dir.empty()) return false;
  if (!state_->services.dirty() && !state_->informs.dirty() && !state_->aliases.dirty())
    return false;
  std::string dir = settings_.dump_files_dir;
  ::mkdir(dir.c_str(), 0755);
  if (dir.back() != '/') dir += '/';
  const std::string path = dir + "opensm-sa.dump";
  const SaDb db = collect_sa_db(state_->services, state_->informs, state_->db_kept, state_->aliases,
                                snapshot_.get(), clock_.now(), std::time(nullptr));
  if (auto st = write_file_atomically(path, format_sa_db(db), true, {}, 0600); !st.ok()) {
    log_->warn("{}: {}", format_error_id(kErrSaDbWrite), st.error().message);
    return false;  // still dirty: the next sweep tries again
  }
  state_->services.clear_dirty();
  state_->informs.clear_dirty();
  state_->aliases.clear_dirty();
  log_->debug("SA database written to {} ({} services, {} subscriptions)", path, db.services.size(),
              db.informs.size());
  return true;
}

}  // namespace ibsm::sa
