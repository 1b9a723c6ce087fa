// The run panel's Precision plan box: plan.default and plan.layers round-trip through the form exactly
// (the text's order, layers the model lacks), the per-layer combos and the text edit each other, a plan
// the model cannot train shows validate()'s error under the field, the fields are greyed out (values kept)
// while the plan mode is unchecked, and Load Plan… reads an `advise --plan` file for the model shown.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTemporaryDir>
#include <fstream>
#include <string>
#include <vector>

#include "ampscope/engine/precision_plan.h"
#include "ampscope/engine/run_config.h"
#include "ui/training/mode_palette.h"
#include "ui/training/run_panel.h"

namespace ampscope::ui {
namespace {

using Layers = std::vector<std::pair<std::string, PrecisionMode>>;

RunConfig deepPlanConfig() {
  RunConfig config = presetFor(ModelKind::DeepMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::Plan};
  config.plan.defaultMode = PrecisionMode::FP16Amp;
  config.plan.layers = {{"fc5", PrecisionMode::BF16Amp}, {"fc1", PrecisionMode::FP32}};  // not the model's order
  return config;
}

QListWidgetItem* modeItem(const RunPanel& panel, PrecisionMode mode) {
  for (int i = 0; i < panel.modeList()->count(); ++i)
    if (static_cast<PrecisionMode>(panel.modeList()->item(i)->data(Qt::UserRole).toInt()) == mode)
      return panel.modeList()->item(i);
  return nullptr;
}

// Messages the panel would show, recorded.
struct Messages {
  QStringList errors;
  QStringList notes;
  void install(RunPanel& panel) {
    panel.setMessageSink([this](const QString&, const QString& text, bool error) { (error ? errors : notes) << text; });
  }
};

PrecisionPlan planWith(const std::string& target, const std::vector<LayerPlan>& layers) {
  PrecisionPlan plan;
  plan.source = RunIdentity{"run.jsonl", "engine-stream", "", "", "fp32", 1, 20, 10};
  plan.target = target;
  plan.layers = layers;
  return plan;
}

TEST(RunPanelPlan, APlanRoundTripsThroughTheFormExactly) {
  RunPanel panel;
  const RunConfig config = deepPlanConfig();
  ASSERT_TRUE(validate(config).empty());
  panel.setConfig(config);
  EXPECT_TRUE(panel.isValid()) << panel.errorFields().join(QLatin1Char(',')).toStdString();
  EXPECT_EQ(panel.config().plan.defaultMode, PrecisionMode::FP16Amp);
  EXPECT_EQ(panel.config().plan.layers, config.plan.layers);  // the order kept
  EXPECT_EQ(panel.config().modes, config.modes);
  // One combo per GEMM layer of the model, showing the plan.
  ASSERT_EQ(panel.planLayerRows(), (QStringList{"fc1", "fc2", "fc3", "fc4", "fc5"}));
  EXPECT_EQ(panel.planLayerBox("fc1")->currentData().toString(), QStringLiteral("fp32"));
  EXPECT_EQ(panel.planLayerBox("fc5")->currentData().toString(), QStringLiteral("bf16-amp"));
  EXPECT_EQ(panel.planLayerBox("fc2")->currentIndex(), 0);  // (default)
  EXPECT_EQ(panel.field("plan.layers")->text(), QStringLiteral("fc5=bf16-amp,fc1=fp32"));
  EXPECT_EQ(panel.choiceField("plan.default")->currentData().toString(), QStringLiteral("fp16-amp"));
  EXPECT_EQ(panel.choiceField("plan.default")->currentText(), ModePalette::label(PrecisionMode::FP16Amp));
  EXPECT_TRUE(panel.planFields()->isEnabled());

  // A combo edits the text (a new layer goes last, the others keep their place), and back.
  QComboBox* fc3 = panel.planLayerBox("fc3");
  fc3->setCurrentIndex(fc3->findData(QStringLiteral("fp8-current")));
  EXPECT_EQ(panel.config().plan.layers,
            (Layers{{"fc5", PrecisionMode::BF16Amp}, {"fc1", PrecisionMode::FP32}, {"fc3", PrecisionMode::Fp8Current}}));
  QComboBox* fc5 = panel.planLayerBox("fc5");
  fc5->setCurrentIndex(0);
  EXPECT_EQ(panel.field("plan.layers")->text(), QStringLiteral("fc1=fp32,fc3=fp8-current"));
  panel.field("plan.layers")->setText(QStringLiteral("fc2 = bf16-amp"));
  EXPECT_TRUE(panel.isValid());
  EXPECT_EQ(panel.config().plan.layers, (Layers{{"fc2", PrecisionMode::BF16Amp}}));
  EXPECT_EQ(panel.planLayerBox("fc2")->currentData().toString(), QStringLiteral("bf16-amp"));
  EXPECT_EQ(panel.planLayerBox("fc1")->currentIndex(), 0);
  panel.choiceField("plan.default")->setCurrentIndex(
      panel.choiceField("plan.default")->findData(QStringLiteral("fp8-current")));
  EXPECT_EQ(panel.config().plan.defaultMode, PrecisionMode::Fp8Current);

  // The plan mode unchecked: the fields are greyed out, the plan kept (and back when it is checked again).
  const PlanConfig kept = panel.config().plan;
  modeItem(panel, PrecisionMode::Plan)->setCheckState(Qt::Unchecked);
  EXPECT_FALSE(panel.planFields()->isEnabled());
  EXPECT_TRUE(panel.loadPlanButton()->isEnabled());  // loading a plan checks the mode
  EXPECT_EQ(panel.config().plan.layers, kept.layers);
  EXPECT_EQ(panel.config().plan.defaultMode, kept.defaultMode);
  modeItem(panel, PrecisionMode::Plan)->setCheckState(Qt::Checked);
  EXPECT_TRUE(panel.planFields()->isEnabled());
  // A run in progress greys out everything, the plan fields included.
  panel.setEditable(false);
  EXPECT_FALSE(panel.planFields()->isEnabled());
  panel.setEditable(true);
  EXPECT_TRUE(panel.planFields()->isEnabled());

  // Another model's preset: its own layers, no plan.
  panel.setConfig(presetFor(ModelKind::TinyTransformer));
  QStringList transformer;
  for (const std::string& name : planLayerNames(ModelKind::TinyTransformer)) transformer << QString::fromStdString(name);
  EXPECT_EQ(panel.planLayerRows(), transformer);
  EXPECT_TRUE(panel.config().plan.layers.empty());
  EXPECT_TRUE(panel.isValid());
}

// A layer the model does not have cannot be shown by a combo: the text keeps it, validate() names it
// under the field, and the form still gives back exactly what it was given. Text that does not parse
// says where.
TEST(RunPanelPlan, ALayerTheModelLacksIsShownAsValidatesError) {
  RunPanel panel;
  RunConfig config = deepPlanConfig();
  config.plan.layers = {{"fc1", PrecisionMode::FP32}, {"head", PrecisionMode::BF16Amp}};
  panel.setConfig(config);
  EXPECT_FALSE(panel.isValid());
  EXPECT_EQ(panel.errorFields(), QStringList{QStringLiteral("plan.layers")});
  EXPECT_EQ(panel.fieldError("plan.layers"),
            QStringLiteral("deep-mlp has no layer 'head' (its layers: fc1, fc2, fc3, fc4, fc5)"));
  EXPECT_EQ(panel.config().plan.layers, config.plan.layers);
  EXPECT_EQ(panel.field("plan.layers")->text(), QStringLiteral("fc1=fp32,head=bf16-amp"));

  panel.field("plan.layers")->setText(QStringLiteral("fc1:fp32"));
  EXPECT_FALSE(panel.isValid());
  EXPECT_TRUE(panel.fieldError("plan.layers").contains(QStringLiteral("expected LAYER=MODE")))
      << panel.fieldError("plan.layers").toStdString();
  // A combo replaces text that does not parse by what the combos show.
  QComboBox* fc4 = panel.planLayerBox("fc4");
  fc4->setCurrentIndex(fc4->findData(QStringLiteral("bf16-amp")));
  EXPECT_TRUE(panel.isValid()) << panel.fieldError("plan.layers").toStdString();
  EXPECT_EQ(panel.config().plan.layers, (Layers{{"fc1", PrecisionMode::FP32}, {"fc4", PrecisionMode::BF16Amp}}));
  // A pure mode is no plan mode.
  panel.field("plan.layers")->setText(QStringLiteral("fc1=fp16-pure"));
  EXPECT_FALSE(panel.isValid());
  EXPECT_EQ(panel.errorFields(), QStringList{QStringLiteral("plan.layers")});
}

// Load Plan… with a good plan file: the model's layers in their modes, the target as plan.default, the
// plan mode checked; a layer the model lacks is left out and named in a note.
TEST(RunPanelPlan, LoadPlanFillsTheFieldsAndChecksThePlanMode) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("plan.json"));
  ASSERT_TRUE(writePrecisionPlanFile(path.toStdString(),
                                     planWith("fp16-amp", {{"fc1", "fp32", true, "kept"},
                                                           {"fc2", "fp16-amp", false, "holds"},
                                                           {"fc5", "bf16-amp", true, "kept"},
                                                           {"act", "fp32", true, "not a GEMM layer"}})));
  RunPanel panel;
  Messages messages;
  messages.install(panel);
  RunConfig config = presetFor(ModelKind::DeepMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp};
  panel.setConfig(config);
  EXPECT_FALSE(panel.planFields()->isEnabled());
  // Through the button, the file dialog answered by the hook.
  panel.setPlanPathPrompt([path](const QString&) { return path; });
  panel.loadPlanButton()->click();
  EXPECT_TRUE(messages.errors.isEmpty()) << messages.errors.join(QLatin1Char('\n')).toStdString();
  EXPECT_EQ(panel.config().modes,
            (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::Plan}));
  EXPECT_EQ(panel.config().plan.defaultMode, PrecisionMode::FP16Amp);
  EXPECT_EQ(panel.config().plan.layers,
            (Layers{{"fc1", PrecisionMode::FP32}, {"fc2", PrecisionMode::FP16Amp}, {"fc5", PrecisionMode::BF16Amp}}));
  EXPECT_EQ(panel.planLayerBox("fc5")->currentData().toString(), QStringLiteral("bf16-amp"));
  EXPECT_TRUE(panel.planFields()->isEnabled());
  EXPECT_TRUE(panel.isValid()) << panel.errorFields().join(QLatin1Char(',')).toStdString();
  ASSERT_EQ(messages.notes.size(), 1);
  EXPECT_TRUE(messages.notes[0].contains(QStringLiteral("act"))) << messages.notes[0].toStdString();
  // A cancelled dialog changes nothing.
  panel.setPlanPathPrompt([](const QString&) { return QString(); });
  EXPECT_FALSE(panel.loadPlanFile());

  // "auto": the layers not named run as FP32.
  ASSERT_TRUE(writePrecisionPlanFile(path.toStdString(), planWith("auto", {{"fc3", "bf16-amp", false, ""}})));
  ASSERT_TRUE(panel.loadPlanFile(path));
  EXPECT_EQ(panel.config().plan.defaultMode, PrecisionMode::FP32);
  EXPECT_EQ(panel.config().plan.layers, (Layers{{"fc3", PrecisionMode::BF16Amp}}));
}

