// The shipped lessons and the lesson-file parser: every lesson loads, follows one chapter section, is
// complete in both languages, and a broken file is reported by file name and field.
#include "ui/lessons/lesson_library.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <algorithm>

#include "ampscope/engine/advice_run.h"
#include "ampscope/engine/comparison.h"
#include "ampscope/engine/run_config.h"
#include "ui/app_options.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lesson_controller.h"

namespace ampscope::ui {
namespace {

TEST(LessonLibrary, AnOversizedOrSpecialFileIsReportedAndTheRestLoad) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  // One shipped lesson, copied out of the resources, keeps loading beside the bad files.
  ASSERT_TRUE(QFile::copy(QStringLiteral(":/lessons/underflow.json"), dir.filePath(QStringLiteral("underflow.json"))));
  QFile big(dir.filePath(QStringLiteral("big.json")));
  ASSERT_TRUE(big.open(QIODevice::WriteOnly));
  ASSERT_TRUE(big.resize(LessonLibrary::kMaxLessonBytes + 1));  // sparse, one byte over the bound
  big.close();
  // /dev/zero never ends: read whole, it would take all memory.
  const bool haveZero = QFileInfo::exists(QStringLiteral("/dev/zero"));
  if (haveZero) {
    ASSERT_TRUE(QFile::link(QStringLiteral("/dev/zero"), dir.filePath(QStringLiteral("zero.json"))));
  }

  LessonLibrary library;
  EXPECT_FALSE(library.load(dir.path()));
  EXPECT_NE(library.find(QStringLiteral("underflow")), nullptr);
  const QString errors = library.errors().join(QLatin1Char('\n'));
  EXPECT_TRUE(errors.contains(QStringLiteral("big.json: 1048577 bytes; a lesson file may hold at most 1048576 bytes")))
      << errors.toStdString();
  if (haveZero) {
    EXPECT_TRUE(errors.contains(QStringLiteral("zero.json: not a regular file"))) << errors.toStdString();
  }
}

bool containsHan(const QString& text) {
  static const QRegularExpression han(QStringLiteral("\\p{Han}"));
  return text.contains(han);
}

LessonLibrary shipped() {
  LessonLibrary library;
  library.load();
  return library;
}

// A minimal valid lesson; tests replace one piece to break it.
QByteArray lessonJson(
    const QString& configJson = QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})"),
    const QString& extra = QString()) {
  return QStringLiteral(R"({"id": "probe", "section": 4,
      "title": {"en": "Probe", "zh_CN": "探针"},
      "narrative": {"en": ["One."], "zh_CN": ["一。"]},
      "config": %1, "panels": ["loss"] %2})")
      .arg(configJson, extra)
      .toUtf8();
}

QString parseError(const QByteArray& json) {
  QString error;
  EXPECT_FALSE(Lesson::fromJson(json, QStringLiteral("bad.json"), &error).has_value());
  return error;
}

TEST(LessonLibrary, EveryShippedLessonParses) {
  LessonLibrary library;
  const bool ok = library.load();
  EXPECT_TRUE(ok) << library.errors().join(QLatin1Char('\n')).toStdString();
  EXPECT_TRUE(library.errors().isEmpty()) << library.errors().join(QLatin1Char('\n')).toStdString();
  EXPECT_EQ(library.size(), 12);
}

TEST(LessonLibrary, OneLessonPerChapterSectionInOrder) {
  // The chapter has ten sections, one lesson each, the FP8 lesson follows as section 11 and the precision
  // plan lesson as section 12; the library lists them in chapter order.
  const LessonLibrary library = shipped();
  ASSERT_EQ(library.size(), 12);
  for (int i = 0; i < library.size(); ++i)
    EXPECT_EQ(library.at(i).section, i + 1) << library.at(i).id.toStdString();
}

