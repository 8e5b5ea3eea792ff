#include "agent/peer_test.hpp"

#include <toml++/toml.h>
#include <iomanip>
#include <optional>
#include <sstream>

#include "agent/command_output.hpp"

namespace ibsm::agent {
namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

bool installed(const Fs& fs, const std::string& tool) {
  for (const char* dir : {"/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"})
    if (fs.exists(dir + tool)) return true;
  return false;
}

PeerCheck run_check(const std::string& peer, const std::string& check,
                    std::vector<std::string> argv, const CommandRunner& runner,
                    const std::string& hint, std::string* output = nullptr) {
  PeerCheck c{peer, check, PeerVerdict::kPassed, joined(argv), ""};
  CommandResult r = runner.run(argv);
  if (output) *output = r.output;
  c.detail = last_line(r.output);
  if (r.status != 0) {
    c.verdict = PeerVerdict::kFailed;
    c.detail = (c.detail.empty() ? "exit " + std::to_string(r.status) : c.detail) + hint;
  }
  return c;
}

}  // namespace

std::optional<int> ping_loss(const std::string& output) {
  // "3 packets transmitted, 2 received, 33% packet loss, time 2001 ms" (ping and ibping).
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    long sent = 0, got = 0;
    std::string packets, transmitted, received;
    if (f >> sent >> packets >> transmitted >> got >> received && packets == "packets" &&
        transmitted == "transmitted," && received.rfind("received", 0) == 0)
      return static_cast<int>(sent - got);
  }
  return std::nullopt;
}

std::optional<std::string> parse_rc_pingpong(const std::string& output) {
  // "8192000 bytes in 0.01 seconds = 6553.60 Mbit/sec" then
  // "1000 iters in 0.01 seconds = 10.00 usec/iter" (libibverbs/examples/rc_pingpong.c).
  std::string rate, latency;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string n, unit, in, secs, seconds, eq, value, per;
    if (!(f >> n >> unit >> in >> secs >> seconds >> eq >> value >> per)) continue;
    if (in != "in" || seconds != "seconds" || eq != "=") continue;
    if (unit == "bytes" && per == "Mbit/sec") rate = value + " Mbit/s";
    if (unit == "iters" && per == "usec/iter") latency = value + " usec/iter";
  }
  if (rate.empty() || latency.empty()) return std::nullopt;
  return rate + ", " + latency;
}

std::vector<std::string> rc_pingpong_argv(const std::string& peer, const std::string& device,
                                          int port) {
  return {"ibv_rc_pingpong", "-d", device, "-i", std::to_string(port), "-n", "100", peer};
}

std::string_view verdict_name(PeerVerdict v) {
  switch (v) {
    case PeerVerdict::kPassed:
      return "passed";
    case PeerVerdict::kFailed:
      return "FAILED";
    case PeerVerdict::kSkipped:
      return "skipped";
  }
  return "?";
}

