#include "partitions/defaults.hpp"

#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "partitions/errors.hpp"
#include "partitions/parser.hpp"

namespace ibsm::partitions {

Config missing_file_config() {
  Statement st;
  st.name = "Default";
  st.pkey = kDefaultPKey;
  st.ipoib = true;
  st.members.push_back({MemberKind::kAll, 0, Membership::kFull, {}});
  st.members.push_back({MemberKind::kSelf, 0, Membership::kFull, {}});
  Config c;
  c.statements.push_back(st);
  return c;
}

Statement implicit_default_statement() {
  Statement st;
  st.name = "Default";
  st.pkey = kDefaultPKey;
  st.members.push_back({MemberKind::kAll, 0, Membership::kLimited, {}});
  st.members.push_back({MemberKind::kSelf, 0, Membership::kFull, {}});
  return st;
}

LoadOutcome load_partitions_text(std::string_view text) {
  ParseResult r = parse_partitions(text);
  LoadOutcome out;
  out.diagnostics = std::move(r.diagnostics);
  if (has_errors(out.diagnostics)) return out;
  if (r.config.statements.empty()) {
    out.diagnostics.push_back({Severity::kWarning, kNoStatements, 0, 0,
                               "no statement in the file; every port becomes a full member of "
                               "the default partition, as in OpenSM",
                               ""});
    out.config = missing_file_config();
    return out;
  }
  out.config = std::move(r.config);
  return out;
}

LoadOutcome load_partitions_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {missing_file_config(), {}};
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  if (in) ss << in.rdbuf();
  if (!in || in.bad()) {
    LoadOutcome out;
    out.diagnostics.push_back({Severity::kError, kCannotRead, 0, 0,
                               "cannot read " + path + ": " + std::strerror(errno), ""});
    return out;
  }
  return load_partitions_text(ss.str());
}

}  // namespace ibsm::partitions