TEST(LessonLibrary, EveryLessonIsCompleteInEnglishAndChinese) {
  const LessonLibrary library = shipped();
  for (const Lesson& lesson : library.lessons()) {
    SCOPED_TRACE(lesson.id.toStdString());
    EXPECT_FALSE(lesson.title.en.isEmpty());
    EXPECT_TRUE(containsHan(lesson.title.zhCN));
    EXPECT_GE(lesson.narrative.en.split(QStringLiteral("\n\n")).size(), 2);
    EXPECT_TRUE(containsHan(lesson.narrative.zhCN));
    EXPECT_FALSE(lesson.callouts.isEmpty()) << "a lesson says what to look for";
    for (const Lesson::Callout& callout : lesson.callouts) {
      EXPECT_FALSE(callout.text.en.isEmpty());
      EXPECT_TRUE(containsHan(callout.text.zhCN)) << callout.text.en.toStdString();
    }
    for (const Lesson::Variant& variant : lesson.variants) EXPECT_TRUE(containsHan(variant.label.zhCN));
  }
}

TEST(LessonLibrary, TheAppOpensWithTheFirstSection) {
  const LessonLibrary library = shipped();
  EXPECT_EQ(LessonController::defaultLessonId(library), QStringLiteral("formats"));
}

TEST(LessonLibrary, FormatAndMemoryLessonsTrainNothing) {
  const LessonLibrary library = shipped();
  for (const char* id : {"formats", "memory"}) {
    ASSERT_NE(library.find(QLatin1String(id)), nullptr) << id;
    EXPECT_FALSE(library.find(QLatin1String(id))->config.has_value()) << id;
  }
}

TEST(LessonLibrary, HalfVersusAutocastComparesPureFp16WithAmpUnderSmallSgdSteps) {
  // The stall comes from update rounding: SGD without momentum, lr small enough that lr*g is below half
  // an FP16 ulp of typical weights. The initial gain makes those weights larger (|w| ~ 0.05 * 8 = 0.4 has
  // ulp 2^-12, about 2.4e-4, IEEE 754 binary16) and the logits large, so the FP32 loss keeps falling
  // while fp16-pure's lags: PyTorch's default init alone leaves the curves a few percent apart.
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("half-vs-autocast"));
  ASSERT_NE(lesson, nullptr);
  ASSERT_TRUE(lesson->config);
  const RunConfig& c = *lesson->config;
  EXPECT_EQ(c.optimizer, OptimizerKind::SGD);
  EXPECT_EQ(c.momentum, 0.0);
  EXPECT_LE(c.lr, 1e-3);
  EXPECT_GT(c.initGain, 1.0);
  const auto has = [&](PrecisionMode m) {
    return std::find(c.modes.begin(), c.modes.end(), m) != c.modes.end();
  };
  EXPECT_TRUE(has(PrecisionMode::FP16Pure));
  EXPECT_TRUE(has(PrecisionMode::FP16AmpScaled));
  EXPECT_TRUE(has(PrecisionMode::BF16Amp));
}

TEST(LessonLibrary, UnderflowLessonComparesTheFourModesOfTheChapter) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("underflow"));
  ASSERT_NE(lesson, nullptr);
  ASSERT_TRUE(lesson->config);
  const std::vector<PrecisionMode> expected = {PrecisionMode::FP32, PrecisionMode::FP16Amp,
                                               PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
  EXPECT_EQ(lesson->config->modes, expected);
  EXPECT_EQ(lesson->config->model, ModelKind::DeepMLP);
  // The deep-MLP preset's small loss weight is what pushes FP16 gradients below 2^-24.
  EXPECT_EQ(lesson->config->lossWeight, presetFor(ModelKind::DeepMLP).lossWeight);
}

TEST(LessonLibrary, LossScalingLessonShortensTheGrowthIntervalAndOffersInjectOverflow) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("loss-scaling"));
  ASSERT_NE(lesson, nullptr);
  ASSERT_TRUE(lesson->config);
  // PyTorch's defaults (init 2^16, growth 2, backoff 0.5) with the interval cut from 2000 to 10, so the
  // first overflow and backoff come within seconds of pressing Run (tests/bench/lesson_claims.cpp).
  EXPECT_EQ(lesson->config->scaler.initScale, 65536.0);
  EXPECT_EQ(lesson->config->scaler.growthFactor, 2.0);
  EXPECT_EQ(lesson->config->scaler.backoffFactor, 0.5);
  EXPECT_EQ(lesson->config->scaler.growthInterval, 10);
  EXPECT_TRUE(lesson->hasControl(QStringLiteral("inject-overflow")));
}

