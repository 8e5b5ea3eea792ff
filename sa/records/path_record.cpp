// PathRecord (IBA 15.2.5.16): Get and GetTable, answered as OpenSM's
// osm_sa_path_record.c answers them (sa.md 4). Paths are computed from the
// snapshot's LFTs by sa/path_resolver.hpp; this file reads the query, finds its
// endpoints, walks the port pairs it selects and writes the records.
#include <algorithm>

#include "sa/handlers.hpp"
#include "sa/path_resolver.hpp"
#include "sa/records/path_request.hpp"
#include "sa/records/record_util.hpp"
#include "sa/state.hpp"

namespace ibsm::sa {

namespace pathrec {

namespace {

std::uint64_t be64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v = (v << 8) | p[i];
  return v;
}
std::uint16_t be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

// A unicast GID of this subnet names a port by its GUID; link-local or the subnet
// prefix only (IBA 4.1.1). Anything else names no port here (OpenSM: INVALID_GID,
// which the PathRecord handler turns into an empty answer; with no prefix routes
// configured there is no router to send off-subnet paths to).
PortRef port_of_gid(const Snapshot& s, const PathTables& t, const std::uint8_t* gid) {
  const std::uint64_t prefix = be64(gid);
  if (!gid_prefix_link_local(prefix) && prefix != s.subnet_prefix) return {};
  return t.find_guid(be64(gid + 8));
}

// The port a GID names by an alias GUID (GUIDInfo index 1 and up, IBA 14.2.5.5,
// assigned with GUIDInfoRecord Set, IBA 15.2.5.18), for a GID port_of_gid did not
// find: OpenSM looks port and alias GUIDs up in one table (osm_get_alias_guid_by_guid).
// `alias` is set to the GUID when it names a port. Asked only after the port GUIDs
// failed, and out of line, so that the common query (a port GUID) costs what it did
// before aliases existed.
[[gnu::noinline, gnu::cold]] PortRef port_of_alias(const RequestContext& ctx, const PathTables& t,
                                                   const std::uint8_t* gid, Guid& alias) {
  const std::uint64_t prefix = be64(gid);
  if (!gid_prefix_link_local(prefix) && prefix != ctx.snap.subnet_prefix) return {};
  const Guid guid = be64(gid + 8);
  AliasGuids& aliases = ctx.state.aliases;
  aliases.sync(ctx.snap);  // tables of ports gone from this snapshot name nothing
  const Guid base = aliases.port_of(guid);
  if (base == 0) return {};
  const PortRef p = t.find_guid(base);
  if (p.valid()) alias = guid;
  return p;
}

// The router port for a unicast DGID outside the subnet (OpenSM find_router): the
// first prefix route that matches and names a router of this fabric.
[[gnu::noinline, gnu::cold]] PortRef port_of_router(const Snapshot& s, const PathTables& t,
                                                    const std::uint8_t* gid, Request& req) {
  const std::uint64_t prefix = be64(gid);
  if (gid_prefix_link_local(prefix) || prefix == s.subnet_prefix || !s.prefix_routes) return {};
  const Guid router = route_for(*s.prefix_routes, prefix, s.router_ports);
  if (router == 0) return {};
  const PortRef p = t.find_guid(router);
  if (!p.valid()) return {};
  req.off_subnet = true;
  std::copy_n(gid, req.dgid.size(), req.dgid.begin());
  return p;
}

}  // namespace

std::uint16_t read_request(const RequestContext& ctx, const PathTables& t, Request& req) {
  const auto& data = ctx.request.data;
  std::copy_n(data.begin(), std::min(data.size(), kSize), req.rec.begin());
  const std::uint8_t* rec = req.rec.data();
  const std::uint64_t m = ctx.comp_mask();
  req.mask = m;
  req.get = ctx.method() == method::kGet;

  // Enumerations are checked only when they select something (OpenSM).
  if (has(m, kRateSelector) && has(m, kRate) && !rate_valid(rec[55] & 0x3f))
    return status::kReqInvalid;
  if (has(m, kMtuSelector) && has(m, kMtu) && !mtu_valid(rec[54] & 0x3f))
    return status::kReqInvalid;
  // IBA 15.2.5.16: ServiceID is one value; half of it selects nothing meaningful.
  if (has(m, kServiceIdMsb) != has(m, kServiceIdLsb)) return status::kInsufficientComponents;

  PathQuery& q = req.query;
  q.raw_traffic = has(m, kRawTraffic) && (rec[44] & 0x80) != 0;
  if (has(m, kPKey)) q.pkey = be16(rec + 50);
  if (has(m, kSl)) q.sl = static_cast<std::uint8_t>(rec[53] & 0x0f);
  if (has(m, kQosClass)) q.qos_class = static_cast<std::uint16_t>(be16(rec + 52) >> 4);
  if (has(m, kServiceIdMsb) && has(m, kServiceIdLsb)) q.service_id = be64(rec);
  auto selected = [&](unsigned sel_bit, unsigned val_bit, std::uint8_t byte) {
    PathQuery::Selected s;
    s.set = has(m, sel_bit) && has(m, val_bit);
    s.sel = static_cast<std::uint8_t>(byte >> 6);
    s.value = byte & 0x3f;
    return s;
  };
  q.mtu = selected(kMtuSelector, kMtu, rec[54]);
  q.rate = selected(kRateSelector, kRate, rec[55]);
  q.life = selected(kLifeSelector, kLife, rec[56]);
  q.reversible_required = has(m, kReversible) && (rec[49] & 0x80) != 0;
  if (req.get) {
    req.per_pair = 1;  // IBA 1.2 erratum: a Get asks for one path
  } else if (has(m, kNumbPath)) {
    req.per_pair = rec[49] & 0x7f;
  }

  if (has(m, kDgid) && rec[8] == 0xff) {
    req.multicast = true;
    return status::kOk;
  }

  // Endpoints, in OpenSM's order: the first that names nothing ends the search.
  const Snapshot& s = ctx.snap;
  PortRef src_gid, src_lid, dst_gid, dst_lid;
  if (has(m, kSgid)) {
    src_gid = port_of_gid(s, t, rec + 24);
    Guid alias = 0;  // unused: the SGID is echoed as it came (req.sgid), alias or not
    if (!src_gid.valid()) src_gid = port_of_alias(ctx, t, rec + 24, alias);
    if (!src_gid.valid()) {
      req.no_paths = true;
      return status::kOk;
    }
    req.echo_sgid = true;
    std::copy_n(rec + 24, 16, req.sgid.begin());
  }
  if (has(m, kSlid)) {
    src_lid = s.find_lid(be16(rec + 42));
    if (!src_lid.valid()) {
      req.no_paths = true;
      return status::kOk;
    }
  }
  if (has(m, kDgid)) {
    dst_gid = port_of_gid(s, t, rec + 8);
    if (!dst_gid.valid()) dst_gid = port_of_alias(ctx, t, rec + 8, req.dgid_alias);
    if (!dst_gid.valid()) dst_gid = port_of_router(s, t, rec + 8, req);
    if (!dst_gid.valid()) {
      req.no_paths = true;
      return status::kOk;
    }
  }
  if (has(m, kDlid)) {
    dst_lid = s.find_lid(be16(rec + 40));
    if (!dst_lid.valid()) {
      req.no_paths = true;
      return status::kOk;
    }
  }
  // Two names for one end that disagree are the client's error (IBA C15-0.1.x).
  if (src_gid.valid() && src_lid.valid() && !(src_gid == src_lid)) return status::kReqInvalid;
  if (dst_gid.valid() && dst_lid.valid() && !(dst_gid == dst_lid)) return status::kReqInvalid;
  req.src = src_gid.valid() ? src_gid : src_lid;
  req.dst = dst_gid.valid() ? dst_gid : dst_lid;
  return status::kOk;
}

namespace {

// All paths of one port pair (OpenSM pr_rcv_get_port_pair_paths). Returns false
// when the sink wants no more.
bool pair_paths(const RequestContext& ctx, const PathResolver& r, const Request& req, PortRef src,
                PortRef dst, std::size_t& taken, PathSink& sink) {
  if (!r.share_pkey(ctx.requester, src) || !r.share_pkey(ctx.requester, dst) ||
      !r.share_pkey(src, dst))
    return true;
  const PathTables& t = r.tables();
  const PathTables::Port& sp = t.ports[t.flat(src)];
  const PathTables::Port& dp = t.ports[t.flat(dst)];
  unsigned s_min = sp.lid, s_max = sp.lid + (1u << sp.lmc) - 1;
  unsigned d_min = dp.lid, d_max = dp.lid + (1u << dp.lmc) - 1;
  if (has(req.mask, kSlid)) s_min = s_max = be16(req.rec.data() + 42);
  if (has(req.mask, kDlid)) d_min = d_max = be16(req.rec.data() + 40);
  if (s_min == 0 || d_min == 0) return true;  // a port without a LID has no paths

  unsigned found = 0;
  auto attempt = [&](unsigned slid, unsigned dlid, std::uint8_t preference) {
    auto p =
        r.resolve(src, static_cast<Lid>(slid), dst, static_cast<Lid>(dlid), req.query, preference);
    if (!p) return true;
    ++found;
    ++taken;
    return sink.take(*p);
  };
  // Preference 0: base+i to base+i, the pairs LMC routing spreads over distinct routes.
  for (unsigned sl = s_min, dl = d_min; found < req.per_pair && sl <= s_max && dl <= d_max;
       ++sl, ++dl) {
    if (!attempt(sl, dl, 0)) return false;
  }
  // Preference 2: the cross pairs (OpenSM never reports preference 1).
  for (unsigned so = 0; so <= s_max - s_min && found < req.per_pair; ++so) {
    for (unsigned dof = 0; dof <= d_max - d_min && found < req.per_pair; ++dof) {
      if (so == dof) continue;  // reported with preference 0
      if (!attempt(s_min + so, d_min + dof, 2)) return false;
    }
  }
  return true;
}

}  // namespace

void for_each_path(const RequestContext& ctx, const PathResolver& r, const Request& req,
                   PathSink& sink) {
  if (req.no_paths || req.multicast || req.per_pair == 0) return;
  const PathTables& t = r.tables();
  std::size_t taken = 0;
  auto ref = [&](std::uint32_t fp) { return PortRef{t.ports[fp].node, t.ports[fp].num}; };
  // A Get ends at the first pair that gave a path.
  auto done = [&] { return req.get && taken > 0; };
  if (req.src.valid() && req.dst.valid()) {
    pair_paths(ctx, r, req, req.src, req.dst, taken, sink);
  } else if (req.src.valid()) {
    for (std::uint32_t fp : t.endpoints) {
      if (!pair_paths(ctx, r, req, req.src, ref(fp), taken, sink) || done()) return;
    }
  } else if (req.dst.valid()) {
    for (std::uint32_t fp : t.endpoints) {
      if (!pair_paths(ctx, r, req, ref(fp), req.dst, taken, sink) || done()) return;
    }
  } else {
    for (std::uint32_t d : t.endpoints) {
      for (std::uint32_t s : t.endpoints) {
        if (!pair_paths(ctx, r, req, ref(s), ref(d), taken, sink) || done()) return;
      }
    }
  }
}

namespace {

// Records a GetTable computes at most when the transport carries RMPP: a world
// query on a large fabric (46 million paths on 6800 ports) must not hold the SM's
// event loop, and no client can use that many from one answer.
constexpr std::size_t kMaxPathRecords = std::size_t{1} << 20;

class RecordSink final : public PathSink {
 public:
  RecordSink(const PathResolver& r, const Request& req, HandlerResult& out, std::size_t limit)
      : r_(r), req_(req), out_(out), limit_(limit) {}
  bool take(const ResolvedPath& p) override {
    const auto rec = out_.add();
    write_path_record(rec, r_, p, req_.echo_sgid ? &req_.sgid : nullptr);
    // DGID: the GUID the request named, the alias included (OpenSM pr_rcv_build_pr
    // writes the destination's alias_guid), under the subnet prefix.
    if (req_.dgid_alias != 0) put_be(rec, 16, req_.dgid_alias, 8);
    // Another subnet's DGID: the path leads to its router, the record names the DGID.
    if (req_.off_subnet) std::copy(req_.dgid.begin(), req_.dgid.end(), rec.begin() + 8);
    return out_.count < limit_;
  }

