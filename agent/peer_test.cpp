#include "agent/peer_test.hpp"

#include <toml++/toml.h>
#include <iomanip>
#include <sstream>

namespace ibsm::agent {
namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv)
    s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string last_line(const std::string& out) {
  std::string t = out;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
    t.pop_back();
  auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

bool installed(const Fs& fs, const std::string& tool) {
  for (const char* dir : {"/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"})
    if (fs.exists(dir + tool)) return true;
  return false;
}

PeerCheck run_check(const std::string& peer, const std::string& check,
                    std::vector<std::string> argv, const CommandRunner& runner,
                    const std::string& hint) {
  PeerCheck c{peer, check, PeerVerdict::kPassed, joined(argv), ""};
  CommandResult r = runner.run(argv);
  c.detail = last_line(r.output);
  if (r.status != 0) {
    c.verdict = PeerVerdict::kFailed;
    c.detail = (c.detail.empty() ? "exit " + std::to_string(r.status) : c.detail) + hint;
  }
  return c;
}

}  // namespace

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
      if (!guid.empty()) via = r.name;
    }
    if (!installed(fs, "ibping"))
      out.push_back({peer, "ibping", PeerVerdict::kSkipped, "",
                     "ibping not installed (apt install "
                     "infiniband-diags)"});
    else if (guid.empty())
      out.push_back({peer, "ibping", PeerVerdict::kSkipped, "",
                     "the peer's port GUID is unknown: no IPoIB ping answered"});
    else
      out.push_back(
          run_check(peer, "ibping", {"ibping", "-c", "3", "-G", guid}, runner,
                    "; run `ibping -S` on the peer (port GUID " + guid + ", seen on " + via + ")"));
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
