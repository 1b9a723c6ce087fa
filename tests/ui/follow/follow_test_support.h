// Streams for the follow tests: a probe header and ModeStep lines in the record stream format, written
// with the engine's own codec (record_codec.h), and a way to poll a FollowController until something
// arrived without timing anything (the follower never blocks; a reconnect waits for its backoff).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/stream_follower.h"
#include "ampscope/engine/telemetry.h"
#include "ui/follow/follow_controller.h"

namespace ampscope::ui::test {

// Appends `text` to the file at `path` (created when missing), as a training script writes its stream.
inline void append(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
}

inline StreamSource probeSource(const std::string& run, const std::string& runId, const std::string& ranks = "single",
                                int64_t rank = 0) {
  StreamSource s;
  s.source = "probe";
  s.run = run;
  s.runId = runId;
  s.ranks = ranks;
  s.rank = rank;
  s.worldSize = ranks == "single" ? 1 : 2;
  s.device = "cpu";
  s.torch = "1.13.1";
  s.every = 1;
  s.parameters = {"net.0.weight", "net.0.bias", "net.1.weight"};
  return s;
}

inline std::string header(const StreamSource& source) { return probeStreamHeader(source, "ampscope_probe 0.2.0"); }

// Step n with loss 10/n and record number n.
inline ModeStep probeStep(int64_t n, PrecisionMode mode = PrecisionMode::FP16AmpScaled) {
  ModeStep s;
  s.mode = mode;
  s.step = n;
  s.seq = n;
  s.loss = 10.0 / static_cast<double>(n);
  s.lossScale = 65536;
  s.gradNormBeforeClip = s.gradNormAfterClip = s.clipNormSeen = 1.0;
  s.lr = 0.1;
  return s;
}

inline std::string lines(int64_t first, int64_t last, PrecisionMode mode = PrecisionMode::FP16AmpScaled) {
  std::string out;
  for (int64_t n = first; n <= last; ++n) appendRecordStreamLine(out, probeStep(n, mode));
  return out;
}

// A file target as the Follow Run dialog would make it (the test fails if the path is refused).
inline FollowTarget fileTarget(const std::string& path) {
  std::string error;
  const auto t = parseFollowTarget(path, &error);
  EXPECT_TRUE(t.has_value()) << error;
  return t ? *t : FollowTarget{};
}

// Polls until `done` holds, at most `tries` times, sleeping a little between polls that brought nothing.
inline bool pollUntil(FollowController& controller, const std::function<bool()>& done, int tries = 1000) {
  for (int i = 0; i < tries; ++i) {
    controller.poll();
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

}  // namespace ampscope::ui::test
