// health and health clear (ctl/reports/health.cpp, ctl/command.cpp, ctl/sm_request.cpp) on
// hand-made OpsSnapshots: the text names both ends of each unhealthy port's link and
// says why an action is milder than asked, --json is an array of objects with stable
// keys that parses back to what was published (a hostile NodeDescription included),
// and `health clear GUID PORT` is checked in ctl and becomes one kHealthClear request.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <variant>

#include "common/display_text.hpp"
#include "ctl/answer_wire.hpp"
#include "ctl/command.hpp"
#include "ctl/errors.hpp"
#include "ctl/reports/reports.hpp"
#include "ctl/sm_request.hpp"
#include "ops/event_bus.hpp"

namespace ibsm::ctl {
namespace {

using namespace std::chrono_literals;

// A JSON array of flat objects (string, unsigned and bool members), as `health --json`
// writes it; a parse error is an empty optional.
using JsonValue = std::variant<std::string, std::uint64_t, bool>;
using JsonObject = std::map<std::string, JsonValue>;

class FlatJson {
 public:
  explicit FlatJson(std::string_view t) : t_(t) {}

  std::optional<std::vector<JsonObject>> array() {
    std::vector<JsonObject> out;
    if (!eat('[')) return std::nullopt;
    if (eat(']')) return end_ok() ? std::optional(out) : std::nullopt;
    do {
      auto o = object();
      if (!o) return std::nullopt;
      out.push_back(std::move(*o));
    } while (eat(','));
    if (!eat(']') || !end_ok()) return std::nullopt;
    return out;
  }

