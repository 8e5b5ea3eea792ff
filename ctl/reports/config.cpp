// dump_conf: the options in force as opensm.conf text; every secret's value redacted
// for a client that may not see the keys.
#include "conf/opensm_conf_writer.hpp"
#include "ctl/reports/families.hpp"

namespace ibsm::ctl {

bool is_secret_option(std::string_view key) {
  auto has = [&](std::string_view w) { return key.find(w) != std::string_view::npos; };
  return key.ends_with("_key") || key == "key" || has("secret") || has("password") || has("passwd");
}

std::string redact_secrets(std::string_view conf_text) {
  std::string out;
  out.reserve(conf_text.size());
  while (!conf_text.empty()) {
    const auto nl = conf_text.find('\n');
    std::string_view line = conf_text.substr(0, nl);
    conf_text.remove_prefix(nl == std::string_view::npos ? conf_text.size() : nl + 1);
    // "key value" or "#ibsm: key value"; other comments and blank lines pass.
    std::string_view body = line;
    std::string_view lead;
    if (body.starts_with("#ibsm:")) {
      const auto k = body.find_first_not_of(" \t", 6);
      lead = body.substr(0, k == std::string_view::npos ? body.size() : k);
      body.remove_prefix(lead.size());
    }
    const auto sp = body.find_first_of(" \t");
    const std::string_view key = body.substr(0, sp);
    if (!body.starts_with("#") && sp != std::string_view::npos && is_secret_option(key)) {
      out.append(lead).append(key).append(" <redacted>");
    } else {
      out.append(line);
    }
    if (nl != std::string_view::npos) out += '\n';
  }
  return out;
}

namespace reports {

Answer dump_conf(const OpsSnapshot& s, bool sees_secrets) {
  if (!s.options) return no_fabric();
  std::string text = conf::write_opensm_conf(*s.options);
  if (!sees_secrets) text = redact_secrets(text);
  return simple(text, "opensm_conf", text);
}

}  // namespace reports

}  // namespace ibsm::ctl
