// The FP8 lesson: its variants set the FP8 settings its callouts talk about (scaling off, a 16-step
// amax history, the spike at step 100 times 1000, the outlier feature times 1e6), and it shows the FP8 scale
// panel.
#include <gtest/gtest.h>

#include "ampscope/engine/run_config.h"
#include "ui/lessons/lesson_library.h"

namespace ampscope::ui {
namespace {

const Lesson::Variant* variant(const Lesson& lesson, const QString& id) {
  for (const Lesson::Variant& v : lesson.variants)
    if (v.id == id) return &v;
  return nullptr;
}

TEST(Fp8Lesson, VariantsSetTheSettingsTheCalloutsDescribe) {
  LessonLibrary library;
  library.load();
  const Lesson* lesson = library.find(QStringLiteral("fp8-scaling"));
  ASSERT_NE(lesson, nullptr) << library.errors().join(QLatin1Char('\n')).toStdString();
  EXPECT_EQ(lesson->section, 11);
  EXPECT_TRUE(lesson->layout.visible.contains(QStringLiteral("fp8-scale")));
  EXPECT_TRUE(lesson->layout.large.contains(QStringLiteral("fp8-scale")));

  const Lesson::Variant* off = variant(*lesson, QStringLiteral("no-scaling"));
  ASSERT_NE(off, nullptr);
  EXPECT_FALSE(off->config.fp8.scaling);
  EXPECT_EQ(off->config.modes, (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::Fp8Delayed}));
  EXPECT_EQ(off->config.lossWeight, 0.001);  // the small gradients E5M2 flushes at scale 1

  const Lesson::Variant* delayed = variant(*lesson, QStringLiteral("delayed"));
  ASSERT_NE(delayed, nullptr);
  EXPECT_TRUE(delayed->config.fp8.scaling);
  EXPECT_EQ(delayed->config.fp8.spikeStep, 0);

  const Lesson::Variant* spike = variant(*lesson, QStringLiteral("spike"));
  ASSERT_NE(spike, nullptr);
  EXPECT_EQ(spike->config.fp8.amaxHistoryLen, 16);
  EXPECT_EQ(spike->config.fp8.spikeStep, 100);
  EXPECT_EQ(spike->config.fp8.spikeFactor, 1000.0);
  EXPECT_EQ(spike->config.modes,
            (std::vector<PrecisionMode>{PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current}));
  EXPECT_GT(spike->config.steps, 100 + 16);  // the history forgets the spike within the run

  const Lesson::Variant* blocks = variant(*lesson, QStringLiteral("blocks"));
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(blocks->config.modes, (std::vector<PrecisionMode>{PrecisionMode::Fp8Current, PrecisionMode::MXFP8}));
  EXPECT_EQ(blocks->config.fp8.outlierFactor, 1.0);

  // The outlier callout's numbers are for feature 0 of fc1's input times 1e6 (lesson_claims measures them).
  const Lesson::Variant* outlier = variant(*lesson, QStringLiteral("outlier"));
  ASSERT_NE(outlier, nullptr);
  EXPECT_EQ(outlier->config.fp8.outlierFactor, 1e6);
  EXPECT_TRUE(outlier->config.fp8.scaling);
  EXPECT_EQ(outlier->config.model, ModelKind::DeepMLP);
  EXPECT_EQ(outlier->config.modes, (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::Fp8Current,
                                                               PrecisionMode::MXFP8}));
}

}  // namespace
}  // namespace ampscope::ui
