// sa_joins: SA MCMemberRecord join storm (docs/benchmarks.md), libibumad only.
//
// Joins every port GUID of --guids to one multicast group the way IPoIB joins
// its broadcast group after a ClientReregister: MCMemberRecord Set, component
// mask MGID|PortGID|P_Key|JoinState, JoinState 1 (full member), on
// ff12:401b:<pkey>::ffff:ffff, which the SM must have pre-created. The client
// is one port of the fabric; for every other port the join is a proxy join
// (requester != PortGID), allowed because both share the default P_Key.
// Keeps N joins outstanding, resends a join that got no answer within the
// timeout (up to --retries times), and prints joins answered/s, the status
// counts and the time from the first send to the last answer (RESULT's start=
// is the first send on CLOCK_MONOTONIC, steady_clock's clock). TIDs are matched
// on the low 32 bits only (the kernel, and umad2sim/ibsim, rewrite the rest).
//
//   sa_joins --guids FILE [--outstanding N] [--timeout-ms MS] [--retries N]
//            [--pkey P] [--join-state J] [--leave]
//
// --guids FILE: port GUIDs, one per line (0x... or decimal). --leave sends
// Delete (method 0x15) with the same record instead: the reverse storm.
// The last line is machine readable: "RESULT key=value ...".
#include <infiniband/umad.h>

#include "sa_umad_client.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace ibsm::bench;  // NOLINT(google-build-using-namespace): one program

using Clock = std::chrono::steady_clock;

constexpr std::uint16_t kAttrMcMemberRecord = 0x0038;
constexpr std::uint8_t kSet = 0x02;
constexpr std::uint8_t kDelete = 0x15;
// MCMemberRecord component mask bits (IBA 15.2.5.17).
constexpr std::uint64_t kMaskMgid = 1u << 0;
constexpr std::uint64_t kMaskPortGid = 1u << 1;
constexpr std::uint64_t kMaskPkey = 1u << 7;
constexpr std::uint64_t kMaskJoinState = 1u << 16;
constexpr std::uint32_t kTidBase = 0x6A000000u;  // | attempt << 16 | index (index < 2^16)

struct Options {
  std::string guids_file;
  int outstanding = 64;
  int timeout_ms = 1000;
  int retries = 8;
  unsigned pkey = 0xffff;
  unsigned join_state = 1;
  bool leave = false;
};

struct Join {
  int attempts = 0;     // sends so far
  bool done = false;    // answered (any status) or given up
  bool flying = false;  // sent and not yet answered nor timed out
  Clock::time_point sent{};
};

