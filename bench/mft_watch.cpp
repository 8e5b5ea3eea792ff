// mft_watch: polls one MLID's MulticastForwardingTable entry on a set of switches
// until each holds the ports it must (docs/benchmarks.md, bench/mcast_storm.py).
//
// Why not `ibroute -M` in a loop: every ibroute is a new process that attaches to
// umad2sim and ibsim and reads NodeInfo and SwitchInfo before the table. During a join
// storm on 2 cores those spawns took as much CPU as the SM and ibsim together and
// halved the join rate of both SMs (kary-18-3-5832: 0.21 s without polling, 0.42-0.52 s
// with), so the bench measured its own pollers. This is one process with one SMI agent
// that sends only SubnGet(MulticastForwardingTable) (IBA 14.2.5.12), LID-routed, a few
// at a time, and stops polling a switch once it is correct. mcast_storm.py still checks
// the final tables with `ibroute -M`, the independent tool.
//
//   mft_watch --switches FILE [--mlid 0xC000] [--outstanding N] [--interval-ms MS]
//             [--timeout-s S]
//
// FILE: one switch per line, "LID NPORTS REQUIRED HOSTS": REQUIRED and HOSTS are
// comma-separated port numbers ("-" for none). The switch is correct when its entry
// holds every REQUIRED port and at least one port not in HOSTS (the tree leaves the
// switch). A round asks every pending switch once (every 16-port position up to
// NPORTS); rounds start --interval-ms apart. The last line is machine readable:
// "RESULT done=<CLOCK_MONOTONIC seconds when the last switch was seen correct, or -1>
// polls=N switches=N correct=N".
#include <infiniband/umad.h>
#include <time.h>

#include "sa_umad_client.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using namespace ibsm::bench;  // NOLINT(google-build-using-namespace): one program

constexpr int kClassSmiLid = 0x01;
constexpr int kSmpVersion = 1;
constexpr std::uint16_t kAttrMft = 0x001B;
constexpr std::size_t kSmpData = 64;             // LID-routed SMP: data after the 24+40 byte header
constexpr std::uint32_t kTidBase = 0x4D000000u;  // | round << 16 | request index

struct Switch {
  std::uint16_t lid = 0;
  int positions = 1;                // 16-port positions to read
  std::vector<int> required;        // ports that must be set
  std::vector<bool> host;           // by port number: a host port of this switch
  std::vector<std::uint16_t> mask;  // by position: the last answer
  std::vector<bool> seen;           // by position: answered this round
  bool correct = false;
};

double monotonic_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::vector<int> parse_ports(const std::string& csv) {
  std::vector<int> out;
  if (csv == "-") return out;
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (end == item.c_str() || *end != '\0' || v < 0 || v > 254) die("bad port list in --switches");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<Switch> read_switches(const std::string& path) {
  std::ifstream in(path);
  if (!in) die("cannot read the --switches file");
  std::vector<Switch> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    unsigned lid = 0;
    int nports = 0;
    std::string req, hosts;
    if (!(ls >> lid >> nports >> req >> hosts) || lid == 0 || lid >= 0xC000 || nports < 1 ||
        nports > 254)
      die("bad line in --switches (want: LID NPORTS REQUIRED HOSTS)");
    Switch s;
    s.lid = static_cast<std::uint16_t>(lid);
    s.positions = nports / 16 + 1;
    s.required = parse_ports(req);
    s.host.assign(256, false);
    for (int p : parse_ports(hosts))
      s.host[static_cast<std::size_t>(p)] = true;
    s.mask.assign(static_cast<std::size_t>(s.positions), 0);
    s.seen.assign(static_cast<std::size_t>(s.positions), false);
    out.push_back(std::move(s));
  }
  if (out.empty() || out.size() > 0xffff / 16) die("need 1..4095 switches");
  return out;
}

bool holds(const Switch& s, int port) {
  const auto pos = static_cast<std::size_t>(port / 16);
  return pos < s.mask.size() && (s.mask[pos] >> (port % 16) & 1) != 0;
}

bool is_correct(const Switch& s) {
  for (int p : s.required)
    if (!holds(s, p)) return false;
  for (int p = 0; p < 16 * s.positions; ++p)
    if (holds(s, p) && !s.host[static_cast<std::size_t>(p)]) return true;
  return false;
}

