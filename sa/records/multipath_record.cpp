// MultiPathRecord (IBA 15.2.5.21): GetMulti with a list of source and destination
// GIDs, answered with PathRecords (o15-0.2.7) the way OpenSM's
// osm_sa_multipath_record.c answers: every source to every destination until
// NumbPath paths (127 without NumbPath), or, for two sources, two destinations and
// NumbPath 2, the pair of paths most likely to be independent (APM: different LID
// offsets, hence different spines on a fat tree). The IndependenceSelector itself
// is not read, as in OpenSM.
#include <algorithm>
#include <array>

#include "sa/handlers.hpp"
#include "sa/path_resolver.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {
namespace multipath {
namespace {

// ComponentMask bits of MultiPathRecord (sa/layouts_path.cpp).
constexpr unsigned kRawTraffic = 0;
constexpr unsigned kReversible = 5;
constexpr unsigned kNumbPath = 6;
constexpr unsigned kPKey = 7;
constexpr unsigned kQosClass = 8;
constexpr unsigned kSl = 9;
constexpr unsigned kMtuSelector = 10;
constexpr unsigned kMtu = 11;
constexpr unsigned kRateSelector = 12;
constexpr unsigned kRate = 13;
constexpr unsigned kLifeSelector = 14;
constexpr unsigned kLife = 15;
constexpr unsigned kServiceIdMsb = 16;
constexpr unsigned kSgidCount = 19;
constexpr unsigned kDgidCount = 20;
constexpr unsigned kServiceIdLsb = 21;

constexpr std::size_t kHeader = 24;
constexpr std::size_t kMaxGids = 11;  // what one MAD holds; OpenSM reads no more
constexpr std::size_t kRecordSize = kHeader + kMaxGids * 16;
constexpr unsigned kDefaultMaxPaths = 127;  // NumbPath's largest value

bool has(std::uint64_t m, unsigned bit) {
  return (m >> bit & 1u) != 0;
}

PathQuery read_query(std::span<const std::uint8_t> rec, std::uint64_t m) {
  PathQuery q;
  q.raw_traffic = has(m, kRawTraffic) && (rec[0] & 0x80) != 0;
  if (has(m, kPKey)) q.pkey = static_cast<std::uint16_t>(get_be(rec, 6, 2));
  if (has(m, kSl)) q.sl = static_cast<std::uint8_t>(rec[9] & 0x0f);
  if (has(m, kQosClass)) q.qos_class = static_cast<std::uint16_t>(get_be(rec, 8, 2) >> 4);
  // ServiceID: 8 MSBs in byte 13, 56 LSBs in bytes 17-23 (OpenSM only with both bits).
  if (has(m, kServiceIdMsb) && has(m, kServiceIdLsb))
    q.service_id = (get_be(rec, 13, 1) << 56) | get_be(rec, 17, 7);
  auto selected = [&](unsigned sel_bit, unsigned val_bit, std::uint8_t byte) {
    PathQuery::Selected s;
    s.set = has(m, sel_bit) && has(m, val_bit);
    s.sel = static_cast<std::uint8_t>(byte >> 6);
    s.value = byte & 0x3f;
    return s;
  };
  q.mtu = selected(kMtuSelector, kMtu, rec[10]);
  q.rate = selected(kRateSelector, kRate, rec[11]);
  q.life = selected(kLifeSelector, kLife, rec[12]);
  q.reversible_required = has(m, kReversible) && (rec[5] & 0x80) != 0;
  return q;
}

// An end of the paths: the port and the GUID the request named it by, its port
// GUID or an alias of it.
struct End {
  PortRef port;
  Guid guid = 0;
};

// A path with the GUIDs its SGID and DGID carry.
struct NamedPath {
  ResolvedPath path;
  Guid sguid = 0;
  Guid dguid = 0;
};

// The port a GID of the list names: link-local or this subnet's prefix, never a
// multicast source (OpenSM mpr_rcv_get_gids). Unlike PathRecord, MultiPathRecord
// reports a bad GID as INVALID_GID. The GUID may be an alias GUID the SA assigned
// (IBA 15.2.5.18): OpenSM looks port and alias GUIDs up in one table.
End end_of_gid(const RequestContext& ctx, std::span<const std::uint8_t> gid, bool source) {
  const Snapshot& s = ctx.snap;
  const std::uint64_t prefix = get_be(gid, 0, 8);
  if (!gid_prefix_link_local(prefix) && ((source && gid[0] == 0xff) || prefix != s.subnet_prefix))
    return {};
  const Guid guid = get_be(gid, 8, 8);
  if (const PortRef p = s.find_port_guid(guid); p.valid()) return {p, guid};
  AliasGuids& aliases = ctx.state.aliases;
  aliases.sync(s);  // tables of ports gone from this snapshot name nothing
  const Guid base = aliases.port_of(guid);
  if (base == 0) return {};
  return {s.find_port_guid(base), guid};
}

struct Ctx {
  const RequestContext& rc;
  const PathResolver& r;
  const PathQuery& q;
};

bool visible_pair(const Ctx& c, PortRef src, PortRef dst) {
  return c.r.share_pkey(c.rc.requester, src) && c.r.share_pkey(c.rc.requester, dst) &&
         c.r.share_pkey(src, dst);
}

// Up to `budget` paths of one port pair, LMC pairs as for PathRecord
// (OpenSM mpr_rcv_get_port_pair_paths).
unsigned pair_paths(const Ctx& c, const End& s_end, const End& d_end, unsigned budget,
                    std::vector<NamedPath>& out) {
  const PortRef src = s_end.port;
  const PortRef dst = d_end.port;
  if (!visible_pair(c, src, dst)) return 0;
  const PathTables& t = c.r.tables();
  const PathTables::Port& sp = t.ports[t.flat(src)];
  const PathTables::Port& dp = t.ports[t.flat(dst)];
  if (sp.lid == 0 || dp.lid == 0) return 0;
  const unsigned s_n = 1u << sp.lmc;
  const unsigned d_n = 1u << dp.lmc;
  unsigned found = 0;
  auto attempt = [&](unsigned so, unsigned dof, std::uint8_t pref) {
    auto p = c.r.resolve(src, static_cast<Lid>(sp.lid + so), dst, static_cast<Lid>(dp.lid + dof),
                         c.q, pref);
    if (!p) return;
    out.push_back(NamedPath{*p, s_end.guid, d_end.guid});
    ++found;
  };
  for (unsigned i = 0; i < s_n && i < d_n && found < budget; ++i)
    attempt(i, i, 0);
  for (unsigned so = 0; so < s_n && found < budget; ++so) {
    for (unsigned dof = 0; dof < d_n && found < budget; ++dof) {
      if (so != dof) attempt(so, dof, 2);
    }
  }
  return found;
}

// APM (OpenSM mpr_rcv_get_apm_port_pair_paths): the first path from a hashed LID
// offset on, trying each offset pair once.
std::optional<ResolvedPath> apm_pair(const Ctx& c, PortRef src, PortRef dst, unsigned base_offs) {
  if (!visible_pair(c, src, dst)) return std::nullopt;
  const PathTables& t = c.r.tables();
  const PathTables::Port& sp = t.ports[t.flat(src)];
  const PathTables::Port& dp = t.ports[t.flat(dst)];
  if (sp.lid == 0 || dp.lid == 0) return std::nullopt;
  const unsigned s_n = 1u << sp.lmc;
  const unsigned d_n = 1u << dp.lmc;
  unsigned so = base_offs % s_n;
  unsigned dof = base_offs % d_n;
  for (unsigned i = 0; i < std::min(s_n, d_n); ++i) {
    auto p = c.r.resolve(src, static_cast<Lid>(sp.lid + so), dst, static_cast<Lid>(dp.lid + dof),
                         c.q, 0);
    if (p) return p;
    so = (so + 1) % s_n;
    dof = (dof + 1) % d_n;
  }
  return std::nullopt;
}

// Two sources, two destinations, two paths wanted: pick the diagonal of the 2x2
// matrix with the shortest paths, so that both paths exist and are as disjoint as
// the LID offsets make them.
void apm_paths(const Ctx& c, std::array<End, 4> ends, std::vector<NamedPath>& out) {
  const Snapshot& s = c.rc.snap;
  // Each side sorted by port GUID as OpenSM compares them (its base port's GUID,
  // network order as a host integer), so the answer does not depend on the order the
  // client listed them.
  auto key = [&](const End& e) { return __builtin_bswap64(s.port(e.port).guid); };
  if (key(ends[1]) < key(ends[0])) std::swap(ends[0], ends[1]);
  if (key(ends[3]) < key(ends[2])) std::swap(ends[2], ends[3]);
  std::array<PortRef, 4> ports{};
  for (std::size_t i = 0; i < ends.size(); ++i)
    ports[i] = ends[i].port;
  const PathTables& t = c.r.tables();
  const unsigned slid = t.ports[t.flat(ports[0])].lid;
  const unsigned dlid = t.ports[t.flat(ports[2])].lid;
  const unsigned lmc = t.ports[t.flat(ports[0])].lmc;  // OpenSM: the subnet's lmc option
  const unsigned lo = std::min(slid, dlid);
  const unsigned hi = std::max(slid, dlid);
  const unsigned base_offs = (((lo >> lmc) << 4) | (hi >> lmc)) % 103;

  std::optional<ResolvedPath> m[2][2];
  m[0][0] = apm_pair(c, ports[0], ports[2], base_offs);
  m[0][1] = apm_pair(c, ports[0], ports[3], base_offs);
  m[1][0] = apm_pair(c, ports[1], ports[2], base_offs + 1);
  m[1][1] = apm_pair(c, ports[1], ports[3], base_offs + 1);
  auto diag = [&](const std::optional<ResolvedPath>& a, const std::optional<ResolvedPath>& b,
                  unsigned& sum, unsigned& min_hops) {
    sum = 0;
    min_hops = 0;
    for (const auto* p : {&a, &b}) {
      if (!*p) continue;
      sum += (*p)->params.hops;
      min_hops = min_hops == 0 ? (*p)->params.hops : std::min(min_hops, (*p)->params.hops);
    }
  };
  unsigned sum_a = 0, min_a = 0, sum_b = 0, min_b = 0;
  diag(m[0][0], m[1][1], sum_a, min_a);
  diag(m[0][1], m[1][0], sum_b, min_b);
  const bool a = min_a <= min_b || (min_a == min_b && sum_a < sum_b);
  // The chosen diagonal: (source row, destination column) of each path.
  using Cell = std::pair<std::size_t, std::size_t>;
  const std::array<Cell, 2> cells =
      a ? std::array{Cell{0, 0}, Cell{1, 1}} : std::array{Cell{0, 1}, Cell{1, 0}};
  for (const auto& [row, col] : cells) {
    if (m[row][col]) out.push_back(NamedPath{*m[row][col], ends[row].guid, ends[2 + col].guid});
  }
}

}  // namespace
}  // namespace multipath

