#include "ui/training/run_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>
#include <algorithm>
#include <optional>
#include <string>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/precision_plan.h"

#include "ui/common/dialog_sink.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {

const char* const kInvalidStyle = "QLineEdit { border: 1px solid #c00000; background: #fff0f0; }";

// Numbers are accepted in C notation ("1e-3", "0.5") and in the user's locale ("0,5"); the result is
// handed to the schema as the shortest text of the same double, so the bounds are the table's.
std::optional<QString> numberTextOf(const QString& text) {
  const QString t = text.trimmed();
  bool ok = false;
  double v = QLocale::c().toDouble(t, &ok);
  if (!ok) v = QLocale().toDouble(t, &ok);
  if (!ok) return std::nullopt;
  return QString::fromStdString(ampscope::numberText(v));
}

std::optional<QString> integerTextOf(const QString& text) {
  bool ok = false;
  const qlonglong v = text.trimmed().toLongLong(&ok);
  if (!ok) return std::nullopt;
  return QString::number(v);
}

}  // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  auto* scroll = new QScrollArea(this);
  scroll_ = scroll;
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
  auto* trainBox = new QGroupBox(tr("Training"), content);
  auto* trainForm = new QFormLayout(trainBox);
  auto* scalerBox = new QGroupBox(tr("GradScaler"), content);
  auto* scalerForm = new QFormLayout(scalerBox);
  auto* clipBox = new QGroupBox(tr("Gradient clipping"), content);
  auto* clipForm = new QFormLayout(clipBox);
  // The plan box: Load Plan… above the fields, which are greyed out (not the button) while the plan mode
  // is not checked.
  planBox_ = new QGroupBox(tr("Precision plan"), content);
  planBox_->setObjectName(QStringLiteral("planBox"));
  auto* planLayout = new QVBoxLayout(planBox_);
  loadPlan_ = new QPushButton(tr("Load Plan…"), planBox_);
  loadPlan_->setObjectName(QStringLiteral("loadPlan"));
  loadPlan_->setToolTip(tr("Read a precision plan (ampscope-cli advise --plan, or Save Plan… in Precision Advice) "
                           "into these fields for the model shown, and compare it: checks the Precision plan mode."));
  auto* loadRow = new QHBoxLayout;
  loadRow->addWidget(loadPlan_);
  loadRow->addStretch(1);
  planLayout->addLayout(loadRow);
  planFields_ = new QWidget(planBox_);
  planFields_->setObjectName(QStringLiteral("planFields"));
  planForm_ = new QFormLayout(planFields_);
  planForm_->setContentsMargins(0, 0, 0, 0);
  planLayout->addWidget(planFields_);
  const QHash<QString, QFormLayout*> forms = {{QStringLiteral("model"), modelForm},
                                              {QStringLiteral("training"), trainForm},
                                              {QStringLiteral("run"), trainForm},
                                              {QStringLiteral("scaler"), scalerForm},
                                              {QStringLiteral("clip"), clipForm},
                                              {QStringLiteral("plan"), planForm_}};

  // One row per field of the schema, in the table's order, in its group's box. The choices have their
  // own widgets (their items are translated labels); numbers are line edits, switches check boxes.
  for (const ConfigField& field : configFields()) {
    const QString key = QString::fromLatin1(field.key.data(), static_cast<qsizetype>(field.key.size()));
    QFormLayout* form = forms.value(QString::fromLatin1(field.group.data(), static_cast<qsizetype>(field.group.size())),
                                    trainForm);
    QWidget* box = form->parentWidget();
    const QString help = QCoreApplication::translate("ConfigSchema", std::string(field.help).c_str());
    if (key == QLatin1String("model")) {
      model_ = new QComboBox(box);
      model_->addItem(tr("Tiny MLP (the chapter's 128-512-10)"), static_cast<int>(ModelKind::TinyMLP));
      model_->addItem(tr("Deep MLP (FP16 underflow preset)"), static_cast<int>(ModelKind::DeepMLP));
      model_->addItem(tr("Tiny Transformer (character LM)"), static_cast<int>(ModelKind::TinyTransformer));
      model_->setToolTip(help);
      form->addRow(fieldLabel(key), model_);
      addErrorLabel(key, box, form, model_, QString());
    } else if (key == QLatin1String("modes")) {
      modes_ = new QListWidget(box);
      for (PrecisionMode mode : allPrecisionModes()) {
        auto* item = new QListWidgetItem(ModePalette::swatch(mode), ModePalette::label(mode), modes_);
        item->setData(Qt::UserRole, static_cast<int>(mode));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
        item->setToolTip(ModePalette::name(mode));
      }
      modes_->setMaximumHeight(modes_->sizeHintForRow(0) * 6 + 2 * modes_->frameWidth() + 4);
      form->addRow(fieldLabel(key), modes_);
      addErrorLabel(key, box, form, modes_, QString());
    } else if (key == QLatin1String("optimizer")) {
      optimizer_ = new QComboBox(box);
      optimizer_->addItem(tr("AdamW"), static_cast<int>(OptimizerKind::AdamW));
      optimizer_->addItem(tr("SGD with momentum"), static_cast<int>(OptimizerKind::SGD));
      optimizer_->setToolTip(help);
      form->addRow(fieldLabel(key), optimizer_);
    } else if (key == QLatin1String("clip.order")) {
      clip_ = new QComboBox(box);
      clip_->addItem(tr("Off"), static_cast<int>(ClipOrder::Off));
      clip_->addItem(tr("After unscale_ (correct)"), static_cast<int>(ClipOrder::AfterUnscale));
      clip_->addItem(tr("Before unscale_ (wrong)"), static_cast<int>(ClipOrder::BeforeUnscale));
      clip_->setItemData(2, tr("Clips the scaled gradients: max_norm then means nothing (the lesson's mistake)."),
                         Qt::ToolTipRole);
      clip_->setToolTip(help);
      form->addRow(fieldLabel(key), clip_);
    } else if (key == QLatin1String("precision-path")) {
      auto* combo = new QComboBox(box);
      combo->addItem(tr("Auto (the faster on this CPU)"), QStringLiteral("auto"));
      combo->addItem(tr("Native kernels"), QStringLiteral("native"));
      combo->addItem(tr("Emulated (exact rounding)"), QStringLiteral("emulated"));
      combo->setToolTip(help);
      combo->setObjectName(key);
      form->addRow(fieldLabel(key), combo);
      choices_.insert(key, combo);
      connect(combo, &QComboBox::currentIndexChanged, this, &RunPanel::reparse);
    } else if (key == QLatin1String("plan.default")) {
      auto* combo = new QComboBox(box);
      for (PrecisionMode mode : planLayerModes())
        combo->addItem(ModePalette::swatch(mode), ModePalette::label(mode), ModePalette::name(mode));
      combo->setToolTip(help);
      combo->setObjectName(key);
      form->addRow(fieldLabel(key), combo);
      addErrorLabel(key, box, form, combo, QString());
      choices_.insert(key, combo);
      connect(combo, &QComboBox::currentIndexChanged, this, &RunPanel::reparse);
    } else if (field.type == FieldType::LayerModes) {
      // The layer combos go above the text (rebuildPlanLayerRows), from this row on.
      planLayerRowStart_ = form->rowCount();
      addNumberRow(form, field);
    } else if (field.type == FieldType::Switch) {
      auto* check = new QCheckBox(fieldLabel(key), box);
      check->setToolTip(help);
      check->setObjectName(key);
      form->addRow(QString(), check);
      switches_.insert(key, check);
      connect(check, &QCheckBox::toggled, this, &RunPanel::reparse);
    } else {
      addNumberRow(form, field);
    }
  }
  layout->addWidget(modelBox);
  layout->addWidget(trainBox);
  layout->addWidget(scalerBox);
  layout->addWidget(clipBox);
  layout->addWidget(planBox_);

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
  connect(loadPlan_, &QPushButton::clicked, this, [this] { loadPlanFile(); });

  planPathPrompt_ = [this](const QString& folder) -> QString {
    if (!canShowDialogs()) return QString();
    return QFileDialog::getOpenFileName(this, tr("Load Precision Plan"), folder,
                                        tr("Precision plans (*.json);;All files (*)"));
  };
  messageSink_ = messageBoxSink(this);

  rebuildPlanLayerRows(ModelKind::TinyMLP);
  setConfig(presetFor(ModelKind::TinyMLP));
  // Only vertical scrolling: the dock is at least as wide as the form, whichever model's layers the plan
  // box shows (the Transformer's names are the longest).
  rebuildPlanLayerRows(ModelKind::TinyTransformer);
  const int widest = content->sizeHint().width();
  rebuildPlanLayerRows(config_.model);
  showPlanLayers(config_.plan.layers);
  scroll->setMinimumWidth(std::max(widest, content->sizeHint().width()) +
                          scroll->verticalScrollBar()->sizeHint().width() + 4);
}

