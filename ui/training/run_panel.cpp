#include "ui/training/run_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {

const char* const kInvalidStyle = "QLineEdit { border: 1px solid #c00000; background: #fff0f0; }";

// Numbers are accepted in C notation ("1e-3", "0.5") and in the user's locale ("0,5").
std::optional<double> parseDouble(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  double v = QLocale::c().toDouble(t, &ok);
  if (!ok) v = QLocale().toDouble(t, &ok);
  if (!ok) return std::nullopt;
  return v;
}

std::optional<int64_t> parseInt(const QString& text) {
  bool ok = false;
  const qlonglong v = text.trimmed().toLongLong(&ok);
  if (!ok) return std::nullopt;
  return static_cast<int64_t>(v);
}

QString numberText(double v) { return QString::number(v, 'g', 10); }

}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  outer->addWidget(scroll);
  auto* content = new QWidget(scroll);
  scroll->setWidget(content);
  auto* layout = new QVBoxLayout(content);
  // The scroll area only scrolls vertically: the panel is as wide as its widest row needs.
  layout->setSizeConstraint(QLayout::SetMinAndMaxSize);

  auto* modelBox = new QGroupBox(tr("Model and modes"), content);
  auto* modelForm = new QFormLayout(modelBox);
  model_ = new QComboBox(modelBox);
  model_->addItem(tr("Tiny MLP (the chapter's 128-512-10)"), static_cast<int>(ModelKind::TinyMLP));
  model_->addItem(tr("Deep MLP (FP16 underflow preset)"), static_cast<int>(ModelKind::DeepMLP));
  model_->addItem(tr("Tiny Transformer (character LM)"), static_cast<int>(ModelKind::TinyTransformer));
  model_->setToolTip(tr("Choosing a model loads its preset: the settings that make its lesson visible."));
  modelForm->addRow(tr("Model"), model_);
  modes_ = new QListWidget(modelBox);
  for (PrecisionMode mode : allPrecisionModes()) {
    auto* item = new QListWidgetItem(ModePalette::swatch(mode), ModePalette::label(mode), modes_);
    item->setData(Qt::UserRole, static_cast<int>(mode));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
    item->setToolTip(ModePalette::name(mode));
  }
  modes_->setMaximumHeight(modes_->sizeHintForRow(0) * 6 + 2 * modes_->frameWidth() + 4);
  modelForm->addRow(tr("Compare"), modes_);
  addErrorLabel(QStringLiteral("modes"), modelBox, modelForm, modes_, QString());
  addErrorLabel(QStringLiteral("model"), modelBox, modelForm, model_, QString());
  layout->addWidget(modelBox);

  auto* trainBox = new QGroupBox(tr("Training"), content);
  auto* trainForm = new QFormLayout(trainBox);
  optimizer_ = new QComboBox(trainBox);
  optimizer_->addItem(tr("AdamW"), static_cast<int>(OptimizerKind::AdamW));
  optimizer_->addItem(tr("SGD with momentum"), static_cast<int>(OptimizerKind::SGD));
  trainForm->addRow(tr("Optimizer"), optimizer_);
  addNumberRow(trainForm, QStringLiteral("lr"), tr("Learning rate"), tr("Step size of the optimizer (> 0)."));
  addNumberRow(trainForm, QStringLiteral("momentum"), tr("Momentum"), tr("SGD's momentum, in [0, 1)."));
  addNumberRow(trainForm, QStringLiteral("weight-decay"), tr("Weight decay"), tr("Decoupled weight decay (≥ 0)."));
  addNumberRow(trainForm, QStringLiteral("adam-eps"), tr("AdamW eps"),
               tr("AdamW's eps (> 0). In fp16-pure it is stored in FP16 too: 1e-8 rounds to 0 there and the update "
                  "divides by zero, as with model.half(); 1e-4 trains."));
  addNumberRow(trainForm, QStringLiteral("batch"), tr("Batch size"), tr("Examples per step (1 … 65536)."));
  addNumberRow(trainForm, QStringLiteral("seed"), tr("Seed"),
               tr("Initial weights and batches: the same seed gives the same run."));
  addNumberRow(trainForm, QStringLiteral("steps"), tr("Steps"), tr("The run stops by itself after this many."));
  addNumberRow(trainForm, QStringLiteral("loss-weight"), tr("Loss weight"),
               tr("The loss is multiplied by this before backward, as auxiliary losses are. Small weights push "
                  "FP16 gradients below 2⁻²⁴, where they flush to zero."));
  addNumberRow(trainForm, QStringLiteral("instrument-every"), tr("Instrument every"),
               tr("Histograms and rounding counts every N steps (1 = every step; larger keeps runs fast)."));
  layout->addWidget(trainBox);

  auto* scalerBox = new QGroupBox(tr("GradScaler"), content);
  auto* scalerForm = new QFormLayout(scalerBox);
  addNumberRow(scalerForm, QStringLiteral("init-scale"), tr("Initial scale"), tr("PyTorch's default: 65536 = 2¹⁶."));
  addNumberRow(scalerForm, QStringLiteral("growth-factor"), tr("Growth factor"),
               tr("Scale multiplier after a run of clean steps (> 1; default 2)."));
  addNumberRow(scalerForm, QStringLiteral("backoff-factor"), tr("Backoff factor"),
               tr("Scale multiplier when gradients contain inf/NaN (in (0, 1); default 0.5)."));
  addNumberRow(scalerForm, QStringLiteral("growth-interval"), tr("Growth interval"),
               tr("Clean steps before the scale grows (default 2000)."));
  layout->addWidget(scalerBox);

  auto* clipBox = new QGroupBox(tr("Gradient clipping"), content);
  auto* clipForm = new QFormLayout(clipBox);
  clip_ = new QComboBox(clipBox);
  clip_->addItem(tr("Off"), static_cast<int>(ClipOrder::Off));
  clip_->addItem(tr("After unscale_ (correct)"), static_cast<int>(ClipOrder::AfterUnscale));
  clip_->addItem(tr("Before unscale_ (wrong)"), static_cast<int>(ClipOrder::BeforeUnscale));
  clip_->setItemData(2, tr("Clips the scaled gradients: max_norm then means nothing (the lesson's mistake)."),
                     Qt::ToolTipRole);
  clipForm->addRow(tr("Clip by norm"), clip_);
  addNumberRow(clipForm, QStringLiteral("clip"), tr("Max norm"), tr("clip_grad_norm_'s max_norm (> 0)."));
  layout->addWidget(clipBox);

  generalError_ = new QLabel(content);
  generalError_->setStyleSheet(QStringLiteral("color: #c00000;"));
  generalError_->setWordWrap(true);
  generalError_->hide();
  layout->addWidget(generalError_);
  layout->addStretch(1);

  connect(model_, &QComboBox::currentIndexChanged, this, &RunPanel::onModelChanged);
  connect(optimizer_, &QComboBox::currentIndexChanged, this, &RunPanel::reparse);
  connect(clip_, &QComboBox::currentIndexChanged, this, &RunPanel::reparse);
  connect(modes_, &QListWidget::itemChanged, this, &RunPanel::reparse);
  setConfig(presetFor(ModelKind::TinyMLP));
  // Only vertical scrolling: the dock is at least as wide as the form.
  scroll->setMinimumWidth(content->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4);
}