TEST(LessonLibrary, ClippingLessonHasTheChaptersOrderAndTheWrongOneAsVariants) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("clipping"));
  ASSERT_NE(lesson, nullptr);
  ASSERT_EQ(lesson->variants.size(), 2);
  EXPECT_EQ(lesson->configFor(0)->clipOrder, ClipOrder::AfterUnscale);
  EXPECT_EQ(lesson->configFor(1)->clipOrder, ClipOrder::BeforeUnscale);
  // Everything else is the same run.
  EXPECT_EQ(lesson->configFor(0)->lr, lesson->configFor(1)->lr);
  EXPECT_EQ(lesson->configFor(0)->clipMaxNorm, 1.0);
  EXPECT_EQ(lesson->configFor(1)->clipMaxNorm, 1.0);
}

TEST(LessonLibrary, MeasuringLessonBringsTheStepTimePlotForward) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("measuring"));
  ASSERT_NE(lesson, nullptr);
  EXPECT_EQ(lesson->panels.front(), QStringLiteral("step-time"));
  // The chapter's method needs at least 5 warm-up + 20 timed steps.
  ASSERT_TRUE(lesson->config);
  EXPECT_GE(lesson->config->steps, 25);
}

const Lesson::Variant* variantOf(const Lesson& lesson, const QString& id) {
  for (const Lesson::Variant& v : lesson.variants)
    if (v.id == id) return &v;
  return nullptr;
}

// The precision plan lesson (section 12): every variant trains FP32, the uniform mode and the plan lane side
// by side, each with the plan its label names; the FP8 variants carry the FP8 lesson's outlier feature.
TEST(LessonLibrary, PrecisionPlanLessonTrainsThePlansItsVariantsName) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("precision-plan"));
  ASSERT_NE(lesson, nullptr) << library.errors().join(QLatin1Char('\n')).toStdString();
  EXPECT_EQ(lesson->section, 12);
  EXPECT_EQ(lesson->panels.front(), QStringLiteral("loss"));
  ASSERT_TRUE(lesson->question.has_value());
  EXPECT_FALSE(lesson->question->en.isEmpty());

  const std::vector<PrecisionMode> fp8Lanes{PrecisionMode::FP32, PrecisionMode::Fp8Current, PrecisionMode::Plan};
  const std::vector<std::pair<QString, std::string>> fp8Plans{
      {QStringLiteral("proved"), "fc1=fp32"},
      {QStringLiteral("advised"), "fc1=bf16-amp,fc5=bf16-amp"},
      {QStringLiteral("fc5-only"), "fc5=fp32"}};
  for (const auto& [id, layers] : fp8Plans) {
    SCOPED_TRACE(id.toStdString());
    const Lesson::Variant* v = variantOf(*lesson, id);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->config.model, ModelKind::DeepMLP);
    EXPECT_EQ(v->config.modes, fp8Lanes);
    EXPECT_EQ(v->config.lossWeight, 0.001);
    EXPECT_EQ(v->config.fp8.outlierFactor, 1e6);
    EXPECT_TRUE(v->config.fp8.scaling);
    EXPECT_EQ(v->config.plan.defaultMode, PrecisionMode::Fp8Current);
    EXPECT_EQ(planLayersText(v->config.plan.layers), layers);
  }
  // The first variant is the lesson's own config: the plan `ampscope-cli plan` proves.
  EXPECT_EQ(lesson->variants.front().id, QStringLiteral("proved"));

  // FP16 autocast without a scaler on the deep-mlp preset's small loss weight, no outlier: every layer
  // kept higher, in BF16 autocast as the advice keeps them.
  const Lesson::Variant* fp16 = variantOf(*lesson, QStringLiteral("fp16-no-scaler"));
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->config.modes,
            (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::Plan}));
  EXPECT_EQ(fp16->config.lossWeight, presetFor(ModelKind::DeepMLP).lossWeight);
  EXPECT_EQ(fp16->config.fp8.outlierFactor, 1.0);
  EXPECT_EQ(fp16->config.plan.defaultMode, PrecisionMode::FP16Amp);
  ASSERT_EQ(fp16->config.plan.layers.size(), planLayerNames(ModelKind::DeepMLP).size());
  for (const std::string& layer : planLayerNames(ModelKind::DeepMLP))
    EXPECT_EQ(planModeOf(fp16->config.plan, layer), PrecisionMode::BF16Amp) << layer;
}