std::string guid_from_ipoib_lladdr(const std::string& lladdr) {
  std::vector<std::string> bytes;
  std::istringstream in(lladdr);
  for (std::string b; std::getline(in, b, ':');)
    bytes.push_back(b);
  if (bytes.size() != 20) return "";
  std::string g = "0x";
  for (std::size_t i = 12; i < 20; ++i) {
    if (bytes[i].size() != 2 ||
        bytes[i].find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      return "";
    g += bytes[i];
  }
  return g;
}

std::vector<PeerCheck> test_peers(const std::vector<std::string>& peers, const Plan& plan,
                                  const Fs& fs, const CommandRunner& runner) {
  std::vector<PeerCheck> out;
  for (const auto& peer : peers) {
    std::string guid, via;
    const ResolvedIface* via_iface = nullptr;
    for (const ResolvedIface& r : plan.interfaces) {
      if (!r.exists && !fs.exists("/sys/class/net/" + r.name)) continue;
      PeerCheck p =
          run_check(peer, "ping " + r.name, {"ping", "-c", "3", "-W", "2", "-I", r.name, peer},
                    runner, "; is " + r.name + " up with carrier and the peer in its subnet?");
      out.push_back(p);
      if (p.verdict != PeerVerdict::kPassed || !guid.empty()) continue;
      // The neighbour entry the ping left holds the peer's port GUID.
      CommandResult n = runner.run({"ip", "neigh", "show", peer, "dev", r.name});
      std::istringstream words(n.output);
      for (std::string w, prev; words >> w; prev = w)
        if (prev == "lladdr") guid = guid_from_ipoib_lladdr(w);
      if (!guid.empty()) via = r.name, via_iface = &r;
    }
    if (!installed(fs, "ibping"))
      out.push_back({peer, "ibping", PeerVerdict::kSkipped, "",
                     "ibping not installed (apt install "
                     "infiniband-diags)"});
    else if (guid.empty())
      out.push_back({peer, "ibping", PeerVerdict::kSkipped, "",
                     "the peer's port GUID is unknown: no IPoIB ping answered"});
    else {
      // ibping exits 0 whatever it lost: its statistics line decides.
      std::string output;
      PeerCheck c =
          run_check(peer, "ibping", {"ibping", "-c", "3", "-G", guid}, runner, "", &output);
      auto lost = ping_loss(output);
      if (c.verdict == PeerVerdict::kPassed && (!lost || *lost != 0)) {
        c.verdict = PeerVerdict::kFailed;
        c.detail = (lost ? c.detail : "no statistics line: " + c.detail);
      }
      if (c.verdict == PeerVerdict::kFailed)
        c.detail += "; run `ibsm-agent ping-responder` (or `ibping -S`) on the peer (port GUID " +
                    guid + ", seen on " + via + ")";
      out.push_back(c);
    }
    // RDMA round trips: a reliable-connection ping-pong over the port that reached the
    // peer, then rdma_cm's rping.
    if (!installed(fs, "ibv_rc_pingpong")) {
      out.push_back({peer, "rc_pingpong", PeerVerdict::kSkipped, "",
                     "ibv_rc_pingpong not installed (apt install ibverbs-utils)"});
    } else if (!via_iface) {
      out.push_back({peer, "rc_pingpong", PeerVerdict::kSkipped, "",
                     "no IPoIB ping answered, so no port is known to reach the peer"});
    } else {
      auto argv = rc_pingpong_argv(peer, via_iface->device, via_iface->port);
      std::string output;
      PeerCheck c = run_check(peer, "rc_pingpong", argv, runner,
                              "; run `ibv_rc_pingpong -d DEVICE -i PORT` on the peer", &output);
      if (c.verdict == PeerVerdict::kPassed) {
        // Exit 0 is not enough: both summary lines show that the round trips happened.
        if (auto summary = parse_rc_pingpong(output)) {
          c.detail = *summary;
        } else {
          c.verdict = PeerVerdict::kFailed;
          c.detail = "exit 0 without the throughput and latency lines: " + c.detail;
        }
      }
      out.push_back(c);
    }
    if (!installed(fs, "rping"))
      out.push_back({peer, "rping", PeerVerdict::kSkipped, "",
                     "rping not installed (apt install rdmacm-utils)"});
    else
      out.push_back(run_check(peer, "rping", {"rping", "-c", "-a", peer, "-C", "3", "-v"}, runner,
                              "; run `rping -s` on the peer"));
  }
  return out;
}

int peer_exit_code(const std::vector<PeerCheck>& checks) {
  for (const auto& c : checks)
    if (c.verdict == PeerVerdict::kFailed) return 3;
  return 0;
}

std::string render_peer_checks(const std::vector<PeerCheck>& checks, bool json) {
  if (json) {
    toml::array a;
    for (const auto& c : checks)
      a.push_back(toml::table{{"peer", c.peer},
                              {"check", c.check},
                              {"verdict", std::string(verdict_name(c.verdict))},
                              {"command", c.command},
                              {"detail", c.detail}});
    std::ostringstream os;
    os << toml::json_formatter{toml::table{{"checks", a}}} << "\n";
    return os.str();
  }
  std::ostringstream os;
  for (const auto& c : checks) {
    os << std::left << std::setw(8) << verdict_name(c.verdict) << std::setw(18) << c.peer
       << std::setw(16) << c.check << c.detail << "\n";
    if (!c.command.empty()) os << "        reproduce: " << c.command << "\n";
  }
  return os.str();
}

}  // namespace ibsm::agent