// Get(MulticastForwardingTable) of `block`, 16-port `position`, LID-routed to `lid`.
bool get_mft(UmadPort& smi, std::uint16_t lid, std::uint32_t block, int position,
             std::uint32_t tid) {
  std::uint8_t* mad = smi.fresh_mad();
  mad[0] = 1;
  mad[1] = kClassSmiLid;
  mad[2] = kSmpVersion;
  mad[3] = 0x01;  // Get
  put64(mad + 8, tid);
  put16(mad + 16, kAttrMft);
  const std::uint32_t mod = static_cast<std::uint32_t>(position) << 28 | block;
  put16(mad + 20, static_cast<std::uint16_t>(mod >> 16));
  put16(mad + 22, static_cast<std::uint16_t>(mod));
  return smi.send_to(lid, 0, 0);
}

int usage() {
  std::fprintf(stderr,
               "usage: mft_watch --switches FILE [--mlid 0xC000] [--outstanding N]\n"
               "                 [--interval-ms MS] [--timeout-s S]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file;
  unsigned mlid = 0xC000;
  int outstanding = 4, interval_ms = 5;
  double timeout_s = 300;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die("missing value");
      return argv[++i];
    };
    if (a == "--switches")
      file = value();
    else if (a == "--mlid")
      mlid = static_cast<unsigned>(std::strtoul(value(), nullptr, 0));
    else if (a == "--outstanding")
      outstanding = std::atoi(value());
    else if (a == "--interval-ms")
      interval_ms = std::atoi(value());
    else if (a == "--timeout-s")
      timeout_s = std::atof(value());
    else
      return usage();
  }
  if (file.empty() || mlid < 0xC000 || mlid > 0xFFFE || outstanding < 1 || interval_ms < 0)
    return usage();
  std::vector<Switch> sw = read_switches(file);
  const std::uint32_t block = (mlid - 0xC000) / 32;
  const std::size_t word = (mlid - 0xC000) % 32;

  UmadPort smi(kClassSmiLid, kSmpVersion, 0);
  const double deadline = monotonic_now() + timeout_s;
  double done_at = -1;
  long polls = 0;
  std::size_t correct = 0;
  for (std::uint32_t round = 0; correct < sw.size() && monotonic_now() < deadline; ++round) {
    const double round_start = monotonic_now();
    // (switch, position) pairs still to ask this round
    std::vector<std::pair<std::size_t, int>> todo;
    for (std::size_t i = 0; i < sw.size(); ++i) {
      if (sw[i].correct) continue;
      for (int p = 0; p < sw[i].positions; ++p) {
        todo.emplace_back(i, p);
        sw[i].seen[static_cast<std::size_t>(p)] = false;
      }
    }
    std::size_t next = 0;
    int flying = 0;
    const double round_deadline = round_start + 1.0;  // an unanswered Get is given up
    while ((next < todo.size() || flying > 0) && monotonic_now() < round_deadline) {
      while (flying < outstanding && next < todo.size()) {
        const auto [i, p] = todo[next];
        const std::uint32_t tid =
            kTidBase | (round & 0xff) << 16 | static_cast<std::uint32_t>(next);
        if (!get_mft(smi, sw[i].lid, block, p, tid)) die("umad_send failed");
        ++next;
        ++flying;
        ++polls;
      }
      int len = 0;
      const std::uint8_t* r = smi.recv(100, len);
      if (r == nullptr) continue;
      const auto tid = static_cast<std::uint32_t>(get64(r + 8));
      if ((tid & 0xff000000u) != kTidBase || ((tid >> 16) & 0xff) != (round & 0xff)) continue;
      const std::size_t idx = tid & 0xffff;
      if (idx >= todo.size() || r[3] != 0x81 || get16(r + 16) != kAttrMft) continue;
      --flying;
      const auto [i, p] = todo[idx];
      if (get16(r + 4) != 0) continue;  // a bad status leaves the switch pending
      sw[i].mask[static_cast<std::size_t>(p)] = get16(r + kSmpData + 2 * word);
      sw[i].seen[static_cast<std::size_t>(p)] = true;
    }
    const double now = monotonic_now();
    for (Switch& s : sw) {
      if (s.correct) continue;
      bool all_seen = true;
      for (bool b : s.seen)
        all_seen = all_seen && b;
      if (all_seen && is_correct(s)) {
        s.correct = true;
        ++correct;
        done_at = now;
        std::printf("switch %u correct at %.6f (round %u)\n", s.lid, now, round);
      }
    }
    if (correct < sw.size()) {
      const double wait = round_start + interval_ms / 1000.0 - monotonic_now();
      if (wait > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
  }
  std::printf("MLID 0x%04x: %zu of %zu switches correct, %ld Gets\n", mlid, correct, sw.size(),
              polls);
  std::printf("RESULT done=%.6f polls=%ld switches=%zu correct=%zu\n",
              correct == sw.size() ? done_at : -1.0, polls, sw.size(), correct);
  return correct == sw.size() ? 0 : 1;
}