// The lesson's advice item: Analysis > Precision Advice on the lesson's run (the engine path the panel
// uses), target fp8-current, keeps fc1 and fc5 in bf16-amp and lowers fc2 to fc4; on the FP16 variant,
// target fp16-amp, it keeps all five. The claims cannot read the advice, so this is checked here.
std::vector<std::pair<std::string, std::string>> advisedPlan(const RunConfig& config, const std::string& target) {
  Comparison comparison(config);
  std::vector<StepRecord> records;
  while (comparison.stepsDone() < config.steps && !comparison.allDiverged()) records.push_back(comparison.step());
  AdviceRequest request;
  request.target = target;
  AdviceInputError error;
  const std::optional<PrecisionAdvice> advice =
      adviseEngineRecords(config, "precision-plan", records, std::string(), request, &error);
  EXPECT_TRUE(advice.has_value()) << error.message;
  std::vector<std::pair<std::string, std::string>> plan;
  if (advice)
    for (const LayerPlan& layer : advice->plan) plan.emplace_back(layer.layer, layer.mode);
  return plan;
}

TEST(LessonLibrary, PrecisionPlanLessonsAdviceKeepsTheLayersItsItemNames) {
  const LessonLibrary library = shipped();
  const Lesson* lesson = library.find(QStringLiteral("precision-plan"));
  ASSERT_NE(lesson, nullptr);
  const Lesson::Variant* proved = variantOf(*lesson, QStringLiteral("proved"));
  ASSERT_NE(proved, nullptr);
  using Plan = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(advisedPlan(proved->config, "fp8-current"),
            (Plan{{"fc1", "bf16-amp"}, {"fc2", "fp8-current"}, {"fc3", "fp8-current"}, {"fc4", "fp8-current"},
                  {"fc5", "bf16-amp"}}));
  const Lesson::Variant* fp16 = variantOf(*lesson, QStringLiteral("fp16-no-scaler"));
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(advisedPlan(fp16->config, "fp16-amp"),
            (Plan{{"fc1", "bf16-amp"}, {"fc2", "bf16-amp"}, {"fc3", "bf16-amp"}, {"fc4", "bf16-amp"},
                  {"fc5", "bf16-amp"}}));
}

TEST(LessonLibrary, FeatureAnchorsSitAtTheFormatsBinaryExponents) {
  // IEEE-754 binary16: smallest subnormal 2^-24, smallest normal 2^-14, max 65504 = 1.999*2^15.
  EXPECT_EQ(Lesson::featureX(QStringLiteral("fp16-min-subnormal")), -24.0);
  EXPECT_EQ(Lesson::featureX(QStringLiteral("fp16-min-normal")), -14.0);
  EXPECT_EQ(Lesson::featureX(QStringLiteral("fp16-max")), 15.0);
  // bfloat16 shares float32's exponent: smallest normal 2^-126, smallest subnormal 2^-133.
  EXPECT_EQ(Lesson::featureX(QStringLiteral("bf16-min-normal")), -126.0);
  EXPECT_EQ(Lesson::featureX(QStringLiteral("bf16-min-subnormal")), -133.0);
  EXPECT_FALSE(Lesson::featureX(QStringLiteral("fp8-max")).has_value());
}

TEST(LessonParser, AMinimalLessonStartsFromTheModelPreset) {
  QString error;
  const auto lesson = Lesson::fromJson(lessonJson(), QStringLiteral("probe.json"), &error);
  ASSERT_TRUE(lesson) << error.toStdString();
  RunConfig expected = presetFor(ModelKind::TinyMLP);
  EXPECT_EQ(lesson->config->lr, expected.lr);
  EXPECT_EQ(lesson->config->batchSize, expected.batchSize);
  EXPECT_EQ(lesson->config->modes, std::vector<PrecisionMode>{PrecisionMode::FP32});
}

