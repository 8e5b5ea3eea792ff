// Text and JSON renderings of what the verbs print. JSON is one object per
// verb, written indented by common/json_writer.hpp, members in key order.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "agent/apply.hpp"
#include "agent/observed.hpp"
#include "agent/plan.hpp"
#include "agent/verify.hpp"

namespace ibsm::agent {

enum class Format { kText, kJson };

std::string render_show(const Observed& o, Format f);
// The unified diff (diff -u, 3 lines of context) of the file a write or remove changes;
// empty for other actions.
std::string action_diff(const Action& a);
std::string render_plan(const Plan& plan,
                        const std::map<std::string, std::string>& protected_ifaces, Format f);
std::string render_apply(const ApplyReport& r, Format f);
std::string render_verify(const std::vector<Verdict>& verdicts, Format f);

}  // namespace ibsm::agent