void RunPanel::addErrorLabel(const QString& name, QWidget* parent, QFormLayout* form, QWidget*, const QString&) {
  auto* error = new QLabel(parent);
  error->setStyleSheet(QStringLiteral("color: #c00000;"));
  error->setWordWrap(true);
  error->hide();
  form->addRow(QString(), error);
  errorLabels_.insert(name, error);
}

void RunPanel::addNumberRow(QFormLayout* form, const ConfigField& field) {
  const QString key = QString::fromLatin1(field.key.data(), static_cast<qsizetype>(field.key.size()));
  // The help line and the bounds, both from the table.
  const std::string bounds = fieldBoundsText(field);  // none for the plan's layers
  const QString tip = QCoreApplication::translate("ConfigSchema", std::string(field.help).c_str()) +
                      (bounds.empty() ? QString() : QStringLiteral(" ") + QString::fromStdString(bounds));
  auto* edit = new QLineEdit(form->parentWidget());
  edit->setToolTip(tip);
  edit->setProperty("baseToolTip", tip);
  edit->setObjectName(key);
  form->addRow(fieldLabel(key), edit);
  edits_.insert(key, edit);
  addErrorLabel(key, form->parentWidget(), form, edit, fieldLabel(key));
  connect(edit, &QLineEdit::textChanged, this, &RunPanel::reparse);
}