TEST(LessonParser, AWrongTypeNamesTheFileAndTheField) {
  const QString error =
      parseError(lessonJson(QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"], "lr": "fast"})")));
  EXPECT_TRUE(error.startsWith(QStringLiteral("bad.json: "))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("'config.lr'"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("expected a number"))) << error.toStdString();
}

TEST(LessonParser, AnUnknownKeyIsAnErrorNotSilentlyIgnored) {
  const QString error =
      parseError(lessonJson(QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"], "lrr": 0.1})")));
  EXPECT_TRUE(error.contains(QStringLiteral("'config.lrr'"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("unknown field"))) << error.toStdString();
}

TEST(LessonParser, AnUnknownModeListsTheKnownOnes) {
  const QString error =
      parseError(lessonJson(QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32", "fp8"]})")));
  EXPECT_TRUE(error.contains(QStringLiteral("'config.modes[1]'"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("fp16-amp-scaled"))) << error.toStdString();
}

TEST(LessonParser, AConfigTheEngineRejectsIsReportedWithTheEnginesReason) {
  const QString error =
      parseError(lessonJson(QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"], "lr": -1})")));
  EXPECT_TRUE(error.contains(QStringLiteral("'config.lr'"))) << error.toStdString();
  // The schema's bound for lr (config_schema.cpp), checked as the key is read.
  EXPECT_TRUE(error.contains(QStringLiteral("must be > 0 (got -1)"))) << error.toStdString();
}

TEST(LessonParser, ABadMaxNormNamesClipMaxNorm) {
  // This failed before the schema: validate() called the field "clip" and the lesson reader mapped that
  // to "clip.order"; with clipping off, max-norm was not checked at all and the lesson loaded.
  for (const char* order : {"after-unscale", "off"}) {
    const QString error = parseError(lessonJson(
        QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"], "clip": {"order": "%1", "max-norm": -1}})")
            .arg(QLatin1String(order))));
    EXPECT_TRUE(error.contains(QStringLiteral("'config.clip.max-norm'"))) << order << ": " << error.toStdString();
    EXPECT_TRUE(error.contains(QStringLiteral("must be > 0 (got -1)"))) << error.toStdString();
  }
}

TEST(LessonParser, VariantKeysAreNamedInFull) {
  const QString error = parseError(lessonJson(
      QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})"),
      QStringLiteral(R"(, "variants": [{"id": "a", "label": {"en": "A", "zh_CN": "甲"},
                          "config": {"scaler": {"growth-interval": 0}}}])")));
  EXPECT_TRUE(error.contains(QStringLiteral("'variants[0].config.scaler.growth-interval'"))) << error.toStdString();
  const QString unknown = parseError(lessonJson(
      QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})"),
      QStringLiteral(R"(, "variants": [{"id": "a", "label": {"en": "A", "zh_CN": "甲"},
                          "config": {"scaler": {"growth_factor": 2}}}])")));
  EXPECT_TRUE(unknown.contains(QStringLiteral("'variants[0].config.scaler.growth_factor'"))) << unknown.toStdString();
  EXPECT_TRUE(unknown.contains(QStringLiteral("unknown field"))) << unknown.toStdString();
}

TEST(LessonParser, AMissingTranslationIsAnError) {
  QByteArray json = lessonJson();
  json.replace(R"("title": {"en": "Probe", "zh_CN": "探针"})", R"("title": {"en": "Probe"})");
  const QString error = parseError(json);
  EXPECT_TRUE(error.contains(QStringLiteral("'title.zh_CN'"))) << error.toStdString();
}

TEST(LessonParser, ACalloutMustPointAtOneOfTheLessonsPanels) {
  const QString error = parseError(
      lessonJson(QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})"),
                 QStringLiteral(R"(, "callouts": [{"panel": "scale", "text": {"en": "x", "zh_CN": "x"}}])")));
  EXPECT_TRUE(error.contains(QStringLiteral("'callouts[0].panel'"))) << error.toStdString();
}