int usage() {
  std::fprintf(stderr,
               "usage: sa_joins --guids FILE [--outstanding N] [--timeout-ms MS] [--retries N]\n"
               "                [--pkey P] [--join-state J] [--leave]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value");
      return argv[++i];
    };
    if (a == "--guids")
      opt.guids_file = value();
    else if (a == "--outstanding")
      opt.outstanding = std::atoi(value());
    else if (a == "--timeout-ms")
      opt.timeout_ms = std::atoi(value());
    else if (a == "--retries")
      opt.retries = std::atoi(value());
    else if (a == "--pkey")
      opt.pkey = static_cast<unsigned>(std::strtoul(value(), nullptr, 0));
    else if (a == "--join-state")
      opt.join_state = static_cast<unsigned>(std::strtoul(value(), nullptr, 0));
    else if (a == "--leave")
      opt.leave = true;
    else
      return usage();
  }
  if (opt.outstanding < 1 || opt.guids_file.empty() || opt.retries < 0 || opt.retries > 255)
    return usage();

  SaPort sa;
  const std::vector<std::uint64_t> guids = read_guids(opt.guids_file);
  if (guids.empty() || guids.size() > 0xffff) die("need 1..65535 port GUIDs");
  const std::uint64_t prefix = sa.gid_prefix() != 0 ? sa.gid_prefix() : 0xfe80000000000000ull;
  const std::uint16_t pkey = static_cast<std::uint16_t>(opt.pkey | 0x8000);

  std::vector<Join> joins(guids.size());
  std::size_t next = 0;             // next never-sent join
  std::vector<std::size_t> resend;  // timed out, to be sent again
  long inflight = 0, sends = 0, answered = 0, lost = 0, stray = 0, dup = 0;
  std::map<unsigned, long> status;
  unsigned mlid = 0;
  double worst_us = 0, sum_us = 0;

  auto send_one = [&](std::size_t idx) {
    Join& j = joins[idx];
    std::uint8_t* mad = sa.fresh_mad();
    mad[0] = 1;
    mad[1] = kClassSa;
    mad[2] = kClassVersion;
    mad[3] = opt.leave ? kDelete : kSet;
    const std::uint32_t tid =
        kTidBase | static_cast<std::uint32_t>(j.attempts) << 16 | static_cast<std::uint32_t>(idx);
    put64(mad + 8, tid);
    put16(mad + 16, kAttrMcMemberRecord);
    put64(mad + 48, kMaskMgid | kMaskPortGid | kMaskPkey | kMaskJoinState);
    std::uint8_t* rec = mad + kHeader;
    // MGID ff12:401b:<pkey>::ffff:ffff (IPoIB IPv4 broadcast, link-local scope)
    rec[0] = 0xff;
    rec[1] = 0x12;
    rec[2] = 0x40;
    rec[3] = 0x1b;
    put16(rec + 4, pkey);
    rec[12] = rec[13] = rec[14] = rec[15] = 0xff;
    put64(rec + 16, prefix);  // PortGID
    put64(rec + 24, guids[idx]);
    put16(rec + 40, pkey);
    rec[48] = static_cast<std::uint8_t>(opt.join_state & 0x0f);  // Scope (not masked) | JoinState
    if (!sa.send()) die("umad_send failed");
    j.sent = Clock::now();
    j.flying = true;
    ++j.attempts;
    ++inflight;
    ++sends;
  };
  auto issue = [&]() {
    while (inflight < opt.outstanding) {
      if (!resend.empty()) {
        send_one(resend.back());
        resend.pop_back();
      } else if (next < joins.size()) {
        send_one(next++);
      } else {
        break;
      }
    }
  };

  const Clock::time_point t0 = Clock::now();
  Clock::time_point last_answer = t0;
  const auto timeout = std::chrono::milliseconds(opt.timeout_ms);
  Clock::time_point last_sweep = t0;
  issue();
  while (inflight > 0 || !resend.empty()) {
    int len = 0;
    const std::uint8_t* r = sa.recv(std::max(1, opt.timeout_ms / 4), len);
    const Clock::time_point now = Clock::now();
    if (r != nullptr && (r[3] & 0x80) != 0 && get16(r + 16) == kAttrMcMemberRecord) {
      const auto tid = static_cast<std::uint32_t>(get64(r + 8));
      const std::size_t idx = tid & 0xffff;
      const int attempt = static_cast<int>((tid >> 16) & 0xff);
      if ((tid & 0xff000000u) != kTidBase || idx >= joins.size() ||
          attempt >= joins[idx].attempts) {
        ++stray;
      } else if (joins[idx].done) {
        ++dup;  // answer to an earlier attempt of a join already answered
      } else {
        Join& j = joins[idx];
        j.done = true;
        if (j.flying)
          --inflight;  // else it timed out and waits for its resend
        else
          resend.erase(std::remove(resend.begin(), resend.end(), idx), resend.end());
        j.flying = false;
        ++answered;
        const unsigned st = get16(r + 4);
        ++status[st];
        if (st == 0 && mlid == 0 && len >= static_cast<int>(kHeader + 38))
          mlid = get16(r + kHeader + 36);
        const double us = std::chrono::duration<double, std::micro>(now - j.sent).count();
        sum_us += us;
        worst_us = std::max(worst_us, us);
        last_answer = now;
      }
    } else if (r != nullptr) {
      ++stray;
    }
    if (now - last_sweep > timeout / 4) {  // joins nobody answered
      last_sweep = now;
      for (std::size_t i = 0; i < joins.size() && i < next; ++i) {
        Join& j = joins[i];
        if (j.done || !j.flying || now - j.sent <= timeout) continue;
        j.flying = false;
        --inflight;
        if (j.attempts > opt.retries) {
          j.done = true;
          ++lost;
        } else {
          resend.push_back(i);
        }
      }
    }
    issue();
  }
  const double secs = std::chrono::duration<double>(last_answer - t0).count();
  const double rate = secs > 0 ? static_cast<double>(answered) / secs : 0;
  const double mean = answered > 0 ? sum_us / static_cast<double>(answered) : 0;
  const long ok = status.count(0) ? status[0] : 0;
  std::printf(
      "%s of %zu ports, %d outstanding: %ld answered in %.3f s = %.0f/s (%ld ok), "
      "mean %.0f us, worst %.0f us; %ld sends, %ld lost, %ld late duplicates, %ld stray; "
      "MLID 0x%04x; status",
      opt.leave ? "leaves" : "joins", guids.size(), opt.outstanding, answered, secs, rate, ok, mean,
      worst_us, sends, lost, dup, stray, mlid);
  for (const auto& [st, n] : status)
    std::printf(" 0x%04x:%ld", st, n);
  std::printf(
      "\nRESULT ports=%zu outstanding=%d answered=%ld ok=%ld seconds=%.4f rate=%.1f "
      "mean_us=%.0f worst_us=%.0f sends=%ld lost=%ld dup=%ld stray=%ld mlid=%u start=%.6f\n",
      guids.size(), opt.outstanding, answered, ok, secs, rate, mean, worst_us, sends, lost, dup,
      stray, mlid, std::chrono::duration<double>(t0.time_since_epoch()).count());
  return ok == static_cast<long>(guids.size()) ? 0 : 1;
}
