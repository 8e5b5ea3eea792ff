#include "agent/owned_file.hpp"

#include "agent/errors.hpp"

namespace ibsm::agent {

std::string file_header(std::string_view comment) {
  return std::string(comment) + std::string(kFileMarker.substr(1)) +
         " from the node file; local edits are overwritten.\n";
}

void plan_owned_file(Plan& plan, const Fs& fs, const std::string& resource, const std::string& path,
                     const std::string& content, unsigned mode, std::string_view marker) {
  plan.resources.push_back(resource);
  auto existing = fs.read(path);
  Action a;
  a.kind = ActionKind::kWriteFile;
  a.resource = resource;
  a.path = path;
  a.content = content;
  a.file_mode = mode;
  a.previous = existing;
  if (!existing) {
    a.reason = "missing";
  } else if (existing->find(marker) == std::string::npos) {
    plan.errors.push_back(
        Error{kForeignObject, path + " exists and was not written by ibsm-agent; left untouched"});
    return;
  } else if (*existing != content) {
    a.reason = "content differs from the node file";
  } else if (fs.mode(path).value_or(mode) != mode) {
    a.reason = "permissions differ";
  } else {
    return;
  }
  plan.actions.push_back(std::move(a));
}

void plan_prune(Plan& plan, const Fs& fs, const std::string& dir, const std::string& prefix,
                const std::set<std::string>& desired, std::string_view marker, bool prune) {
  for (const auto& name : fs.list(dir)) {
    std::string path = dir + "/" + name;
    if (name.rfind(prefix, 0) != 0 || desired.count(path)) continue;
    auto content = fs.read(path);
    if (!content || content->find(marker) == std::string::npos) continue;
    if (!prune) {
      plan.notes.push_back(
          path + " is owned by ibsm-agent but no longer in the node file (--prune removes it)");
      continue;
    }
    Action a;
    a.kind = ActionKind::kRemoveFile;
    a.resource = "file " + path;
    a.path = path;
    a.previous = content;
    a.reason = "no longer in the node file (--prune)";
    plan.actions.push_back(std::move(a));
  }
}

}  // namespace ibsm::agent