 private:
  bool eat(char c) {
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool end_ok() const { return i_ == t_.size(); }

  std::optional<JsonObject> object() {
    JsonObject o;
    if (!eat('{')) return std::nullopt;
    if (eat('}')) return o;
    do {
      auto k = string();
      if (!k || !eat(':')) return std::nullopt;
      if (i_ < t_.size() && t_[i_] == '"') {
        auto v = string();
        if (!v) return std::nullopt;
        o[*k] = *v;
      } else if (t_.substr(i_, 4) == "true" || t_.substr(i_, 5) == "false") {
        o[*k] = t_[i_] == 't';
        i_ += t_[i_] == 't' ? 4 : 5;
      } else {
        std::uint64_t v = 0;
        const std::size_t start = i_;
        while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9')
          v = v * 10 + static_cast<std::uint64_t>(t_[i_++] - '0');
        if (i_ == start) return std::nullopt;
        o[*k] = v;
      }
    } while (eat(','));
    if (!eat('}')) return std::nullopt;
    return o;
  }

  std::optional<std::string> string() {
    if (!eat('"')) return std::nullopt;
    std::string s;
    while (i_ < t_.size() && t_[i_] != '"') {
      const char c = t_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;  // raw control: invalid
      if (c != '\\') {
        s += c;
        continue;
      }
      if (i_ >= t_.size()) return std::nullopt;
      const char e = t_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          s += e;
          break;
        case 'n':
          s += '\n';
          break;
        case 't':
          s += '\t';
          break;
        case 'r':
          s += '\r';
          break;
        case 'b':
          s += '\b';
          break;
        case 'f':
          s += '\f';
          break;
        case 'u': {
          if (i_ + 4 > t_.size()) return std::nullopt;
          const auto cp =
              static_cast<char32_t>(std::stoul(std::string(t_.substr(i_, 4)), nullptr, 16));
          i_ += 4;
          text::append_utf8(s, cp);  // the writer escapes controls only (BMP, no surrogates)
          break;
        }
        default:
          return std::nullopt;
      }
    }
    if (!eat('"')) return std::nullopt;
    return s;
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

const std::string kHostile = "</td><script>alert(\"x\")</script>\nfake line 'q'";
const auto kSince = std::chrono::system_clock::time_point{} + 1796688000s + 250ms;

ops::UnhealthyPort flapping_isl() {
  ops::UnhealthyPort p;
  p.node_guid = 0x200002;
  p.port = 3;
  p.port_guid = 0x200002;
  p.is_switch = true;
  p.node_name = "leaf1";
  p.condition = "flapping";
  p.action = "isolate";
  p.asked = "isolate";
  p.detail = "flapped in 5 of the last 30 sweeps";
  p.since = kSince;
  p.remote_guid = 0x200000;
  p.remote_port = 1;
  p.remote_name = "spine1";
  return p;
}

ops::UnhealthyPort host_link(std::string name) {
  ops::UnhealthyPort p;
  p.node_guid = 0x100004;
  p.port = 1;
  p.port_guid = 0x100005;
  p.node_name = std::move(name);
  p.condition = "noisy";
  p.action = "report";
  p.asked = "isolate";
  p.downgrade = "host_only_link";
  p.detail = "61 traps in 90 s";
  p.since = kSince;
  p.remote_guid = 0x200003;
  p.remote_port = 2;
  p.remote_name = "leaf2";
  return p;
}

ops::OpsSnapshot with_health(ops::HealthStatus h) {
  ops::OpsSnapshot s;
  s.health = std::make_shared<const ops::HealthStatus>(std::move(h));
  return s;
}

ops::HealthStatus two_ports(std::string host_name = "h3") {
  ops::HealthStatus h;
  h.ports = {host_link(std::move(host_name)), flapping_isl()};
  h.isolated = 1;
  h.max_isolated = 10;
  h.policy_file = "/etc/opensm/health-policy.conf";
  h.dump_file = "/var/log/opensm-unhealthy-ports.dump";
  return h;
}

struct HealthAsker {
  ops::EventBus bus;
  Answer ask(const ops::OpsSnapshot& s, std::string_view line) {
    auto c = parse_command(line);
    EXPECT_TRUE(c.ok()) << line;
    EXPECT_FALSE(c->changes) << line;
    return answer_read_only(*c, s, bus);
  }
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto nl = text.find('\n', at);
    out.push_back(text.substr(at, nl - at));
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

TEST(Health, TextHasAHeaderAndOneLinePerPortWithBothEndsNamed) {
  HealthAsker k;
  const Answer a = k.ask(with_health(two_ports()), "health");
  ASSERT_TRUE(a.ok);
  const auto lines = lines_of(a.text);
  ASSERT_EQ(lines.size(), 5u) << a.text;
  EXPECT_EQ(lines[0], "2 unhealthy ports, 1 isolated (at most 10)");
  EXPECT_EQ(lines[1], "policy file /etc/opensm/health-policy.conf: read");
  EXPECT_EQ(lines[2], "dump file /var/log/opensm-unhealthy-ports.dump");
  EXPECT_EQ(lines[3],
            "noisy        0x0000000000100004[1] \"h3\" - 0x0000000000200003[2] \"leaf2\": report "
            "(asked isolate: host_only_link), since 2026-12-08T00:00:00.250Z, 61 traps in 90 s");
  EXPECT_EQ(lines[4],
            "flapping     0x0000000000200002[3] \"leaf1\" - 0x0000000000200000[1] \"spine1\": "
            "isolate, since 2026-12-08T00:00:00.250Z, flapped in 5 of the last 30 sweeps");
}

TEST(Health, APortWithoutALinkAndAPolicyFileInError) {
  HealthAsker k;
  auto h = two_ports();
  h.ports.resize(1);
  h.ports[0].remote_guid = 0;
  h.ports[0].remote_name.clear();
  h.policy_ok = false;
  h.policy_error = "IBSM-2307: /etc/opensm/health-policy.conf:4: no port 77 on 0x0000000000200002";
  const Answer a = k.ask(with_health(h), "health");
  EXPECT_NE(a.text.find("policy file /etc/opensm/health-policy.conf IN ERROR, the last good "
                        "policy stays: IBSM-2307: /etc/opensm/health-policy.conf:4:"),
            std::string::npos)
      << a.text;
  EXPECT_NE(a.text.find("\"h3\" - (no link): report"), std::string::npos) << a.text;
}

TEST(Health, NoStatusIsNoUnhealthyPortWithTheChecksOn) {
  HealthAsker k;
  for (const auto& s : {ops::OpsSnapshot{}, with_health({})}) {
    const Answer a = k.ask(s, "health");
    EXPECT_EQ(a.json, "[]");
    EXPECT_EQ(a.text.find("off"), std::string::npos) << a.text;
    EXPECT_NE(a.text.find("0 unhealthy ports, 0 isolated"), std::string::npos) << a.text;
    EXPECT_NE(a.text.find("no hm_ports_health_policy_file"), std::string::npos) << a.text;
  }
  ops::HealthStatus off;
  off.enabled = false;
  EXPECT_TRUE(k.ask(with_health(off), "health")
                  .text.starts_with("health checks off (hm_unhealthy_ports_checks FALSE)\n"));
}

TEST(Health, JsonIsAnArrayOfObjectsWithStableKeysWhereverTheFlagIs) {
  HealthAsker k;
  const auto s = with_health(two_ports());
  std::string first;
  for (const char* line : {"--json health", "health --json"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line;
    EXPECT_TRUE(c->json) << line;
    const Answer a = k.ask(s, line);
    if (first.empty()) first = a.json;
    EXPECT_EQ(a.json, first);
    EXPECT_EQ(encode_answer(true, true, "health", a),
              "{\"command\":\"health\",\"ok\":true,\"result\":" + a.json + "}\n.ok\n");
  }
  auto doc = FlatJson(first).array();
  ASSERT_TRUE(doc) << first;
  ASSERT_EQ(doc->size(), 2u);
  const JsonObject want = {
      {"node_guid", std::string("0x0000000000200002")},
      {"port", std::uint64_t{3}},
      {"port_guid", std::string("0x0000000000200002")},
      {"node_name", std::string("leaf1")},
      {"is_switch", true},
      {"condition", std::string("flapping")},
      {"action", std::string("isolate")},
      {"asked", std::string("isolate")},
      {"downgrade", std::string("")},
      {"detail", std::string("flapped in 5 of the last 30 sweeps")},
      {"since", std::string("2026-12-08T00:00:00.250Z")},
      {"remote_guid", std::string("0x0000000000200000")},
      {"remote_port", std::uint64_t{1}},
      {"remote_name", std::string("spine1")},
  };
  EXPECT_EQ((*doc)[1], want);
  EXPECT_EQ(std::get<std::string>((*doc)[0].at("downgrade")), "host_only_link");
  EXPECT_EQ(std::get<std::string>((*doc)[0].at("port_guid")), "0x0000000000100005");
  EXPECT_EQ(std::get<bool>((*doc)[0].at("is_switch")), false);
  // The key order is the documented one (docs/ctl.md).
  EXPECT_TRUE(first.starts_with("[{\"node_guid\":\"0x0000000000100004\",\"port\":1,\"port_guid\":"))
      << first;
}

TEST(Health, AHostileNodeDescriptionStaysOneStringAndOneLine) {
  HealthAsker k;
  // JSON: whatever the name holds comes back as it was.
  auto raw = two_ports(kHostile);
  raw.ports[1].remote_name = kHostile;
  const Answer j = k.ask(with_health(raw), "health --json");
  auto doc = FlatJson(j.json).array();
  ASSERT_TRUE(doc) << j.json;
  EXPECT_EQ(std::get<std::string>((*doc)[0].at("node_name")), kHostile);
  EXPECT_EQ(std::get<std::string>((*doc)[1].at("remote_name")), kHostile);
  EXPECT_EQ(j.json.find('\n'), std::string::npos);
  // Text: the SM publishes display names (names::name_of), so the line stays one line.
  const std::string shown = text::display_name(nullptr, kHostile);
  const Answer t = k.ask(with_health(two_ports(shown)), "health");
  const auto lines = lines_of(t.text);
  ASSERT_EQ(lines.size(), 5u) << t.text;
  EXPECT_TRUE(
      lines[3].starts_with("noisy        0x0000000000100004[1] \"</td><script>alert(\"x\")"))
      << lines[3];
  EXPECT_NE(lines[3].find("fake line 'q'\" - 0x0000000000200003[2]"), std::string::npos)
      << lines[3];
}

// --- health clear ----------------------------------------------------------------------

TEST(HealthClear, IsAChangingCommandSentAsOneRequest) {
  for (const char* line : {"health clear 0x0002c903000e0b72 12", "health clear 0x2c903000e0b72 12",
                           "health clear 783964676426610 0xc"}) {
    auto c = parse_command(line);
    ASSERT_TRUE(c.ok()) << line << ": " << c.error().message;
    EXPECT_TRUE(c->changes) << line;
    const auto r = control_request_for(*c);
    ASSERT_TRUE(r) << line;
    EXPECT_EQ(r->action, ops::ControlAction::kHealthClear);
    EXPECT_TRUE(r->changes);
    EXPECT_EQ(r->words, (std::vector<std::string>{"0x0002c903000e0b72", "12"})) << line;
  }
  auto zero = parse_command("health clear 0x10 0");  // a switch's port 0 is a port too
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(control_request_for(*zero)->words,
            (std::vector<std::string>{"0x0000000000000010", "0"}));
  auto last = parse_command("--json health clear 0x10 254");
  ASSERT_TRUE(last.ok());
  EXPECT_TRUE(last->json && last->changes);
  // The report itself is answered from the snapshot, never sent.
  auto report = parse_command("health");
  ASSERT_TRUE(report.ok());
  EXPECT_FALSE(control_request_for(*report));
}

TEST(HealthClear, BadInputIsRefusedWithItsIdAndNothingIsSent) {
  for (const char* line :
       {"health clear", "health clear 0x10", "health clear 0x10 255", "health clear 0x10 1000",
        "health clear 0x10 -1", "health clear 0 1", "health clear 0xzz 1", "health clear leaf1 1",
        "health clear 0x10000000000000000 1", "health clear 0x10 1 2", "health clearall",
        "health 0x10 1", "health --json extra", "health clear 0x10 port1"}) {
    auto c = parse_command(line);
    ASSERT_FALSE(c.ok()) << line;
    EXPECT_EQ(c.error().id, kErrBadArgument) << line;
    EXPECT_FALSE(c.error().message.empty());
  }
  auto big = parse_command("health clear 0x10 255");
  EXPECT_NE(big.error().message.find("port 255 is above 254"), std::string::npos)
      << big.error().message;
  auto missing = parse_command("health clear 0x10");
  EXPECT_NE(missing.error().message.find("needs a node GUID and a port number"), std::string::npos)
      << missing.error().message;
}

TEST(HealthClear, HelpListsTheCommand) {
  HealthAsker k;
  const Answer a = k.ask(ops::OpsSnapshot{}, "help");
  EXPECT_NE(a.text.find("health [--json] | health clear <guid> <port>\n"), std::string::npos)
      << a.text;
}

}  // namespace
}  // namespace ibsm::ctl
