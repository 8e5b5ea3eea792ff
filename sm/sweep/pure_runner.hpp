// How a sweep step hands pure work (its own inputs, no fabric model, no SMP client)
// to another thread while the SM keeps serving its port: the SM passes its
// compute_while_serving, so SMPs already queued keep flowing and SA requests are
// answered; a caller with nothing to serve (a test) runs the work inline.
#pragma once

#include <functional>

namespace ibsm::sm {

using PureRunner = std::function<void(const std::function<void()>&)>;

// Runs the work on the calling thread.
inline void run_inline(const std::function<void()>& work) {
  work();
}

}  // namespace ibsm::sm