TEST(LessonParser, AnUnknownFeatureAnchorIsAnError) {
  const QString error = parseError(lessonJson(
      QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})"),
      QStringLiteral(
          R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"}, "anchor": {"feature": "nowhere"}}])")));
  EXPECT_TRUE(error.contains(QStringLiteral("'callouts[0].anchor.feature'"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("fp16-min-subnormal"))) << error.toStdString();
}

// Claims: read by the engine's claim parser, every error naming the lesson file and the field in full.
TEST(LessonParser, AClaimIsReadAndItsBadFieldsAreNamed) {
  const QString config = QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32", "fp16-pure"]})");
  const auto callout = [](const QString& claim) {
    return QStringLiteral(R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"}, "claim": %1}])")
        .arg(claim);
  };
  QString error;
  const auto lesson = Lesson::fromJson(
      lessonJson(config, callout(QStringLiteral(
                             R"({"measure": "loss-gap", "mode": "fp16-pure", "over": "fp32", "at-least": 0.2})"))),
      QStringLiteral("probe.json"), &error);
  ASSERT_TRUE(lesson) << error.toStdString();
  ASSERT_TRUE(lesson->callouts[0].claim);
  EXPECT_EQ(lesson->callouts[0].claim->measure, ClaimMeasure::LossGap);
  EXPECT_TRUE(lesson->callouts[0].claimAppliesTo(QString()));

  const QString bound = parseError(lessonJson(
      config, callout(QStringLiteral(R"({"measure": "loss-gap", "mode": "fp16-pure", "over": "fp32", "at-least": "x"})"))));
  EXPECT_TRUE(bound.startsWith(QStringLiteral("bad.json: "))) << bound.toStdString();
  EXPECT_TRUE(bound.contains(QStringLiteral("'callouts[0].claim.at-least'"))) << bound.toStdString();
  EXPECT_TRUE(bound.contains(QStringLiteral("finite number"))) << bound.toStdString();
  const QString nested = parseError(lessonJson(
      config, callout(QStringLiteral(R"({"all-of": [{"measure": "steps", "mode": "every", "at-least": 1},
                                                   {"measure": "steps", "mode": "every", "at-leest": 1}]})"))));
  EXPECT_TRUE(nested.contains(QStringLiteral("'callouts[0].claim.all-of[1].at-leest'"))) << nested.toStdString();
  // The run must train every mode a claim names.
  const QString untrained = parseError(lessonJson(
      config, callout(QStringLiteral(R"({"measure": "flushed-to-zero", "mode": "bf16-amp", "at-most": 0})"))));
  EXPECT_TRUE(untrained.contains(QStringLiteral("'callouts[0].claim'"))) << untrained.toStdString();
  EXPECT_TRUE(untrained.contains(QStringLiteral("bf16-amp"))) << untrained.toStdString();
  // A lesson without a run has no claims.
  const QString none = parseError(
      lessonJson(QStringLiteral(R"("none")"), callout(QStringLiteral(R"({"measure": "steps", "mode": "every", "at-least": 1})"))));
  EXPECT_TRUE(none.contains(QStringLiteral("'callouts[0].claim'"))) << none.toStdString();
}

// A claim applies to its own variants, else to its callout's; a variant's run must train its modes.
TEST(LessonParser, AClaimAppliesToItsVariantsAndChecksTheirModes) {
  const QString config = QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})");
  const QString variants = QStringLiteral(R"(, "variants": [{"id": "a", "label": {"en": "A", "zh_CN": "甲"}},
      {"id": "b", "label": {"en": "B", "zh_CN": "乙"}, "config": {"modes": ["fp32", "bf16-amp"]}}])");
  const auto callout = [](const QString& keys) {
    return QStringLiteral(R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"} %1}])").arg(keys);
  };
  const QString bf16 = QStringLiteral(R"("measure": "flushed-to-zero", "mode": "bf16-amp", "at-most": 0)");
  QString error;
  const auto own = Lesson::fromJson(
      lessonJson(config, variants + callout(QStringLiteral(R"(, "claim": {%1, "variants": ["b"]})").arg(bf16))),
      QStringLiteral("probe.json"), &error);
  ASSERT_TRUE(own) << error.toStdString();
  EXPECT_FALSE(own->callouts[0].claimAppliesTo(QStringLiteral("a")));
  EXPECT_TRUE(own->callouts[0].claimAppliesTo(QStringLiteral("b")));
  const auto inherited = Lesson::fromJson(
      lessonJson(config, variants + callout(QStringLiteral(R"(, "variants": ["b"], "claim": {%1})").arg(bf16))),
      QStringLiteral("probe.json"), &error);
  ASSERT_TRUE(inherited) << error.toStdString();
  EXPECT_FALSE(inherited->callouts[0].claimAppliesTo(QStringLiteral("a")));
  // Applying to both, it names a mode variant a does not train.
  const QString both = parseError(lessonJson(config, variants + callout(QStringLiteral(R"(, "claim": {%1})").arg(bf16))));
  EXPECT_TRUE(both.contains(QStringLiteral("variant 'a'"))) << both.toStdString();
  const QString unknown = parseError(
      lessonJson(config, variants + callout(QStringLiteral(R"(, "claim": {%1, "variants": ["c"]})").arg(bf16))));
  EXPECT_TRUE(unknown.contains(QStringLiteral("'callouts[0].claim.variants'"))) << unknown.toStdString();
}