QString RunPanel::fieldLabel(const QString& key) const {
  static const QHash<QString, const char*> kLabels = {
      {QStringLiteral("model"), QT_TR_NOOP("Model")},
      {QStringLiteral("modes"), QT_TR_NOOP("Compare")},
      {QStringLiteral("optimizer"), QT_TR_NOOP("Optimizer")},
      {QStringLiteral("lr"), QT_TR_NOOP("Learning rate")},
      {QStringLiteral("momentum"), QT_TR_NOOP("Momentum")},
      {QStringLiteral("weight-decay"), QT_TR_NOOP("Weight decay")},
      {QStringLiteral("adam-eps"), QT_TR_NOOP("AdamW eps")},
      {QStringLiteral("batch"), QT_TR_NOOP("Batch size")},
      {QStringLiteral("seed"), QT_TR_NOOP("Seed")},
      {QStringLiteral("steps"), QT_TR_NOOP("Steps")},
      {QStringLiteral("loss-weight"), QT_TR_NOOP("Loss weight")},
      {QStringLiteral("init-gain"), QT_TR_NOOP("Initial weight gain")},
      {QStringLiteral("scaler.init-scale"), QT_TR_NOOP("Initial scale")},
      {QStringLiteral("scaler.growth-factor"), QT_TR_NOOP("Growth factor")},
      {QStringLiteral("scaler.backoff-factor"), QT_TR_NOOP("Backoff factor")},
      {QStringLiteral("scaler.growth-interval"), QT_TR_NOOP("Growth interval")},
      {QStringLiteral("scaler.enabled"), QT_TR_NOOP("GradScaler on")},
      {QStringLiteral("scaler-for-pure-fp16"), QT_TR_NOOP("Also for fp16-pure")},
      {QStringLiteral("clip.order"), QT_TR_NOOP("Clip by norm")},
      {QStringLiteral("clip.max-norm"), QT_TR_NOOP("Max norm")},
      {QStringLiteral("instrument-every"), QT_TR_NOOP("Instrument every")},
      {QStringLiteral("threads"), QT_TR_NOOP("Threads")},
      {QStringLiteral("precision-path"), QT_TR_NOOP("Precision path")},
      {QStringLiteral("fp8.amax-history-len"), QT_TR_NOOP("FP8 amax history")},
      {QStringLiteral("fp8.margin"), QT_TR_NOOP("FP8 margin")},
      {QStringLiteral("fp8.scaling"), QT_TR_NOOP("FP8 scaling on")},
      {QStringLiteral("fp8.spike-step"), QT_TR_NOOP("Amax spike at step")},
      {QStringLiteral("fp8.spike-factor"), QT_TR_NOOP("Spike factor")},
      {QStringLiteral("fp8.outlier-factor"), QT_TR_NOOP("Outlier factor")},
      {QStringLiteral("rounding-cost"), QT_TR_NOOP("Record rounding costs")},
      {QStringLiteral("plan.default"), QT_TR_NOOP("Default mode")},
      {QStringLiteral("plan.layers"), QT_TR_NOOP("Layers as text")},
  };
  const char* label = kLabels.value(key, nullptr);
  return label ? tr(label) : key;  // a new field shows its key until it gets a label
}

