#include "sm/election/lft_mirror.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "mad/attr/forwarding_table.hpp"
#include "mad/attr/switch_info.hpp"

namespace ibsm::sm::election {
namespace {

// FNV-1a over 64-bit words: deterministic across processes, so a signature does not
// depend on where the standby and the master run.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xFF;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

std::uint64_t topology_signature(const Fabric& f) {
  // Each link as (guid, port, peer guid, peer port) from both ends, each port with its
  // reported LID; sorted, so discovery order does not matter.
  std::vector<std::array<std::uint64_t, 5>> items;
  for (const Node& n : f.nodes()) {
    for (PortNum p = 0; p < n.ports.size(); ++p) {
      const Port& port = n.ports[p];
      if (!port.present) continue;
      const bool linked = port.peer != kNoNode;
      items.push_back({n.guid(), p, linked ? f.node(port.peer).guid() : 0,
                       linked ? port.peer_port : 0u, port.info.lid});
    }
  }
  std::sort(items.begin(), items.end());
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& it : items)
    for (std::uint64_t v : it)
      h = mix(h, v);
  return h;
}

void LftMirror::start(const Fabric& f) {
  ++generation_;
  targets_.clear();
  tables_ = MirroredTables{};
  tables_.signature = topology_signature(f);
  for (const Node& n : f.nodes())
    if (n.is_switch() && n.switch_info) targets_.push_back({n.guid(), n.path});
  in_flight_ = 0;
  passes_ = 0;
  first_pass_told_ = false;
  pass_done_ = false;
  resume_at_ = {};
  running_ = !targets_.empty();
  if (running_) begin_switch(0);
}

void LftMirror::stop() {
  ++generation_;
  running_ = false;
  in_flight_ = 0;
}

MirroredTables LftMirror::take() {
  stop();
  MirroredTables out = std::move(tables_);
  tables_ = MirroredTables{};
  return out;
}

void LftMirror::begin_switch(std::size_t target) {
  cur_ = Reading{};
  cur_.target = target;
}

void LftMirror::finish_switch() {
  const Target& t = targets_[cur_.target];
  if (!cur_.failed) {
    tables_.lft[t.guid] = std::move(cur_.lft);
    tables_.top[t.guid] = cur_.top;
  } else {
    // Unknown contents: the takeover sends this switch's blocks in full.
    tables_.lft.erase(t.guid);
    tables_.top.erase(t.guid);
  }
  std::size_t next = cur_.target + 1;
  if (next == targets_.size()) {
    next = 0;
    ++passes_;
    pass_done_ = true;
  }
  begin_switch(next);
}

void LftMirror::tick(mad::SmpClient& client, Clock::TimePoint now) {
  if (!running_ || now < resume_at_) return;
  // One switch at a time: its SwitchInfo first (how many blocks), then its blocks.
  if (pass_done_) {
    if (in_flight_ > 0) return;
    pass_done_ = false;
    resume_at_ = now + kPassPause;
    return;
  }
  while (in_flight_ < max_in_flight_ && !pass_done_) {
    const Target& t = targets_[cur_.target];
    const std::uint64_t gen = generation_;
    if (!cur_.have_top) {
      if (in_flight_ > 0) return;  // the SwitchInfo Get is out
      ++in_flight_;
      client.submit(mad::SmpRequest::get<mad::SwitchInfo>(t.path), [this,
                                                                    gen](const mad::SmpOutcome& o) {
        if (gen != generation_) return;
        --in_flight_;
        if (!o.ok()) {
          cur_.failed = true;
          finish_switch();
          return;
        }
        auto si = mad::decode<mad::SwitchInfo>(o.response->data());
        if (!si.ok()) {
          cur_.failed = true;
          finish_switch();
          return;
        }
        cur_.have_top = true;
        cur_.top = si->linear_fdb_top;
        cur_.blocks = (std::size_t{cur_.top} + mad::LftBlock::kEntries) / mad::LftBlock::kEntries;
        cur_.lft.assign(cur_.blocks * mad::LftBlock::kEntries, 0xFF);
      });
      continue;
    }
    if (cur_.next_block >= cur_.blocks) return;  // waiting for the last answers
    const std::size_t b = cur_.next_block++;
    ++in_flight_;
    client.submit(
        mad::SmpRequest::get<mad::LftBlock>(t.path, static_cast<std::uint32_t>(b)),
        [this, gen, b](const mad::SmpOutcome& o) {
          if (gen != generation_) return;
          --in_flight_;
          ++cur_.answered;
          std::optional<mad::LftBlock> block;
          if (o.ok())
            if (auto d = mad::decode<mad::LftBlock>(o.response->data()); d.ok()) block = *d;
          if (block) {
            ++blocks_read_;
            std::copy(block->ports.begin(), block->ports.end(),
                      cur_.lft.begin() + static_cast<std::ptrdiff_t>(b * mad::LftBlock::kEntries));
          } else {
            cur_.failed = true;
          }
          if (cur_.answered == cur_.blocks) finish_switch();
        });
  }
}

}  // namespace ibsm::sm::election