// A file that is no plan, or a bad one: refused with the file and the field at fault, the form unchanged.
TEST(RunPanelPlan, LoadPlanRefusesABadFileNamingTheField) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("bad-plan.json"));
  std::string text = encodePrecisionPlan(planWith("fp16-amp", {{"fc1", "fp32", true, ""}, {"fc2", "fp16-amp", false, ""}}));
  const auto at = text.rfind("\"fp16-amp\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 10, "\"fp9\"");
  std::ofstream(path.toStdString(), std::ios::binary) << text;

  RunPanel panel;
  Messages messages;
  messages.install(panel);
  const RunConfig config = deepPlanConfig();
  panel.setConfig(config);
  EXPECT_FALSE(panel.loadPlanFile(path));
  ASSERT_EQ(messages.errors.size(), 1);
  EXPECT_TRUE(messages.errors[0].contains(path)) << messages.errors[0].toStdString();
  EXPECT_TRUE(messages.errors[0].contains(QStringLiteral("layers[1].mode"))) << messages.errors[0].toStdString();
  EXPECT_EQ(panel.config().plan.layers, config.plan.layers);
  EXPECT_EQ(panel.config().plan.defaultMode, config.plan.defaultMode);

  EXPECT_FALSE(panel.loadPlanFile(dir.filePath(QStringLiteral("missing.json"))));
  ASSERT_EQ(messages.errors.size(), 2);
  EXPECT_TRUE(messages.errors[1].contains(QStringLiteral("missing.json"))) << messages.errors[1].toStdString();
}