TEST(LessonParser, AQuestionNeedsAClaimToAnswerIt) {
  const QString question = QStringLiteral(R"(, "question": {"en": "Which?", "zh_CN": "哪个？"})");
  const QString config = QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})");
  const QString error = parseError(lessonJson(
      config, question + QStringLiteral(R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"}}])")));
  EXPECT_TRUE(error.contains(QStringLiteral("'question'"))) << error.toStdString();
  QString parseProblem;
  const auto lesson = Lesson::fromJson(
      lessonJson(config, question + QStringLiteral(R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"},
                                  "claim": {"measure": "steps", "mode": "fp32", "at-least": 1}}])")),
      QStringLiteral("probe.json"), &parseProblem);
  ASSERT_TRUE(lesson) << parseProblem.toStdString();
  ASSERT_TRUE(lesson->question);
  EXPECT_EQ(lesson->question->zhCN, QStringLiteral("哪个？"));
}

// Every item of a shipped lesson that trains carries a claim, except those about number formats, the
// op-dtype table, the memory ledger's categories, a button to press or a clock (docs/lesson-claims.md).
TEST(LessonLibrary, EveryLessonThatTrainsChecksItsClaims) {
  const LessonLibrary library = shipped();
  for (const Lesson& lesson : library.lessons()) {
    SCOPED_TRACE(lesson.id.toStdString());
    const bool anyClaim = std::any_of(lesson.callouts.begin(), lesson.callouts.end(),
                                      [](const Lesson::Callout& c) { return c.claim.has_value(); });
    EXPECT_EQ(anyClaim, lesson.config.has_value());
    // Each variant has a claim to check.
    const int variants = std::max<int>(1, static_cast<int>(lesson.variants.size()));
    for (int v = 0; v < variants && lesson.config; ++v) {
      const QString id = lesson.variantId(v);
      EXPECT_TRUE(std::any_of(lesson.callouts.begin(), lesson.callouts.end(),
                              [&id](const Lesson::Callout& c) { return c.claimAppliesTo(id); }))
          << id.toStdString();
    }
  }
}

