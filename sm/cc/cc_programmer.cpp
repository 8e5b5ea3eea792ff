#include "sm/cc/cc_programmer.hpp"

#include <cstdio>
#include <span>

#include "mad/errors.hpp"
#include "sm/cc/errors.hpp"

namespace ibsm::sm::cc {
namespace {

std::string port_text(const CcTarget& t) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s 0x%016llx port %u (LID %u)", t.is_switch ? "switch" : "CA",
                static_cast<unsigned long long>(t.node_guid), static_cast<unsigned>(t.port),
                static_cast<unsigned>(t.lid));
  std::string s = buf;
  if (!t.description.empty()) s += " \"" + t.description + "\"";
  return s;
}

// IBA 13.4.7 MAD status bits 2-4: the class version, method or method/attribute
// combination is not supported; the other codes name a refused value.
std::string status_text(std::uint16_t status) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "status 0x%04x", static_cast<unsigned>(status));
  std::string s = buf;
  switch ((status >> 2) & 0x7) {
    case 1:
      return s + " (class version not supported: no CC agent)";
    case 2:
      return s + " (method not supported)";
    case 3:
      return s + " (method/attribute not supported)";
    case 7:
      return s + " (invalid value in an attribute field)";
    default:
      return s;
  }
}

}  // namespace

std::vector<CcTarget> cc_targets(const Fabric& f) {
  std::vector<CcTarget> out;
  for (const auto& h : f.lid_holders()) {
    const Node& n = f.node(h.node);
    const Port& p = n.ports[h.port];
    if (p.lid == 0) continue;
    const bool sw = n.is_switch();
    if (!sw && n.type() != mad::NodeType::kCa) continue;
    out.push_back({n.guid(), p.guid, h.port, p.lid, sw, n.description});
  }
  return out;
}

void CcProgrammer::configure(const CcSettings& settings, const CcTiming& timing) {
  timing_ = timing;
  if (settings == settings_) return;
  const bool was_enabled = settings_.enabled;
  settings_ = settings;
  // Another configuration: every port deserves another try with it.
  skipped_.clear();
  if (!settings_.enabled) stop();
  if (was_enabled != settings_.enabled)
    log_->info("congestion control {}", settings_.enabled ? "on" : "off");
}

void CcProgrammer::queue(const CcTarget& t, CcAttr attr, std::uint32_t mod, const CcData& data) {
  const auto it = held_.find(t.port_guid);
  if (it != held_.end()) {
    const auto h = it->second.find({static_cast<std::uint16_t>(attr), mod});
    if (h != it->second.end() && h->second == data) return;
  }
  queue_.push_back({t, attr, mod, data, 0});
  ++round_sets_;
}

void CcProgrammer::start_round(const std::vector<CcTarget>& targets) {
  if (!settings_.enabled) return;
  // Ports gone from the fabric are forgotten: one that comes back is tried afresh.
  std::unordered_map<mad::Guid, bool> present;
  for (const CcTarget& t : targets)
    present[t.port_guid] = true;
  std::erase_if(skipped_, [&](const auto& kv) { return !present.contains(kv.first); });
  std::erase_if(held_, [&](const auto& kv) { return !present.contains(kv.first); });
  // A new round replaces what the last one had not sent yet.
  queue_.clear();
  round_sets_ = 0;
  round_ports_ = 0;
  const CcData sw = encode(settings_.sw);
  const CcData ca = encode(settings_.ca);
  for (const CcTarget& t : targets) {
    if (skipped_.contains(t.port_guid)) continue;
    const std::uint64_t before = round_sets_;
    if (t.is_switch) {
      queue(t, CcAttr::kSwitchCongestionSetting, 0, sw);
    } else {
      queue(t, CcAttr::kCaCongestionSetting, 0, ca);
      for (std::size_t b = 0; b < settings_.cct.size(); ++b)
        queue(t, CcAttr::kCongestionControlTable, static_cast<std::uint32_t>(b),
              encode(settings_.cct[b]));
    }
    round_ports_ += round_sets_ != before ? 1 : 0;
  }
  round_open_ = round_sets_ > 0;
  if (round_open_)
    log_->info("congestion control: {} Sets queued for {} ports", round_sets_, round_ports_);
}

void CcProgrammer::send(Pending p) {
  std::uint32_t tid = next_tid_++;
  if (tid == 0) tid = next_tid_++;
  ++p.attempts;
  const auto mad =
      build_cc_set({p.attr, p.attr_mod, settings_.cc_key, static_cast<std::uint64_t>(tid), p.data});
  mad::MadAddress to;
  to.lid = p.target.lid;
  to.qpn = 1;
  to.sl = timing_.sl;
  const auto st = transport_.send_gsi(mad, to, static_cast<std::uint32_t>(timing_.timeout.count()));
  if (!st.ok()) {
    // Not the node's fault: the next round tries again.
    log_->warn("{}: {} to {}: {}", format_error_id(kErrCcSendFailed), cc_attr_name(p.attr),
               port_text(p.target), st.error().message);
    return;
  }
  ++counters_.sent;
  if (p.attempts > 1) ++counters_.retries;
  mad::SentMad sent;
  sent.mgmt_class = kClassCongestionControl;
  sent.method = 0x02;  // Set
  sent.tid_low = tid;
  sent.attr_id = static_cast<std::uint16_t>(p.attr);
  sent.attr_mod = p.attr_mod;
  sent.dlid = to.lid;
  on_wire_[tid] = {std::move(p), clock_.now() + timing_.timeout, sent};
}