 private:
  const PathResolver& r_;
  const Request& req_;
  HandlerResult& out_;
  std::size_t limit_;
};

// A path to a multicast group (OpenSM pr_process_multicast): the group's MLID and
// parameters, the rest of the query echoed. The named source must be a member.
void multicast_path(const RequestContext& ctx, const Request& req, HandlerResult& out) {
  const std::uint8_t* rec = req.rec.data();
  const std::uint64_t m = req.mask;
  // The group store, not the snapshot: a group joined a moment ago has a path.
  Gid mgid{};
  std::copy_n(rec + 8, mgid.size(), mgid.begin());
  const McGroupRec* g = ctx.state.mcast.find(mgid);
  if (g == nullptr) return;
  auto member = [&](Guid guid) {
    return std::any_of(g->members.begin(), g->members.end(), [&](const McMember& mb) {
      return get_be(mb.port_gid, 8, 8) == guid || mb.port_guid == guid;
    });
  };
  if (has(m, kDlid) && be16(rec + 40) != g->mlid) return;
  if (has(m, kSgid) && !member(get_be(req.rec, 32, 8))) return;
  if (has(m, kSlid)) {
    const PortRef p = ctx.snap.find_lid(be16(rec + 42));
    if (!p.valid() || !member(ctx.snap.port(p).guid)) return;
  }
  if (has(m, kPKey) && be16(rec + 50) != g->pkey) return;
  if (has(m, kSl) && (rec[53] & 0x0f) != g->sl) return;
  if (has(m, kNumbPath) && !req.get && (rec[49] & 0x7f) == 0) return;
  const std::uint32_t word44 = static_cast<std::uint32_t>(get_be(req.rec, 44, 4));
  if (has(m, kFlowLabel) && ((word44 >> 8) & 0xfffff) != g->flow_label) return;
  if (has(m, kHopLimit) && (word44 & 0xff) != g->hop_limit) return;
  if (has(m, kTClass) && rec[48] != g->tclass) return;

  auto o = out.add();
  std::copy(req.rec.begin(), req.rec.end(), o.begin());
  std::copy(g->mgid.begin(), g->mgid.end(), o.begin() + 8);
  put_be(o, 40, g->mlid, 2);
  // HopLimit: a group beyond link-local scope (MGID scope nibble, IBA 4.1.1) may be
  // routed, so the path allows the maximum.
  const std::uint8_t hop = (g->mgid[1] & 0x0f) != 2 ? 0xff : g->hop_limit;
  put_be(o, 44, ((g->flow_label & 0xfffff) << 8) | hop, 4);
  o[48] = g->tclass;
  o[49] = 1;  // NumbPath 1, not reversible
  put_be(o, 50, g->pkey, 2);
  put_be(o, 52, g->sl & 0x0f, 2);
  const std::uint8_t exactly = selector::kExactly << 6;
  o[54] = static_cast<std::uint8_t>(exactly | (g->mtu & 0x3f));
  o[55] = static_cast<std::uint8_t>(exactly | (g->rate & 0x3f));
  o[56] = static_cast<std::uint8_t>(exactly | (g->packet_life & 0x3f));
}

}  // namespace
}  // namespace pathrec

HandlerResult handle_path_record(RequestContext& ctx) {
  using namespace pathrec;  // in the function: a unity build puts other record files after this one
  HandlerResult out;
  out.words = static_cast<std::uint16_t>(pathrec::kSize / 8);
  const PathResolver resolver(ctx.snap, ctx.settings);
  Request req;
  if (const std::uint16_t st = read_request(ctx, resolver.tables(), req); st != status::kOk)
    return HandlerResult::error(st);
  if (req.multicast) {
    multicast_path(ctx, req, out);
    return out;
  }
  std::size_t limit = req.get ? 2 : kMaxPathRecords;
  // Without RMPP only what fits one MAD leaves; one more tells the server it trimmed.
  if (!req.get && ctx.framing == Framing::kSingleMad) limit = kDataSize / pathrec::kSize + 1;
  RecordSink sink(resolver, req, out, limit);
  for_each_path(ctx, resolver, req, sink);
  if (!req.get && out.count >= kMaxPathRecords && ctx.framing == Framing::kKernelRmpp)
    ctx.log->info("SA: PathRecord GetTable from LID {} cut at {} records", ctx.from.lid,
                  kMaxPathRecords);
  return out;
}

}  // namespace ibsm::sa
