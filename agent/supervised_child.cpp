#include "agent/supervised_child.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace ibsm::agent {
namespace {

std::string how(int status) {
  if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

}  // namespace

void SupervisedChild::keep_running() {
  if (pid_ > 0) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return;  // still running
    // The verb names it better than argv[0] (/proc/self/exe under watch).
    log_ << (argv_.size() > 1 ? argv_[1] : argv_[0]) << " (pid " << pid_ << ") " << how(status)
         << "; started again in at most "
         << std::chrono::duration_cast<std::chrono::seconds>(backoff_).count() << " s\n";
    log_.flush();
    pid_ = -1;
  }
  const auto now = std::chrono::steady_clock::now();
  if (starts_ > 0 && now - last_start_ < backoff_) return;
  pid_t pid = ::fork();
  if (pid < 0) return;  // tried again at the next wake
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> args;
    for (const auto& a : argv_)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  pid_ = pid;
  ++starts_;
  last_start_ = now;
}

void SupervisedChild::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= end) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

}  // namespace ibsm::agent
