// A screenshot of the main window following two training scripts' streams (an fp16 run with a scaler
// that skips a step, a bf16 run) beside a short engine run, for the docs and for checking by eye that
// legends and labels stay readable. Only runs when AMPSCOPE_SCREENSHOT_DIR names a folder; the image is
// <dir>/follow-window.png.
#include <gtest/gtest.h>

#include <QDir>
#include <QPixmap>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>

#include "follow_test_support.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_workspace.h"
#include "ui/main_window.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

// A gradient histogram centred on 2^centre, about 5000 values, with FP16/BF16 range counts from its bins.
ExponentHistogram histogram(int centre) {
  ExponentHistogram h;
  for (int e = centre - 8; e <= centre + 8; ++e) {
    const int64_t n = static_cast<int64_t>(std::llround(800.0 * std::exp(-0.5 * (e - centre) * (e - centre) / 6.0)));
    h.counts.set(e, n);
    auto& fp16 = h.formats[static_cast<std::size_t>(RangeFormat::FP16)];
    if (e < -25) fp16.flushed += n;
    else if (e < -14) fp16.subnormal += n;
    if (e >= 16) fp16.overflowed += n;
  }
  h.formatsMeasured = true;
  h.targetUnderflow = h.formats[0].flushed;
  h.targetSubnormal = h.formats[0].subnormal;
  return h;
}

std::string stream(const std::string& run, const std::string& id, PrecisionMode mode, int skipAt) {
  std::string text = test::header(test::probeSource(run, id));
  double scale = mode == PrecisionMode::FP16AmpScaled ? 65536.0 : 1.0;
  int64_t seq = 0;
  for (int64_t n = 1; n <= 300; n += (n == 1 ? 9 : 10)) {
    ModeStep s = test::probeStep(n, mode);
    s.seq = ++seq;  // one per line written
    s.loss = 2.3 * std::exp(-static_cast<double>(n) / (mode == PrecisionMode::BF16Amp ? 140.0 : 110.0)) + 0.15;
    s.lossScale = scale;
    s.instrumented = true;
    const int centre = (mode == PrecisionMode::BF16Amp ? -22 : -6) - static_cast<int>(n / 60);
    for (const char* name : {"net.0.weight", "net.0.bias", "net.1.weight"}) {
      TensorStats t;
      t.name = name;
      t.scaled = histogram(centre);
      t.unscaled = histogram(centre - (mode == PrecisionMode::FP16AmpScaled ? 16 : 0));
      t.numel = t.scaled.total();
      s.tensors.push_back(t);
    }
    if (n == skipAt) {
      s.skipped = s.foundInf = true;
      s.nonFinite = {"net.1.weight"};
      s.tensors[2].scaled.posInf = 3;
      scale /= 2;
    }
    appendRecordStreamLine(text, s);
  }
  return text;
}

TEST(FollowScreenshot, MainWindowFollowingTwoStreamsBesideAnEngineRun) {
  const QString dir = qEnvironmentVariable("AMPSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) GTEST_SKIP() << "set AMPSCOPE_SCREENSHOT_DIR to write screenshots";
  QTemporaryDir streams;
  const std::string a = streams.filePath(QStringLiteral("fp16.jsonl")).toStdString();
  const std::string b = streams.filePath(QStringLiteral("bf16.jsonl")).toStdString();
  std::ofstream(a) << stream("fp16-run", "00000000000000f1", PrecisionMode::FP16AmpScaled, 150);
  std::ofstream(b) << stream("bf16-run", "00000000000000b1", PrecisionMode::BF16Amp, -1);

  MainWindow window;
  window.setLayoutPersistence(false);
  window.resize(1600, 1000);
  window.show();
  TrainingWorkspace* workspace = window.trainingWorkspace();
  RunConfig config = workspace->runPanel()->config();
  config.steps = 300;
  RunController* run = workspace->controller();
  ASSERT_TRUE(run->start(config));
  ASSERT_TRUE(QTest::qWaitFor([&] { return run->state() == RunState::Finished; }, 240000));
  run->drainNow();

  FollowController* follow = window.followWorkspace()->controller();
  std::string error;
  follow->follow(*parseFollowTarget(a, &error));
  follow->follow(*parseFollowTarget(b, &error));
  ASSERT_TRUE(QTest::qWaitFor([&] { return follow->runs().size() == 2 && follow->runs()[1].steps.size() == 31; }, 10000));
  workspace->raisePanel(QStringLiteral("underflow"));
  QTest::qWait(600);
  EXPECT_TRUE(window.grab().save(QDir(dir).filePath(QStringLiteral("follow-window.png"))));
  follow->stopAll();
  workspace->shutdown();
}

}  // namespace
}  // namespace ampscope::ui
