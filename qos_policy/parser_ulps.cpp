// QoS policy reader (parser_impl.hpp): the qos-ulps section, one line per ULP rule,
// each made into a match rule with a generated level (and a generated port group
// for the GUID lists), placed after those of qos-match-rules.
#include "qos_policy/parser_impl.hpp"

namespace ibsm::qos_policy::detail {

bool Parser::ulp_sl(MatchRule& r) {
  std::uint64_t sl = 0;
  const SourcePos pos = peek().pos;
  if (!number(sl)) return false;
  if (sl > 15) return error(pos, "illegal SL value " + std::to_string(sl) + " (0-15)");
  r.level = simple_level(static_cast<std::uint8_t>(sl));
  ulp_rules_.push_back(std::move(r));
  return true;
}

std::size_t Parser::simple_level(std::uint8_t sl) {
  for (std::size_t n = 0; n < simple_.size(); ++n) {
    if (simple_[n].sl == sl) return n;
  }
  Level l;
  l.name = "SimpleQoSLevel_SL" + std::to_string(sl);
  l.use = "qos-ulps SL " + std::to_string(sl);
  l.sl = sl;
  l.generated = true;
  simple_.push_back(std::move(l));
  return simple_.size() - 1;
}

// A port group made from a ULP's GUID list (OpenSM's _SRP_Targets_ and friends).
std::size_t Parser::ulp_group(const char* name, const Ranges& guids, SourcePos pos) {
  PortGroup g;
  g.name = name;
  g.use = "Generated from ULP rules";
  g.guids = guids;
  g.generated = true;
  g.pos = pos;
  ulp_groups_.push_back(std::move(g));
  return ulp_groups_.size() - 1;
}

bool Parser::ulps() {
  const SourcePos opened = take().pos;
  bool any = false;
  for (;;) {
    const Token& k = peek();
    if (k.kind != Tok::kKeyword) break;
    MatchRule r;
    r.pos = k.pos;
    r.ulp = strip(k.text);
    auto port_ranges = [&](std::uint64_t base, const char* what) {
      const SourcePos pos = peek().pos;
      if (!ranges(r.service_id)) return false;
      for (Range& x : r.service_id) {
        if (x.hi > 0xFFFF) return error(pos, std::string(what) + " port number out of range");
        x.lo += base;
        x.hi += base;
      }
      return true;
    };
    auto colon = [&] {
      if (!at(Tok::kColon)) return unexpected("':' and the SL");
      take();
      return true;
    };
    switch (k.kw) {
      case Kw::kUlpDefault: {
        take();
        std::uint64_t sl = 0;
        const SourcePos pos = peek().pos;
        if (!number(sl)) return false;
        if (sl > 15) return error(pos, "illegal SL value " + std::to_string(sl) + " (0-15)");
        ulp_default_ = static_cast<std::uint8_t>(sl);
        ulp_default_pos_ = k.pos;
        any = true;
        continue;
      }
      case Kw::kUlpAnyServiceId:
        take();
        if (!ranges(r.service_id) || !colon()) return false;
        break;
      case Kw::kUlpAnyPKey:
        take();
        if (!ranges(r.pkey, true) || !colon()) return false;
        p_.rule_pkeys.emplace_back(r.pkey, k.pos);
        break;
      case Kw::kUlpAnyTargetGuid:
      case Kw::kUlpSrpGuid:
      case Kw::kUlpAnySourceGuid:
      case Kw::kUlpAnySourceTargetGuid: {
        take();
        Ranges g;
        if (!ranges(g) || !colon()) return false;
        const char* name = k.kw == Kw::kUlpSrpGuid         ? "_SRP_Targets_"
                           : k.kw == Kw::kUlpAnyTargetGuid ? "_ULP_Targets_"
                           : k.kw == Kw::kUlpAnySourceGuid ? "_ULP_Sources_"
                                                           : "_ULP_Sources_Targets_";
        const std::size_t gi = ulp_group(name, g, k.pos);
        if (k.kw != Kw::kUlpAnySourceGuid) r.destination_groups.push_back(gi);
        if (k.kw == Kw::kUlpAnySourceGuid || k.kw == Kw::kUlpAnySourceTargetGuid)
          r.source_groups.push_back(gi);
        break;
      }
      case Kw::kUlpSdpDefault:
        take();
        r.service_id = {{kSdpServiceId, kSdpServiceId + 0xFFFF}};
        break;
      case Kw::kUlpSdpPort:
        take();
        if (!port_ranges(kSdpServiceId, "SDP") || !colon()) return false;
        break;
      case Kw::kUlpRdsDefault:
        take();
        r.service_id = {{kRdsServiceId + kRdsPort, kRdsServiceId + kRdsPort}};
        break;
      case Kw::kUlpRdsPort:
        take();
        if (!port_ranges(kRdsServiceId, "RDS") || !colon()) return false;
        break;
      case Kw::kUlpIserDefault:
        take();
        r.service_id = {{kIserServiceId + kIserPort, kIserServiceId + kIserPort}};
        break;
      case Kw::kUlpIserPort:
        take();
        if (!port_ranges(kIserServiceId, "iSER") || !colon()) return false;
        break;
      case Kw::kUlpIpoibDefault:
        take();
        r.pkey = {{kDefaultPKey, kDefaultPKey}};
        p_.ipoib_checks.push_back({r.pkey, k.pos});
        break;
      case Kw::kUlpIpoibPKey:
        take();
        if (!ranges(r.pkey, true) || !colon()) return false;
        p_.ipoib_checks.push_back({r.pkey, k.pos});
        break;
      default:
        goto done;
    }
    normalize(r.service_id);
    if (!ulp_sl(r)) return false;
    any = true;
  }
done:
  if (!any && !at(Kw::kEndQosUlps))
    return unexpected("a qos-ulps rule (default, any, sdp, rds, iser, srp, ipoib)");
  if (!any) return unexpected("a qos-ulps rule before 'end-qos-ulps'");
  return close(Kw::kEndQosUlps, "qos-ulps", opened);
}

}  // namespace ibsm::qos_policy::detail