// A callout's anchor can hold for one variant's run only; the ids it names must be the lesson's.
TEST(LessonParser, ACalloutsVariantsMustBeTheLessonsOwn) {
  const QString variants = QStringLiteral(R"(, "variants": [{"id": "a", "label": {"en": "A", "zh_CN": "甲"}, "config": {}},
                                                            {"id": "b", "label": {"en": "B", "zh_CN": "乙"}, "config": {}}])");
  const QString config = QStringLiteral(R"({"model": "tiny-mlp", "modes": ["fp32"]})");
  const auto callout = [](const QString& list) {
    return QStringLiteral(R"(, "callouts": [{"panel": "loss", "text": {"en": "x", "zh_CN": "x"},
                                             "anchor": {"x": 1, "y": 2}, "variants": %1}])").arg(list);
  };
  QString error;
  const auto lesson = Lesson::fromJson(lessonJson(config, variants + callout(QStringLiteral(R"(["b"])"))),
                                       QStringLiteral("probe.json"), &error);
  ASSERT_TRUE(lesson) << error.toStdString();
  ASSERT_EQ(lesson->callouts.size(), 1);
  EXPECT_FALSE(lesson->callouts[0].drawnFor(QStringLiteral("a")));
  EXPECT_TRUE(lesson->callouts[0].drawnFor(QStringLiteral("b")));

  const QString unknown = parseError(lessonJson(config, variants + callout(QStringLiteral(R"(["c"])"))));
  EXPECT_TRUE(unknown.contains(QStringLiteral("'callouts[0].variants'"))) << unknown.toStdString();
  EXPECT_TRUE(unknown.contains(QStringLiteral("a, b"))) << unknown.toStdString();
  const QString empty = parseError(lessonJson(config, variants + callout(QStringLiteral("[]"))));
  EXPECT_TRUE(empty.contains(QStringLiteral("'callouts[0].variants'"))) << empty.toStdString();
  const QString none = parseError(lessonJson(config, callout(QStringLiteral(R"(["a"])"))));
  EXPECT_TRUE(none.contains(QStringLiteral("has no variants"))) << none.toStdString();
}

TEST(LessonParser, InjectOverflowNeedsATrainingConfig) {
  const QString error = parseError(
      lessonJson(QStringLiteral(R"("none")"), QStringLiteral(R"(, "controls": ["inject-overflow"])")));
  EXPECT_TRUE(error.contains(QStringLiteral("'controls'"))) << error.toStdString();
}

TEST(LessonParser, BrokenJsonGivesTheByteOffset) {
  const QString error = parseError(QByteArray("{\"id\": \"x\",, }"));
  EXPECT_TRUE(error.contains(QStringLiteral("not valid JSON at byte"))) << error.toStdString();
}

TEST(LessonLibrary, ADuplicateIdIsRejectedNamingBothFiles) {
  LessonLibrary library;
  ASSERT_TRUE(library.addFromJson(lessonJson(), QStringLiteral("a.json")));
  EXPECT_FALSE(library.addFromJson(lessonJson(), QStringLiteral("b.json")));
  ASSERT_EQ(library.errors().size(), 1);
  EXPECT_TRUE(library.errors().front().contains(QStringLiteral("b.json")));
  EXPECT_TRUE(library.errors().front().contains(QStringLiteral("a.json")));
  EXPECT_EQ(library.size(), 1);
}

TEST(LessonCommandLine, AnUnknownLessonIsAUsageErrorThatListsTheLessons) {
  const AppOptions options =
      parseAppOptions({QStringLiteral("ampscope"), QStringLiteral("--lesson"), QStringLiteral("nope")});
  EXPECT_EQ(options.action, AppOptions::Action::Error);
  EXPECT_TRUE(options.message.contains(QStringLiteral("nope")));
  for (const QString& id : shipped().ids()) EXPECT_TRUE(options.message.contains(id)) << id.toStdString();
}

TEST(LessonCommandLine, KnownLessonLanguageAndThemeAreAccepted) {
  const AppOptions options = parseAppOptions({QStringLiteral("ampscope"), QStringLiteral("--lesson=clipping"),
                                              QStringLiteral("--lang=zh_CN"), QStringLiteral("--theme=dark"),
                                              QStringLiteral("--presenter")});
  ASSERT_EQ(options.action, AppOptions::Action::Run) << options.message.toStdString();
  EXPECT_EQ(options.lesson, QStringLiteral("clipping"));
  EXPECT_EQ(options.language, QStringLiteral("zh_CN"));
  EXPECT_EQ(options.theme, QStringLiteral("dark"));
  EXPECT_TRUE(options.presenter);
}

TEST(LessonCommandLine, AnUnknownLanguageOrThemeIsAUsageError) {
  EXPECT_EQ(parseAppOptions({QStringLiteral("ampscope"), QStringLiteral("--lang=fr")}).action,
            AppOptions::Action::Error);
  EXPECT_EQ(parseAppOptions({QStringLiteral("ampscope"), QStringLiteral("--theme=solarized")}).action,
            AppOptions::Action::Error);
}

}  // namespace
}  // namespace ampscope::ui