// A probe's plan names the script's modules (net.0, net.2): none is a layer of the engine's model, so
// nothing is loaded and the message lists the model's layers.
TEST(RunPanelPlan, LoadPlanRefusesAProbesPlanNoneOfWhoseLayersTheModelHas) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("probe-plan.json"));
  PrecisionPlan plan = planWith("bf16-amp", {{"net.0", "bf16-amp", false, ""}, {"net.2", "fp32", true, ""}});
  plan.source.kind = "probe-stream";
  ASSERT_TRUE(writePrecisionPlanFile(path.toStdString(), plan));
  RunPanel panel;
  Messages messages;
  messages.install(panel);
  RunConfig config = presetFor(ModelKind::DeepMLP);
  panel.setConfig(config);
  EXPECT_FALSE(panel.loadPlanFile(path));
  ASSERT_EQ(messages.errors.size(), 1);
  EXPECT_TRUE(messages.errors[0].contains(QStringLiteral("none of the plan's layers (net.0, net.2)")))
      << messages.errors[0].toStdString();
  EXPECT_TRUE(messages.errors[0].contains(QStringLiteral("fc1, fc2, fc3, fc4, fc5"))) << messages.errors[0].toStdString();
  EXPECT_EQ(panel.config().modes, config.modes);  // the plan mode stays unchecked
  EXPECT_TRUE(panel.config().plan.layers.empty());
}

}  // namespace
}  // namespace ampscope::ui