void CcProgrammer::tick() {
  if (!settings_.enabled) return;
  // Deadlines first: a retry goes out in the room its first attempt leaves.
  const auto now = clock_.now();
  std::vector<std::uint32_t> late;
  for (const auto& [tid, w] : on_wire_)
    if (w.deadline <= now) late.push_back(tid);
  for (std::uint32_t tid : late)
    attempt_failed(tid);
  while (!queue_.empty() && on_wire_.size() < settings_.max_outstanding) {
    Pending p = std::move(queue_.front());
    queue_.pop_front();
    if (skipped_.contains(p.target.port_guid)) continue;
    send(std::move(p));
  }
  finish_round_if_done();
}

void CcProgrammer::attempt_failed(std::uint32_t tid) {
  auto it = on_wire_.find(tid);
  if (it == on_wire_.end()) return;
  Pending p = std::move(it->second.p);
  on_wire_.erase(it);
  if (p.attempts <= timing_.retries) {
    queue_.push_front(std::move(p));
    return;
  }
  ++counters_.silent;
  skip(p.target, kErrCcSilent,
       "no answer to " + std::string(cc_attr_name(p.attr)) + " Set after " +
           std::to_string(p.attempts) + " attempts of " + std::to_string(timing_.timeout.count()) +
           " ms");
}

void CcProgrammer::on_mad(const mad::IncomingMad& in) {
  const std::span<const std::uint8_t> bytes(in.bytes.data(), std::min(in.length, in.bytes.size()));
  if (bytes.size() < 16) return;
  const auto tid =
      static_cast<std::uint32_t>(bytes[12] << 24 | bytes[13] << 16 | bytes[14] << 8 | bytes[15]);
  auto it = on_wire_.find(tid);
  if (it == on_wire_.end()) {
    log_->debug("congestion control: MAD with unknown TID 0x{:08x} from LID {} ignored", tid,
                in.slid);
    return;
  }
  if (in.status != 0) {  // the kernel gave up on the Set
    attempt_failed(tid);
    return;
  }
  // A live TID is not enough (IBA 13.4.6.4): method, attribute, modifier and source
  // must be the Set's too, or the answer is dropped and the Set waits for its own.
  if (const auto why = mad::match_answer(it->second.sent, {bytes, in.slid});
      why != mad::Mismatch::kNone) {
    ++counters_.foreign;
    if (foreign_log_.allow(clock_.now())) {
      const auto skipped = foreign_log_.suppressed();
      log_->warn(
          "{}: congestion control answer from LID {} with TID 0x{:08x} dropped: {} for "
          "the {} Set to {}{}",
          format_error_id(mad::kErrAnswerMismatch), in.slid, tid, mad::mismatch_name(why),
          cc_attr_name(it->second.p.attr), port_text(it->second.p.target),
          skipped ? " (" + std::to_string(skipped) + " more not logged)" : std::string());
    }
    return;
  }
  Pending p = std::move(it->second.p);
  on_wire_.erase(it);
  auto answer = parse_cc_answer(bytes);
  if (!answer.ok()) {
    ++counters_.bad;
    skip(p.target, kErrCcBadAnswer, answer.error().message);
    return;
  }
  if (answer->status != 0) {
    ++counters_.refused;
    skip(p.target, kErrCcRefused,
         std::string(cc_attr_name(p.attr)) + " Set answered with " + status_text(answer->status));
    return;
  }
  if (answer->raw_attr != static_cast<std::uint16_t>(p.attr) || answer->attr_mod != p.attr_mod) {
    ++counters_.bad;
    char what[96];
    std::snprintf(what, sizeof what, "answer to a Set of 0x%04x/%u carries 0x%04x/%u",
                  static_cast<unsigned>(p.attr), p.attr_mod, answer->raw_attr, answer->attr_mod);
    skip(p.target, kErrCcBadAnswer, what);
    return;
  }
  ++counters_.answered;
  // What the port answered is what it holds (OpenSM keeps the answer the same way).
  held_[p.target.port_guid][{static_cast<std::uint16_t>(p.attr), p.attr_mod}] = answer->data;
  finish_round_if_done();
}

void CcProgrammer::skip(const CcTarget& t, ErrorId why, const std::string& what) {
  if (!skipped_.emplace(t.port_guid, why).second) return;  // logged already
  log_->warn("{}: congestion control: {}: {}; port skipped while it stays in the fabric",
             format_error_id(why), port_text(t), what);
  std::erase_if(queue_, [&](const Pending& p) { return p.target.port_guid == t.port_guid; });
  std::erase_if(on_wire_,
                [&](const auto& kv) { return kv.second.p.target.port_guid == t.port_guid; });
  finish_round_if_done();
}

void CcProgrammer::stop() {
  queue_.clear();
  on_wire_.clear();
  round_open_ = false;
}

void CcProgrammer::finish_round_if_done() {
  if (!round_open_ || !idle()) return;
  round_open_ = false;
  log_->info(
      "congestion control: round done ({} Sets sent in all, {} acknowledged, {} retries; ports "
      "skipped: {} refused, {} silent, {} malformed answers)",
      counters_.sent, counters_.answered, counters_.retries, counters_.refused, counters_.silent,
      counters_.bad);
}

}  // namespace ibsm::sm::cc