HandlerResult handle_multipath_record(RequestContext& ctx) {
  // In the function: a unity build compiles other record files after this one.
  using namespace multipath;
  // The request is itself a multi-packet (RMPP) message (OpenSM refuses others).
  if ((ctx.request.header.rmpp_flags & rmpp::kFlagActive) == 0)
    return HandlerResult::error(status::kReqInvalid);
  const std::uint64_t m = ctx.comp_mask();
  if (!has(m, kSgidCount) || !has(m, kDgidCount))
    return HandlerResult::error(status::kInsufficientComponents);
  const auto rec = ctx.query(kRecordSize);
  if (has(m, kRateSelector) && has(m, kRate) && !rate_valid(rec[11] & 0x3f))
    return HandlerResult::error(status::kReqInvalid);
  if (has(m, kMtuSelector) && has(m, kMtu) && !mtu_valid(rec[10] & 0x3f))
    return HandlerResult::error(status::kReqInvalid);
  if (has(m, kServiceIdMsb) != has(m, kServiceIdLsb))
    return HandlerResult::error(status::kInsufficientComponents);

  const std::size_t nsrc = std::min<std::size_t>(rec[15], kMaxGids);
  const std::size_t ndst = std::min<std::size_t>(rec[16], kMaxGids - nsrc);
  std::array<End, kMaxGids> ends{};
  for (std::size_t i = 0; i < nsrc + ndst; ++i) {
    const std::span<const std::uint8_t> gid(rec.data() + kHeader + 16 * i, 16);
    ends[i] = end_of_gid(ctx, gid, i < nsrc);
    if (!ends[i].port.valid()) return HandlerResult::error(status::kReqInvalidGid);
  }
  if (nsrc == 0 || ndst == 0) return HandlerResult::error(status::kReqInvalid);

  const PathQuery q = read_query(rec, m);
  const PathResolver resolver(ctx.snap, ctx.settings);
  const Ctx c{ctx, resolver, q};
  std::vector<NamedPath> paths;
  const unsigned numb = rec[5] & 0x7f;
  if (nsrc == 2 && ndst == 2 && numb == 2) {
    apm_paths(c, {ends[0], ends[1], ends[2], ends[3]}, paths);
  } else {
    const unsigned max_paths = has(m, kNumbPath) ? numb : kDefaultMaxPaths;
    unsigned total = 0;
    for (std::size_t si = 0; si < nsrc && total < max_paths; ++si) {
      for (std::size_t di = nsrc; di < nsrc + ndst && total < max_paths; ++di)
        total += pair_paths(c, ends[si], ends[di], max_paths - total, paths);
    }
  }

  HandlerResult out;
  out.words = 8;
  out.attr_id = attr::kPathRecord;
  for (const NamedPath& p : paths) {
    const auto r = out.add();
    write_path_record(r, resolver, p.path, nullptr);
    // SGID and DGID carry the GUIDs the request listed, aliases included, under the
    // subnet prefix (OpenSM mpr_rcv_build_pr writes each end's alias_guid).
    put_be(r, 16, p.dguid, 8);
    put_be(r, 32, p.sguid, 8);
  }
  return out;
}

}  // namespace ibsm::sa
