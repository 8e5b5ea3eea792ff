#include "agent/node_file.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include "agent/errors.hpp"
#include "agent/input_grammar.hpp"

namespace ibsm::agent {
namespace {

// Parse failures inside the walk below unwind with this; the entry point turns
// it into a Result. Config parsing is start-up code, where exceptions are allowed.
struct NodeFileError {
  Error error;
};

class Walker {
 public:
  explicit Walker(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail_at(ErrorId id, const toml::source_region& where, const std::string& key,
                            const std::string& what) const {
    std::ostringstream os;
    os << path_ << ':' << where.begin.line << ':' << where.begin.column << ": " << key << ": "
       << what;
    throw NodeFileError{Error{id, os.str()}};
  }

  // Rejects keys of `t` not in `allowed`.
  void only(const toml::table& t, const std::string& prefix,
            std::initializer_list<std::string_view> allowed) const {
    for (auto&& [k, v] : t) {
      bool known = false;
      for (auto a : allowed)
        known = known || k.str() == a;
      if (!known) {
        std::string list;
        for (auto a : allowed)
          list += (list.empty() ? "" : ", ") + std::string(a);
        fail_at(kNodeFileUnknownKey, k.source(), join(prefix, k.str()),
                "unknown key (known here: " + list + ")");
      }
    }
  }

  static std::string join(const std::string& prefix, std::string_view key) {
    return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
  }

  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (auto* t = n.as_table()) return *t;
    fail_at(kNodeFileBadValue, n.source(), key, "expected a table");
  }

  std::string str(const toml::node& n, const std::string& key) const {
    if (auto v = n.value<std::string>(); v && n.is_string()) return *v;
    fail_at(kNodeFileBadValue, n.source(), key, "expected a string");
  }

  // A string that must match `ok` (agent/input_grammar.hpp): names and addresses end
  // up in paths, argv and rendered files (ifupdown's lines run through /bin/sh).
  std::string checked(const toml::node& n, const std::string& key, bool (*ok)(std::string_view),
                      ErrorId id, const char* grammar) const {
    std::string s = str(n, key);
    if (!ok(s)) fail_at(id, n.source(), key, "\"" + printable(s) + "\" is not " + grammar);
    return s;
  }

  std::string ifname(const toml::node& n, const std::string& key) const {
    return checked(n, key, valid_ifname, kNodeFileBadName,
                   "an interface name ([A-Za-z0-9_.:-], 1 to 15 characters, not . or ..)");
  }

  std::string device(const toml::node& n, const std::string& key) const {
    return checked(n, key, valid_rdma_device_name, kNodeFileBadName,
                   "an RDMA device name ([A-Za-z0-9_.:-], 1 to 64 characters, not . or ..)");
  }

  std::vector<std::string> addresses(const toml::node& n, const std::string& key) const {
    auto* a = n.as_array();
    if (!a) fail_at(kNodeFileBadValue, n.source(), key, "expected an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a->size(); ++i)
      out.push_back(checked((*a)[i], key + "[" + std::to_string(i) + "]", valid_address,
                            kNodeFileBadAddress,
                            "an address with its prefix (10.0.0.5/16, fd00::5/64)"));
    return out;
  }

  // `what` quoted in a message: control bytes and non-ASCII as \xNN, at most 80 bytes.
  static std::string printable(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      if (out.size() >= 80) return out + "...";
      if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
        out += static_cast<char>(c);
      } else {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\x";
        out += kHex[c >> 4];
        out += kHex[c & 15];
      }
    }
    return out;
  }

  std::int64_t integer(const toml::node& n, const std::string& key, std::int64_t lo,
                       std::int64_t hi) const {
    if (!n.is_integer()) fail_at(kNodeFileBadValue, n.source(), key, "expected an integer");
    auto v = n.as_integer()->get();
    if (v < lo || v > hi) {
      std::ostringstream os;
      os << "value " << v << " outside " << lo << ".." << hi;
      fail_at(kNodeFileBadValue, n.source(), key, os.str());
    }
    return v;
  }

