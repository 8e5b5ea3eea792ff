// TraceRecord (IBA 15.2.5.20): GetTraceTable with a PathRecord as the template
// answers with the nodes the path crosses. OpenSM does not serve it; ibsm does.
//
// Format choices (the IDs are the SA's to define):
//  - The path traced is the one a PathRecord Get with the same template returns
//    (the first path of the first port pair, its SLID/DLID), with the same checks
//    and the same partition rules; a template that selects no path gives an empty
//    table.
//  - One record per node, source first: the source (EntryPort 0), every switch
//    (EntryPort = ingress, ExitPort = egress), the destination (ExitPort 0). A
//    loopback path is one record with EntryPort = ExitPort. A switch endpoint counts
//    its port 0 as where the path starts or ends (reported as port 0).
//  - GIDPrefix is the subnet prefix; IDGeneration the low 16 bits of the snapshot
//    generation, so it changes whenever the SA's view of the fabric is rebuilt;
//    NodeID the NodeGUID, ChassisID the SystemImageGUID, Entry/ExitPortID the GUIDs
//    of those ports (0 where the port is 0 by the rules above). GUIDs are not
//    hidden: NodeRecord gives them to the same requester anyway.
//  - A multicast template traces nothing (a group is a tree, not a path).
#include "sa/handlers.hpp"
#include "sa/path_resolver.hpp"
#include "sa/records/path_request.hpp"
#include "sa/records/record_util.hpp"

namespace ibsm::sa {

namespace {

constexpr std::size_t kTraceRecordWords = 6;  // 46 bytes, padded

class FirstPath final : public pathrec::PathSink {
 public:
  bool take(const ResolvedPath& p) override {
    path = p;
    return false;
  }
  std::optional<ResolvedPath> path;
};

}  // namespace

HandlerResult handle_trace_record(RequestContext& ctx) {
  HandlerResult out;
  out.words = kTraceRecordWords;
  const PathResolver resolver(ctx.snap, ctx.settings);
  pathrec::Request req;
  if (const std::uint16_t st = pathrec::read_request(ctx, resolver.tables(), req);
      st != status::kOk)
    return HandlerResult::error(st);
  if (req.multicast) return out;
  req.get = true;  // one path is traced
  req.per_pair = 1;
  FirstPath first;
  pathrec::for_each_path(ctx, resolver, req, first);
  if (!first.path) return out;

  const Snapshot& s = ctx.snap;
  for (const TraceHop& h : resolver.trace(first.path->src, first.path->dst, first.path->dlid)) {
    const SnapNode& n = s.nodes[h.node];
    auto guid_of = [&](bool present, PortNum num) -> Guid {
      if (!present || num == 0 || num >= n.ports.size()) return 0;
      return n.ports[num].guid;
    };
    auto rec = out.add();
    put_be(rec, 0, s.subnet_prefix, 8);
    put_be(rec, 8, s.generation & 0xffff, 2);
    rec[11] = static_cast<std::uint8_t>(n.info.node_type);
    put_be(rec, 12, n.info.node_guid, 8);
    put_be(rec, 20, n.info.system_image_guid, 8);
    put_be(rec, 28, guid_of(h.has_entry, h.entry), 8);
    put_be(rec, 36, guid_of(h.has_exit, h.exit), 8);
    rec[44] = h.has_entry ? h.entry : 0;
    rec[45] = h.has_exit ? h.exit : 0;
  }
  return out;
}

}  // namespace ibsm::sa
