// Hostile node names on every output of the metrics endpoint (issue 38): a name that
// reaches the sinks without the decoder's display text (as the fake snapshot's do)
// still leaves /metrics valid UTF-8 with parseable labels, and the page and its SVG
// well-formed, with no element brought in by a name.
#include <gtest/gtest.h>

#include <string>

#include "common/display_text.hpp"
#include "metrics/exposition.hpp"
#include "metrics/status_page.hpp"
#include "tests/fake/fake_ops_snapshot.hpp"
#include "tests/support/builders.hpp"

namespace ibsm::metrics {
namespace {

const std::string kFffd = "\xef\xbf\xbd";

TEST(HostileNames, EveryOutputOfTheEndpointStaysWellFormed) {
  auto fabric = testsupport::two_level_fat_tree(1, 1, 1);
  for (auto& n : fabric.nodes)
    n.description = "h4 \xff\xfe<img src=x onerror=alert(1)>\x1b[31m\"\\";
  const auto s = fake::ops_snapshot_of(fabric);
  auto counters = std::make_shared<perfmgr::CounterSnapshot>(*s->perf_counters);
  for (auto& r : counters->ports)
    r.err[perfmgr::Err::kRcv] = 1;
  s->perf_counters = counters;

  // The scrape that Prometheus dropped whole: every label is valid UTF-8 now.
  const std::string scrape = render(*s);
  EXPECT_TRUE(text::is_valid_utf8(scrape));
  EXPECT_NE(scrape.find("local_name=\"h4 " + kFffd + kFffd + "<img src=x onerror=alert(1)>" +
                        kFffd + "[31m\\\"\\\\\""),
            std::string::npos)
      << scrape.substr(0, 2000);

  const auto parts = status_parts(*s, nullptr);
  const std::string page = status_page(*s, parts.get());
  for (const std::string* out : {&page, &parts->svg}) {
    EXPECT_TRUE(text::is_valid_utf8(*out));
    EXPECT_EQ(out->find("<img"), std::string::npos);
    EXPECT_EQ(out->find('\x1b'), std::string::npos);
    EXPECT_NE(out->find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  }
}

}  // namespace
}  // namespace ibsm::metrics
