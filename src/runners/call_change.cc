#include "runners/call_change.h"

#include "pams/errors.h"
#include "pams/random/random.h"

namespace pams {

namespace {

// How the prng changed.
enum PrngChange : uint8_t {
  kStepped = 0,  // refills, then the position and the gauss cache
  kWhole = 1,    // reseeded or set: the whole Random::State
};

}  // namespace

AgentMark MarkOf(const Agent& agent) {
  const Random& prng = agent.prng();
  return AgentMark{prng.twists(), prng.resets(), prng.position(), prng.has_gauss_next()};
}

void BeginCall(const Agent& agent, CallStart* start) {
  start->mark = MarkOf(agent);
  start->extra.clear();
  // Sent back whole anyway (see WriteCallChange).
  if (!agent.replicas_may_keep_state()) return;
  StateWriter w(&start->extra);
  agent.save_state(w);
}

void WriteCallChange(const Agent& agent, const CallStart& start, CallBuffers* buffers,
                     StateWriter& out) {
  std::string& change = buffers->change;
  change.clear();
  StateWriter w(&change);
  const Random& prng = agent.prng();
  if (prng.resets() == start.mark.resets) {
    w.write<uint8_t>(kStepped);
    w.write<uint64_t>(prng.twists() - start.mark.twists);
    w.write<uint32_t>(prng.position());
    w.write<uint8_t>(prng.has_gauss_next() ? 1 : 0);
    w.write<double>(prng.gauss_next());
  } else {
    w.write<uint8_t>(kWhole);
    w.write(prng.getstate());
  }
  // The subclass state, only if it changed (after a 1).
  buffers->extra.clear();
  StateWriter e(&buffers->extra);
  agent.save_state(e);
  const bool changed = !agent.replicas_may_keep_state() || buffers->extra != start.extra;
  w.write<uint8_t>(changed ? 1 : 0);
  if (changed) w.write_string(buffers->extra);
  out.write_string(change);
}

std::string_view ReadCallChange(StateReader& in) { return in.read_string_view(); }

void ApplyCallChange(std::string_view change, Agent* agent, bool* extra_changed,
                     std::string* extra) {
  StateReader r(change);
  Random& prng = agent->prng();
  switch (r.read<uint8_t>()) {
    case kStepped: {
      const uint64_t twists = r.read<uint64_t>();
      const uint32_t position = r.read<uint32_t>();
      const bool has_gauss_next = r.read<uint8_t>() != 0;
      const double gauss_next = r.read<double>();
      if (position > Random::kStateWords) {
        throw SimulationError("corrupt call change: prng position " + std::to_string(position));
      }
      prng.advance(twists, position, has_gauss_next, gauss_next);
      break;
    }
    case kWhole: {
      const Random::State state = r.read<Random::State>();
      if (state.index > Random::kStateWords) {
        throw SimulationError("corrupt call change: prng index " + std::to_string(state.index));
      }
      prng.setstate(state);
      break;
    }
    default:
      throw SimulationError("corrupt call change");
  }
  *extra_changed = r.read<uint8_t>() != 0;
  if (*extra_changed) {
    const std::string_view bytes = r.read_string_view();
    extra->assign(bytes);
    StateReader e(bytes);
    agent->load_state(e);
    if (!e.at_end()) {
      throw SimulationError("agent " + agent->name() +
                            ": state has bytes that load_state() did not read");
    }
  }
  if (!r.at_end()) throw SimulationError("corrupt call change: trailing bytes");
}

}  // namespace pams
