// What an SA record handler gets: the request, who sent it, the snapshot to
// answer from, the settings, and the SA's own state (service records,
// subscriptions). What it gives back: a status and the records.
#pragma once

#include <cstdint>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "mad/transport.hpp"
#include "sa/record_layout.hpp"
#include "sa/sa_mad.hpp"
#include "sa/settings.hpp"
#include "sa/snapshot.hpp"

namespace ibsm::sa {

class SaState;  // stateful stores (sa/state.hpp)

struct RequestContext {
  const Snapshot& snap;
  const SaSettings& settings;
  const SaMad& request;
  const mad::MadAddress& from;
  PortRef requester;     // the port whose LID sent the request (invalid: unknown LID)
  bool trusted = false;  // SM_Key equal to sa_key (IBA 15.2.1.1)
  Clock::TimePoint now{};
  SaState& state;
  const Logger& log;
  // How the answer leaves: with single-MAD framing only what fits 200 bytes arrives,
  // so handlers of large tables may stop computing early.
  Framing framing = Framing::kKernelRmpp;

  std::uint8_t method() const { return request.header.method; }
  std::uint64_t comp_mask() const { return request.header.comp_mask; }
  bool has(unsigned bit) const { return (request.header.comp_mask >> bit & 1u) != 0; }
  // The query record (zero-padded to `size` when the request carried less).
  std::vector<std::uint8_t> query(std::size_t size) const {
    std::vector<std::uint8_t> q(size, 0);
    for (std::size_t i = 0; i < size && i < request.data.size(); ++i)
      q[i] = request.data[i];
    return q;
  }
};

// Records in wire form, each `words`*8 bytes, appended one after another.
struct HandlerResult {
  std::uint16_t status = status::kOk;
  std::uint16_t words = 0;  // record size in 8-byte words
  std::vector<std::uint8_t> records;
  std::size_t count = 0;
  bool drop = false;  // no answer at all (OpenSM's silent discards)
  // The response's AttributeID when it is not the request's (a MultiPathRecord
  // request is answered with PathRecords, IBA o15-0.2.7); 0: the request's.
  std::uint16_t attr_id = 0;

  std::span<std::uint8_t> add() {  // appends a zeroed record, returns it
    const std::size_t size = std::size_t{words} * 8;
    records.resize(records.size() + size, 0);
    ++count;
    return {records.data() + records.size() - size, size};
  }
  static HandlerResult error(std::uint16_t st) {
    HandlerResult r;
    r.status = st;
    return r;
  }
  static HandlerResult silent() {
    HandlerResult r;
    r.drop = true;
    return r;
  }
};

// A handler for one attribute. `limit` is 1 for Get (the server turns 2 into
// TOO_MANY_RECORDS), so handlers may stop early.
using RecordHandler = HandlerResult (*)(RequestContext& ctx);

}  // namespace ibsm::sa