  bool boolean(const toml::node& n, const std::string& key) const {
    if (!n.is_boolean()) fail_at(kNodeFileBadValue, n.source(), key, "expected true or false");
    return n.as_boolean()->get();
  }

  std::vector<std::string> strings(const toml::node& n, const std::string& key) const {
    auto* a = n.as_array();
    if (!a) fail_at(kNodeFileBadValue, n.source(), key, "expected an array of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a->size(); ++i)
      out.push_back(str((*a)[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }

  // Maps a string value to one of `choices`.
  template <class E>
  E choice(const toml::node& n, const std::string& key,
           std::initializer_list<std::pair<std::string_view, E>> choices) const {
    std::string s = n.is_string() ? *n.value<std::string>() : std::string();
    std::string list;
    for (auto& [name, value] : choices) {
      if (n.is_string() && s == name) return value;
      list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    fail_at(kNodeFileBadValue, n.source(), key, "expected one of " + list);
  }

  Mtu mtu(const toml::node& n, const std::string& key) const {
    if (n.is_string()) {
      if (*n.value<std::string>() == "auto") return Mtu{};
      fail_at(kNodeFileBadValue, n.source(), key, "expected a number or \"auto\"");
    }
    return Mtu{static_cast<int>(integer(n, key, 68, 65520))};
  }

  // "auto" (ask the SA) or an IB MTU in bytes.
  BroadcastMtu broadcast_mtu(const toml::node& n, const std::string& key) const {
    constexpr const char* kExpected =
        "expected \"auto\" or an IB MTU: 256, 512, 1024, 2048 or 4096";
    if (n.is_string()) {
      if (*n.value<std::string>() == "auto") return BroadcastMtu{};
      fail_at(kNodeFileBadValue, n.source(), key, kExpected);
    }
    if (!n.is_integer()) fail_at(kNodeFileBadValue, n.source(), key, kExpected);
    auto v = n.as_integer()->get();
    if (v < 256 || v > 4096 || (v & (v - 1)))
      fail_at(kNodeFileBadValue, n.source(), key, "value " + std::to_string(v) + ": " + kExpected);
    return BroadcastMtu{static_cast<int>(v), {}};
  }

  IpoibMode mode(const toml::node& n, const std::string& key) const {
    return choice<IpoibMode>(
        n, key, {{"datagram", IpoibMode::kDatagram}, {"connected", IpoibMode::kConnected}});
  }

  Membership membership(const toml::node& n, const std::string& key) const {
    return choice<Membership>(n, key, {{"full", Membership::kFull}, {"any", Membership::kAny}});
  }

  // Iterates an array of tables (`[[name]]`), giving each table and its key path.
  template <class F>
  void each_table(const toml::node& n, const std::string& key, F&& f) const {
    auto* a = n.as_array();
    if (!a) fail_at(kNodeFileBadValue, n.source(), key, "expected an array of tables");
    for (std::size_t i = 0; i < a->size(); ++i) {
      std::string k = key + "[" + std::to_string(i) + "]";
      f(table((*a)[i], k), k);
    }
  }

  PortRef port(const toml::node& n, const std::string& key) const {
    const auto& t = table(n, key);
    only(t, key, {"guid", "device", "port"});
    PortRef p;
    if (auto* g = t.get("guid")) {
      if (g->is_integer()) {
        p.guid = static_cast<std::uint64_t>(g->as_integer()->get());
      } else {
        // GUIDs with the top bit set do not fit TOML's signed integers: accept a string.
        std::string s = str(*g, key + ".guid");
        std::string_view digits = s;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
          digits.remove_prefix(2);
        auto v = digits.size() <= 16 ? parse_uint(digits, UINT64_MAX, 16) : std::nullopt;
        if (!v) fail_at(kNodeFileBadValue, g->source(), key + ".guid", "expected a hex GUID");
        p.guid = *v;
      }
    }
    if (auto* d = t.get("device")) p.device = device(*d, key + ".device");
    if (auto* pn = t.get("port")) p.port = static_cast<int>(integer(*pn, key + ".port", 1, 254));
    if (p.guid.has_value() == !p.device.empty())
      fail_at(kNodeFileBadValue, n.source(), key, "give either guid or device (+ port)");
    return p;
  }

  PKeyChild child(const toml::table& t, const std::string& key) const {
    only(t, key, {"pkey", "name", "mode", "mtu", "addresses", "membership"});
    PKeyChild c;
    auto* pk = t.get("pkey");
    if (!pk) fail_at(kNodeFileBadValue, t.source(), key + ".pkey", "missing");
    c.pkey = static_cast<std::uint16_t>(integer(*pk, key + ".pkey", 0, 0xffff));
    if (auto* v = t.get("name")) c.name = ifname(*v, key + ".name");
    if (auto* v = t.get("mode")) c.mode = mode(*v, key + ".mode");
    if (auto* v = t.get("mtu")) c.mtu = mtu(*v, key + ".mtu");
    if (auto* v = t.get("addresses")) c.addresses = addresses(*v, key + ".addresses");
    if (auto* v = t.get("membership")) c.membership = membership(*v, key + ".membership");
    return c;
  }

  IpoibInterface ipoib(const toml::table& t, const std::string& key) const {
    only(t, key,
         {"port", "name", "mode", "mtu", "addresses", "broadcast_mtu", "membership", "pkeys",
          "child", "persistent_name"});
    IpoibInterface i;
    auto* p = t.get("port");
    if (!p) fail_at(kNodeFileBadValue, t.source(), key + ".port", "missing");
    i.port = port(*p, key + ".port");
    if (auto* v = t.get("name")) i.name = ifname(*v, key + ".name");
    if (auto* v = t.get("mode")) i.mode = mode(*v, key + ".mode");
    if (auto* v = t.get("mtu")) i.mtu = mtu(*v, key + ".mtu");
    if (auto* v = t.get("addresses")) i.addresses = addresses(*v, key + ".addresses");
    if (auto* v = t.get("broadcast_mtu"))
      i.broadcast_mtu = broadcast_mtu(*v, key + ".broadcast_mtu");
    if (auto* v = t.get("membership")) i.membership = membership(*v, key + ".membership");
    if (auto* v = t.get("persistent_name"))
      i.persistent_name = boolean(*v, key + ".persistent_name");
    if (auto* v = t.get("pkeys")) {
      if (v->is_string() && *v->value<std::string>() == "auto") {
        i.auto_pkeys = true;
      } else if (auto* a = v->as_array()) {
        for (std::size_t n = 0; n < a->size(); ++n) {
          PKeyChild c;
          c.pkey = static_cast<std::uint16_t>(
              integer((*a)[n], key + ".pkeys[" + std::to_string(n) + "]", 0, 0xffff));
          i.children.push_back(c);
        }
      } else {
        fail_at(kNodeFileBadValue, v->source(), key + ".pkeys",
                "expected \"auto\" or an array of P_Keys");
      }
    }
    if (auto* v = t.get("child"))
      each_table(*v, key + ".child", [&](const toml::table& ct, const std::string& k) {
        i.children.push_back(child(ct, k));
      });
    return i;
  }

  // A list of integers in lo..hi; `size` entries when non-zero; no repeats when `unique`.
  std::vector<int> int_list(const toml::node& n, const std::string& key, int lo, int hi,
                            std::size_t size, bool unique) const {
    auto* a = n.as_array();
    if (!a) fail_at(kNodeFileBadValue, n.source(), key, "expected an array of integers");
    if (size && a->size() != size)
      fail_at(kNodeFileBadValue, n.source(), key,
              "expected " + std::to_string(size) + " entries (one per priority or TC 0..7), got " +
                  std::to_string(a->size()));
    std::vector<int> out;
    for (std::size_t i = 0; i < a->size(); ++i) {
      int v = static_cast<int>(integer((*a)[i], key + "[" + std::to_string(i) + "]", lo, hi));
      if (unique && std::find(out.begin(), out.end(), v) != out.end())
        fail_at(kNodeFileBadValue, (*a)[i].source(), key, std::to_string(v) + " listed twice");
      out.push_back(v);
    }
    return out;
  }

  // [roce.dcb]: pfc, trust, dscp_prio, prio_tc, tc_bw.
  DcbSettings dcb(const toml::node& n, const std::string& key) const {
    const auto& t = table(n, key);
    only(t, key, {"pfc", "trust", "dscp_prio", "prio_tc", "tc_bw"});
    DcbSettings d;
    if (auto* v = t.get("pfc")) d.pfc = int_list(*v, key + ".pfc", 0, 7, 0, true);
    if (auto* v = t.get("trust"))
      d.trust = choice<DcbTrust>(*v, key + ".trust",
                                 {{"pcp", DcbTrust::kPcp}, {"dscp", DcbTrust::kDscp}});
    if (auto* v = t.get("dscp_prio")) {
      // "DSCP:PRIO" strings, as dcb-app(8) writes them: "26:3".
      for (const auto& m : strings(*v, key + ".dscp_prio")) {
        auto colon = m.find(':');
        auto num = [](const std::string& s, int hi) {
          auto x = s.size() <= 2 ? parse_uint(s, static_cast<std::uint64_t>(hi)) : std::nullopt;
          return x ? static_cast<int>(*x) : -1;
        };
        int dscp = colon == std::string::npos ? -1 : num(m.substr(0, colon), 63);
        int prio = colon == std::string::npos ? -1 : num(m.substr(colon + 1), 7);
        if (dscp < 0 || prio < 0)
          fail_at(kNodeFileBadValue, v->source(), key + ".dscp_prio",
                  "\"" + m + "\" is not DSCP:PRIORITY (DSCP 0..63, priority 0..7)");
        for (const auto& [have, _] : d.dscp_prio)
          if (have == dscp)
            fail_at(kNodeFileBadValue, v->source(), key + ".dscp_prio",
                    "DSCP " + std::to_string(dscp) + " mapped twice");
        d.dscp_prio.emplace_back(dscp, prio);
      }
    }
    if (auto* v = t.get("prio_tc")) d.prio_tc = int_list(*v, key + ".prio_tc", 0, 7, 8, false);
    if (auto* v = t.get("tc_bw")) {
      d.tc_bw = int_list(*v, key + ".tc_bw", 0, 100, 8, false);
      int sum = 0;
      for (int b : *d.tc_bw)
        sum += b;
      if (sum != 100)
        fail_at(kNodeFileBadValue, v->source(), key + ".tc_bw",
                "the ETS shares add up to " + std::to_string(sum) + ", not 100");
    }
    return d;
  }

  // [[nfs_rdma.mount]]: what = "server:/export", where = "/mnt/x", options = [...].
  NfsMount nfs_mount(const toml::table& mt, const std::string& k) const {
    only(mt, k, {"what", "where", "options"});
    NfsMount m;
    auto* what = mt.get("what");
    auto* where = mt.get("where");
    if (!what || !where)
      fail_at(kNodeFileBadValue, mt.source(), k, "needs what = \"server:/export\" and where");
    m.what = checked(*what, k + ".what", valid_nfs_export, kNodeFileBadValue,
                     "server:/export (host of [A-Za-z0-9_.-] or [IPv6], path components of "
                     "[A-Za-z0-9_.+@-])");
    m.where = checked(*where, k + ".where", valid_plain_path, kNodeFileBadValue,
                      "an absolute mount point (components of [A-Za-z0-9_.+@-], no trailing /, "
                      ". or ..)");
    if (auto* o = mt.get("options")) {
      m.options = strings(*o, k + ".options");
      for (const auto& opt : m.options)
        if (!valid_mount_option(opt) || opt.rfind("proto=", 0) == 0 || opt.rfind("port=", 0) == 0)
          fail_at(kNodeFileBadValue, o->source(), k + ".options",
                  "\"" + printable(opt) +
                      "\": one mount option per string, without proto= or port= "
                      "(the agent sets proto=rdma and nfs_rdma.port)");
    }
    return m;
  }

  NodeConfig root(const toml::table& t) const {
    only(t, "", {"agent", "ipoib", "roce", "soft_rdma", "modules", "memlock", "nfs_rdma"});
    NodeConfig c;
    if (auto* a = t.get("agent")) {
      const auto& at = table(*a, "agent");
      only(at, "agent", {"backend", "protected_interfaces", "ibping_responder"});
      if (auto* v = at.get("ibping_responder"))
        c.ibping_responder = boolean(*v, "agent.ibping_responder");
      if (auto* v = at.get("backend"))
        c.backend = choice<Backend>(*v, "agent.backend",
                                    {{"auto", Backend::kAuto},
                                     {"networkmanager", Backend::kNetworkManager},
                                     {"networkd", Backend::kNetworkd},
                                     {"ifupdown", Backend::kIfupdown},
                                     {"direct", Backend::kDirect}});
      if (auto* v = at.get("protected_interfaces")) {
        auto* list = v->as_array();
        if (!list)
          fail_at(kNodeFileBadValue, v->source(), "agent.protected_interfaces",
                  "expected an array of strings");
        for (std::size_t n = 0; n < list->size(); ++n)
          c.protected_interfaces.push_back(
              ifname((*list)[n], "agent.protected_interfaces[" + std::to_string(n) + "]"));
      }
    }
    if (auto* v = t.get("ipoib"))
      each_table(*v, "ipoib", [&](const toml::table& it, const std::string& k) {
        c.ipoib.push_back(ipoib(it, k));
      });
    if (auto* v = t.get("roce"))
      each_table(*v, "roce", [&](const toml::table& rt, const std::string& k) {
        only(rt, k, {"device", "port", "default_mode", "tos", "dcb"});
        RoceSetting r;
        auto* d = rt.get("device");
        if (!d) fail_at(kNodeFileBadValue, rt.source(), k + ".device", "missing");
        r.device = device(*d, k + ".device");
        if (auto* p = rt.get("port")) r.port = static_cast<int>(integer(*p, k + ".port", 1, 254));
        if (auto* m = rt.get("default_mode"))
          r.mode = choice<RoceMode>(*m, k + ".default_mode",
                                    {{"v1", RoceMode::kV1}, {"v2", RoceMode::kV2}});
        if (auto* s = rt.get("tos")) r.tos = static_cast<int>(integer(*s, k + ".tos", 0, 255));
        if (auto* dc = rt.get("dcb")) r.dcb = dcb(*dc, k + ".dcb");
        c.roce.push_back(r);
      });
    if (auto* v = t.get("soft_rdma"))
      each_table(*v, "soft_rdma", [&](const toml::table& st, const std::string& k) {
        only(st, k, {"name", "type", "netdev"});
        SoftRdma s;
        for (auto req : {"name", "type", "netdev"})
          if (!st.get(req)) fail_at(kNodeFileBadValue, st.source(), k + "." + req, "missing");
        s.name = device(*st.get("name"), k + ".name");
        s.type = choice<SoftRdmaType>(*st.get("type"), k + ".type",
                                      {{"rxe", SoftRdmaType::kRxe}, {"siw", SoftRdmaType::kSiw}});
        s.netdev = ifname(*st.get("netdev"), k + ".netdev");
        c.soft_rdma.push_back(s);
      });
    if (auto* v = t.get("modules")) {
      const auto& mt = table(*v, "modules");
      only(mt, "modules", {"infiniband", "roce", "iwarp", "opa", "rdma"});
      for (auto&& [k, list] : mt) {
        std::string key = "modules." + std::string(k.str());
        auto* a = list.as_array();
        if (!a) fail_at(kNodeFileBadValue, list.source(), key, "expected an array of strings");
        ModuleList l{std::string(k.str()), {}};
        for (std::size_t n = 0; n < a->size(); ++n)
          l.modules.push_back(checked((*a)[n], key + "[" + std::to_string(n) + "]",
                                      valid_module_name, kNodeFileBadName,
                                      "a kernel module name ([A-Za-z0-9_-], 1 to 56 characters)"));
        c.modules.push_back(std::move(l));
      }
    }
    if (auto* v = t.get("memlock")) {
      const auto& mt = table(*v, "memlock");
      only(mt, "memlock", {"group", "soft", "hard", "services"});
      Memlock m;
      if (auto* g = mt.get("group"))
        m.group = checked(*g, "memlock.group", valid_group_name, kNodeFileBadName,
                          "a group name ([A-Za-z_][A-Za-z0-9_.-], at most 32 characters)");
      for (auto [name, field] : {std::pair{"soft", &m.soft}, std::pair{"hard", &m.hard}}) {
        auto* n = mt.get(name);
        if (!n) continue;
        std::string key = std::string("memlock.") + name;
        // KiB: at most what fits in bytes as a 64-bit number (memlock_check multiplies by 1024).
        constexpr std::int64_t kMaxKib = INT64_MAX / 1024;
        *field = n->is_integer() ? std::to_string(integer(*n, key, 0, kMaxKib)) : str(*n, key);
        if (*field != "unlimited" && !parse_uint(*field, kMaxKib))
          fail_at(kNodeFileBadValue, n->source(), key,
                  "expected \"unlimited\" or KiB as a number up to " + std::to_string(kMaxKib));
      }
      if (auto* s = mt.get("services")) {
        m.services = strings(*s, "memlock.services");
        for (const auto& unit : m.services)
          if (!valid_service_name(unit))
            fail_at(kNodeFileBadName, s->source(), "memlock.services",
                    "\"" + printable(unit) +
                        "\" is not a systemd service name (NAME.service, NAME of "
                        "[A-Za-z0-9_.:@-])");
      }
      c.memlock = m;
    }
    if (auto* v = t.get("nfs_rdma")) {
      const auto& nt = table(*v, "nfs_rdma");
      only(nt, "nfs_rdma", {"server", "client", "port", "mount"});
      NfsRdma n;
      if (auto* s = nt.get("server")) n.server = boolean(*s, "nfs_rdma.server");
      if (auto* s = nt.get("client")) n.client = boolean(*s, "nfs_rdma.client");
      if (auto* s = nt.get("port"))
        n.port = static_cast<int>(integer(*s, "nfs_rdma.port", 1, 65535));
      if (auto* m = nt.get("mount"))
        each_table(*m, "nfs_rdma.mount", [&](const toml::table& mt, const std::string& k) {
          n.mounts.push_back(nfs_mount(mt, k));
        });
      n.client = n.client || !n.mounts.empty();
      c.nfs = n;
    }
    return c;
  }

 private:
  std::string path_;
};

}  // namespace

Result<NodeConfig> parse_node_file(std::string_view text, const std::string& path) {
  toml::table t;
  try {
    t = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << path << ':' << e.source().begin.line << ':' << e.source().begin.column << ": "
       << e.description();
    return fail(kNodeFileSyntax, os.str());
  }
  try {
    return Walker(path).root(t);
  } catch (const NodeFileError& e) {
    return fail(e.error);
  }
}

Result<NodeConfig> load_node_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(kNodeFileUnreadable, path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return fail(kNodeFileUnreadable, path + ": read error");
  return parse_node_file(ss.str(), path);
}

}  // namespace ibsm::agent