void RunPanel::addErrorLabel(const QString& name, QWidget* parent, QFormLayout* form, QWidget*, const QString&) {
  auto* error = new QLabel(parent);
  error->setStyleSheet(QStringLiteral("color: #c00000;"));
  error->setWordWrap(true);
  error->hide();
  form->addRow(QString(), error);
  errorLabels_.insert(name, error);
}

void RunPanel::addNumberRow(QFormLayout* form, const QString& name, const QString& label, const QString& tip) {
  auto* edit = new QLineEdit(form->parentWidget());
  edit->setToolTip(tip);
  edit->setProperty("baseToolTip", tip);
  edit->setObjectName(name);
  form->addRow(label, edit);
  edits_.insert(name, edit);
  addErrorLabel(name, form->parentWidget(), form, edit, label);
  connect(edit, &QLineEdit::textChanged, this, &RunPanel::reparse);
}

void RunPanel::setConfig(const RunConfig& config) {
  loading_ = true;
  config_ = config;
  model_->setCurrentIndex(model_->findData(static_cast<int>(config.model)));
  optimizer_->setCurrentIndex(optimizer_->findData(static_cast<int>(config.optimizer)));
  clip_->setCurrentIndex(clip_->findData(static_cast<int>(config.clipOrder)));
  for (int i = 0; i < modes_->count(); ++i) {
    QListWidgetItem* item = modes_->item(i);
    const auto mode = static_cast<PrecisionMode>(item->data(Qt::UserRole).toInt());
    const bool on = std::find(config.modes.begin(), config.modes.end(), mode) != config.modes.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  edits_[QStringLiteral("lr")]->setText(numberText(config.lr));
  edits_[QStringLiteral("momentum")]->setText(numberText(config.momentum));
  edits_[QStringLiteral("weight-decay")]->setText(numberText(config.weightDecay));
  edits_[QStringLiteral("adam-eps")]->setText(numberText(config.adamEps));
  edits_[QStringLiteral("batch")]->setText(QString::number(config.batchSize));
  edits_[QStringLiteral("seed")]->setText(QString::number(config.seed));
  edits_[QStringLiteral("steps")]->setText(QString::number(config.steps));
  edits_[QStringLiteral("loss-weight")]->setText(numberText(config.lossWeight));
  edits_[QStringLiteral("instrument-every")]->setText(QString::number(config.instrumentEvery));
  edits_[QStringLiteral("init-scale")]->setText(numberText(config.scaler.initScale));
  edits_[QStringLiteral("growth-factor")]->setText(numberText(config.scaler.growthFactor));
  edits_[QStringLiteral("backoff-factor")]->setText(numberText(config.scaler.backoffFactor));
  edits_[QStringLiteral("growth-interval")]->setText(QString::number(config.scaler.growthInterval));
  edits_[QStringLiteral("clip")]->setText(numberText(config.clipMaxNorm));
  loading_ = false;
  reparse();
}

void RunPanel::onModelChanged() {
  if (loading_) return;
  setConfig(presetFor(static_cast<ModelKind>(model_->currentData().toInt())));
}

QString RunPanel::fieldError(const QString& name) const {
  QLabel* label = errorLabels_.value(name);
  return label && !label->isHidden() ? label->text() : QString();
}

QStringList RunPanel::errorFields() const {
  QStringList out;
  for (auto it = errorLabels_.begin(); it != errorLabels_.end(); ++it)
    if (!it.value()->isHidden()) out << it.key();
  out.sort();
  return out;
}

void RunPanel::setEditable(bool editable) {
  for (QWidget* w : findChildren<QGroupBox*>()) w->setEnabled(editable);
}

void RunPanel::reparse() {
  if (loading_) return;
  QHash<QString, QString> errors;
  RunConfig c = config_;
  c.model = static_cast<ModelKind>(model_->currentData().toInt());
  c.optimizer = static_cast<OptimizerKind>(optimizer_->currentData().toInt());
  c.clipOrder = static_cast<ClipOrder>(clip_->currentData().toInt());
  // Keep the order the modes were configured in (it is the display order); newly ticked ones go last.
  std::vector<PrecisionMode> checked;
  for (int i = 0; i < modes_->count(); ++i)
    if (modes_->item(i)->checkState() == Qt::Checked)
      checked.push_back(static_cast<PrecisionMode>(modes_->item(i)->data(Qt::UserRole).toInt()));
  c.modes.clear();
  for (PrecisionMode m : config_.modes)
    if (std::find(checked.begin(), checked.end(), m) != checked.end()) c.modes.push_back(m);
  for (PrecisionMode m : checked)
    if (std::find(c.modes.begin(), c.modes.end(), m) == c.modes.end()) c.modes.push_back(m);

  auto readDouble = [&](const char* name, double& into) {
    if (auto v = parseDouble(edits_[QLatin1String(name)]->text()))
      into = *v;
    else
      errors.insert(QLatin1String(name), tr("not a number"));
  };
  auto readInt = [&](const char* name, int64_t& into) {
    if (auto v = parseInt(edits_[QLatin1String(name)]->text()))
      into = *v;
    else
      errors.insert(QLatin1String(name), tr("not a whole number"));
  };
  readDouble("lr", c.lr);
  readDouble("momentum", c.momentum);
  readDouble("weight-decay", c.weightDecay);
  readDouble("adam-eps", c.adamEps);
  readInt("batch", c.batchSize);
  {
    bool ok = false;
    const qulonglong seed = edits_[QStringLiteral("seed")]->text().trimmed().toULongLong(&ok);
    if (ok)
      c.seed = seed;
    else
      errors.insert(QStringLiteral("seed"), tr("not a whole number ≥ 0"));
  }
  readInt("steps", c.steps);
  readDouble("loss-weight", c.lossWeight);
  readInt("instrument-every", c.instrumentEvery);
  readDouble("init-scale", c.scaler.initScale);
  readDouble("growth-factor", c.scaler.growthFactor);
  readDouble("backoff-factor", c.scaler.backoffFactor);
  readInt("growth-interval", c.scaler.growthInterval);
  readDouble("clip", c.clipMaxNorm);

  // The engine's rules, for the fields that parsed.
  for (const ConfigError& e : validate(c)) {
    const QString field = QString::fromStdString(e.field);
    if (errors.contains(field)) continue;
    errors.insert(field, QString::fromStdString(e.message));
  }
  config_ = c;
  showErrors(errors);
  const bool valid = errors.isEmpty();
  const bool changed = valid != valid_;
  valid_ = valid;
  if (changed) emit validityChanged(valid_);
  emit configChanged();
}

void RunPanel::showErrors(const QHash<QString, QString>& errors) {
  QStringList unplaced;
  for (auto it = errors.begin(); it != errors.end(); ++it)
    if (!errorLabels_.contains(it.key())) unplaced << QStringLiteral("%1: %2").arg(it.key(), it.value());
  for (auto it = errorLabels_.begin(); it != errorLabels_.end(); ++it) {
    const bool bad = errors.contains(it.key());
    it.value()->setText(bad ? errors.value(it.key()) : QString());
    it.value()->setVisible(bad);
    if (QLineEdit* edit = edits_.value(it.key())) {
      edit->setStyleSheet(bad ? QLatin1String(kInvalidStyle) : QString());
      const QString base = edit->property("baseToolTip").toString();
      edit->setToolTip(bad ? errors.value(it.key()) + QStringLiteral("\n") + base : base);
    }
  }
  generalError_->setText(unplaced.join(QLatin1Char('\n')));
  generalError_->setVisible(!unplaced.isEmpty());
}

}  // namespace ampscope::ui