void RunPanel::setConfig(const RunConfig& config) {
  loading_ = true;
  config_ = config;
  model_->setCurrentIndex(model_->findData(static_cast<int>(config.model)));
  if (config.model != planLayersModel_) rebuildPlanLayerRows(config.model);
  optimizer_->setCurrentIndex(optimizer_->findData(static_cast<int>(config.optimizer)));
  clip_->setCurrentIndex(clip_->findData(static_cast<int>(config.clipOrder)));
  for (int i = 0; i < modes_->count(); ++i) {
    QListWidgetItem* item = modes_->item(i);
    const auto mode = static_cast<PrecisionMode>(item->data(Qt::UserRole).toInt());
    const bool on = std::find(config.modes.begin(), config.modes.end(), mode) != config.modes.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  for (auto it = edits_.begin(); it != edits_.end(); ++it) {
    it.value()->setText(QString::fromStdString(fieldText(config, *findConfigField(it.key().toStdString()))));
  }
  for (auto it = switches_.begin(); it != switches_.end(); ++it) {
    it.value()->setChecked(findConfigField(it.key().toStdString())->access.getSwitch(config));
  }
  for (auto it = choices_.begin(); it != choices_.end(); ++it) {
    const std::string name = findConfigField(it.key().toStdString())->access.getName(config);
    it.value()->setCurrentIndex(it.value()->findData(QString::fromStdString(name)));
  }
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
  editable_ = editable;
  for (QWidget* w : findChildren<QGroupBox*>()) w->setEnabled(editable);
  updatePlanEnabled();
}

QString RunPanel::errorText(const ConfigError& error) {
  if (error.text.empty()) return QString::fromStdString(error.message);
  QString text = QCoreApplication::translate("ConfigSchema", error.text.c_str());
  for (const std::string& arg : error.args) text = text.arg(QString::fromStdString(arg));
  return text;
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

  for (auto it = edits_.begin(); it != edits_.end(); ++it) {
    const ConfigField& field = *findConfigField(it.key().toStdString());
    if (field.type == FieldType::LayerModes) {  // text, not a number: the schema parses it
      if (auto error = setFieldText(c, field, it.value()->text().toStdString())) errors.insert(it.key(), errorText(*error));
      continue;
    }
    const bool integer = field.type == FieldType::Integer;
    const std::optional<QString> text = integer ? integerTextOf(it.value()->text()) : numberTextOf(it.value()->text());
    if (!text) {
      errors.insert(it.key(), integer ? tr("not a whole number") : tr("not a number"));
    } else if (auto error = setFieldText(c, field, text->toStdString())) {
      errors.insert(it.key(), errorText(*error));
    }
  }
  for (auto it = switches_.begin(); it != switches_.end(); ++it) {
    findConfigField(it.key().toStdString())->access.setSwitch(c, it.value()->isChecked());
  }
  for (auto it = choices_.begin(); it != choices_.end(); ++it) {
    findConfigField(it.key().toStdString())->access.setName(c, it.value()->currentData().toString().toStdString());
  }

  // The engine's rules, for the fields that parsed.
  for (const ConfigError& e : validate(c)) {
    const QString field = QString::fromStdString(e.field);
    if (errors.contains(field)) continue;
    errors.insert(field, errorText(e));
  }
  config_ = c;
  showPlanLayers(c.plan.layers);
  updatePlanEnabled();
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

namespace ampscope::ui {

void RunPanel::rebuildPlanLayerRows(ModelKind model) {
  for (QComboBox* box : std::as_const(planLayerBoxes_)) planForm_->removeRow(box);  // its label goes too
  planLayerBoxes_.clear();
  planLayerOrder_.clear();
  planLayersModel_ = model;
  int row = planLayerRowStart_;
  for (const std::string& name : planLayerNames(model)) {
    const QString layer = QString::fromStdString(name);
    auto* box = new QComboBox(planFields_);
    box->setObjectName(QStringLiteral("plan.layer.") + layer);
    box->addItem(tr("(default)"), QString());
    for (PrecisionMode mode : planLayerModes()) box->addItem(ModePalette::label(mode), ModePalette::name(mode));
    box->setToolTip(tr("This layer's mode in the plan lane; (default): the default mode's."));
    planForm_->insertRow(row++, layer, box);
    planLayerBoxes_.insert(layer, box);
    planLayerOrder_ << layer;
    connect(box, &QComboBox::currentIndexChanged, this, [this, layer] { onPlanLayerBoxChanged(layer); });
  }
}

void RunPanel::showPlanLayers(const std::vector<std::pair<std::string, PrecisionMode>>& layers) {
  showingPlan_ = true;
  for (const QString& layer : std::as_const(planLayerOrder_)) {
    QComboBox* box = planLayerBoxes_.value(layer);
    int index = 0;
    for (const auto& [name, mode] : layers)
      if (QString::fromStdString(name) == layer) index = std::max(0, box->findData(ModePalette::name(mode)));
    box->setCurrentIndex(index);
  }
  showingPlan_ = false;
}

void RunPanel::onPlanLayerBoxChanged(const QString& layer) {
  if (loading_ || showingPlan_) return;
  QLineEdit* text = edits_.value(QStringLiteral("plan.layers"));
  // The text's order is kept (it is the config's): a layer newly given a mode goes last. Text that does
  // not parse is replaced by what the combos show.
  std::string why;
  std::vector<std::pair<std::string, PrecisionMode>> layers;
  if (auto parsed = parsePlanLayers(text->text().toStdString(), &why)) {
    layers = std::move(*parsed);
  } else {
    for (const QString& name : std::as_const(planLayerOrder_)) {
      const QComboBox* box = planLayerBoxes_.value(name);
      if (box->currentIndex() > 0)
        layers.emplace_back(name.toStdString(), *parseMode(box->currentData().toString().toStdString()));
    }
  }
  const std::string name = layer.toStdString();
  auto it = std::find_if(layers.begin(), layers.end(), [&](const auto& entry) { return entry.first == name; });
  const QComboBox* box = planLayerBoxes_.value(layer);
  if (box->currentIndex() <= 0) {
    if (it != layers.end()) layers.erase(it);
  } else if (const auto mode = parseMode(box->currentData().toString().toStdString())) {
    if (it != layers.end()) {
      it->second = *mode;
    } else {
      layers.emplace_back(name, *mode);
    }
  }
  text->setText(QString::fromStdString(planLayersText(layers)));  // reparses
}

void RunPanel::updatePlanEnabled() {
  const bool planned = std::find(config_.modes.begin(), config_.modes.end(), PrecisionMode::Plan) != config_.modes.end();
  planFields_->setEnabled(editable_ && planned);
  planFields_->setToolTip(planned ? QString() : tr("Check “Precision plan” under Compare to train this plan."));
}

void RunPanel::showPlanBox() { scroll_->ensureWidgetVisible(planBox_, 0, 0); }

bool RunPanel::loadPlanFile(const QString& path) {
  QString chosen = path;
  if (chosen.isEmpty()) chosen = planPathPrompt_ ? planPathPrompt_(planFolder_) : QString();
  if (chosen.isEmpty()) return false;
  planFolder_ = QFileInfo(chosen).absolutePath();
  const auto model = static_cast<ModelKind>(model_->currentData().toInt());
  std::vector<std::string> notes;
  std::string error;
  const std::optional<PlanConfig> plan = readPlanConfigFile(chosen.toStdString(), model, &notes, &error);
  if (!plan) {
    // The engine's error starts with the file and names the plan file's field ("layers[2].mode: ...").
    if (messageSink_)
      messageSink_(tr("Load Plan"),
                   tr("No plan was loaded into plan.default and plan.layers (they are unchanged):\n%1")
                       .arg(QString::fromStdString(error)),
                   true);
    return false;
  }
  loading_ = true;
  QComboBox* defaultBox = choices_.value(QStringLiteral("plan.default"));
  defaultBox->setCurrentIndex(defaultBox->findData(ModePalette::name(plan->defaultMode)));
  edits_.value(QStringLiteral("plan.layers"))->setText(QString::fromStdString(planLayersText(plan->layers)));
  for (int i = 0; i < modes_->count(); ++i)
    if (static_cast<PrecisionMode>(modes_->item(i)->data(Qt::UserRole).toInt()) == PrecisionMode::Plan)
      modes_->item(i)->setCheckState(Qt::Checked);
  loading_ = false;
  reparse();
  if (!notes.empty() && messageSink_) {
    QStringList lines;
    for (const std::string& note : notes) lines << QString::fromStdString(note);
    messageSink_(tr("Load Plan"),
                 tr("Loaded %1 as the plan of %2. Note: %3")
                     .arg(QDir::toNativeSeparators(chosen), QString::fromStdString(modelName(model)),
                          lines.join(QStringLiteral("; "))),
                 false);
  }
  return true;
}

}  // namespace ampscope::ui
