// IdleSpin: how long a worker process spins on its socket, waiting for the
// main process's next message, before it sleeps. Private to the library;
// one per worker loop, on its thread.
//
// Why spin: on a virtual machine, a process that sleeps lets its virtual CPU
// halt, and the next message then wakes it through the hypervisor (tens of
// microseconds) onto cold caches. Between two steps a worker waits for the
// main process's own work of the step (its orders, high-frequency agents,
// events, loggers; 0.3-0.5 ms with Python agents), and with Keras agents of
// 1 ms a call, sleeping through those waits cost 2 workers about 5% of
// their speedup on 2 cores (bench/tensorflow_python_bench.py). Spinning
// through a long wait, though, only takes a CPU that the main process or
// another worker may need, so the spin follows the waits this worker has
// seen: twice their moving average, at least kMinSeconds; when they are
// longer than kMaxSeconds, spinning would not cover them, and the spin stays
// kMinSeconds.

#ifndef PAMS_SRC_RUNNERS_IDLE_SPIN_H_
#define PAMS_SRC_RUNNERS_IDLE_SPIN_H_

#include <algorithm>

#include "runners/channel.h"

namespace pams {

class IdleSpin {
 public:
  // What a round trip needs whatever the waits (the main process answering
  // a result at once).
  static constexpr double kMinSeconds = Channel::kDefaultSpinSeconds;
  static constexpr double kMaxSeconds = 2e-3;

  // The spin before sleeping in the next wait.
  double seconds() const {
    if (average_ > kMaxSeconds) return kMinSeconds;
    return std::clamp(2 * average_, kMinSeconds, kMaxSeconds);
  }

  // Records a wait for a message that had not arrived yet when the wait
  // began (a message already there says nothing of the gaps between
  // steps). REQUIRES: seconds >= 0.
  void Record(double seconds) { average_ += (seconds - average_) / 8; }

 private:
  double average_ = 0;  // exponential moving average of the waits
};

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_IDLE_SPIN_H_
