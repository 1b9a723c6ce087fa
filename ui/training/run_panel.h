// RunPanel: the form a teacher fills before pressing Run: model, the precision modes to compare (each
// with its palette colour), optimizer and its settings, GradScaler settings, clipping, instrument
// interval and threads. It has one widget per field of the RunConfig schema (config_schema.h), whose
// help text (translated) is the tooltip and whose bounds check every edit (setFieldText, then
// validate for the checks across fields); a bad value is outlined in red with the reason right under
// the field (the engine's message, or "not a number" for text that does not parse), and
// `validityChanged(false)` keeps Run disabled until the form is valid again.
//
// The "Precision plan" box holds the plan lane's fields (group "plan"): plan.default as a combo, and
// plan.layers twice: one combo per GEMM layer of the model shown ("(default)" or a mode) and the same
// plan as text, which also keeps what the combos cannot show (a layer the model does not have, which
// validate() then names). Load Plan… reads an `advise --plan` file into both and checks the plan mode.
// The fields are greyed out while the plan mode is not checked; their values are kept.
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/run_config.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QScrollArea;

namespace ampscope::ui {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);

  // The configuration as the form describes it (meaningful when isValid()).
  RunConfig config() const { return config_; }
  bool isValid() const { return valid_; }
  void setConfig(const RunConfig& config);
  // Field names are the schema's full keys ("lr", "batch", "scaler.growth-factor", "clip.max-norm"...);
  // "modes" for the mode list.
  QLineEdit* field(const QString& name) const { return edits_.value(name); }
  QCheckBox* switchField(const QString& name) const { return switches_.value(name); }
  // Choice fields without a widget of their own (precision-path): a combo box whose items hold the names.
  QComboBox* choiceField(const QString& name) const { return choices_.value(name); }
  QString fieldError(const QString& name) const;
  // An engine error in the user's language: its template through the catalogue ("ConfigSchema"), its
  // arguments as they are; the English message where it has no template.
  static QString errorText(const ConfigError& error);
  QStringList errorFields() const;
  QListWidget* modeList() const { return modes_; }
  void setEditable(bool editable);  // greyed out while a run is active

  // The plan box. Its per-layer combos (for the model shown, in planLayerNames order): item 0 "(default)"
  // (the layer is not named: plan.default's mode), then planLayerModes() with the mode name as data.
  // choiceField("plan.default") and field("plan.layers") are its other fields.
  QGroupBox* planBox() const { return planBox_; }
  QWidget* planFields() const { return planFields_; }
  QStringList planLayerRows() const { return planLayerOrder_; }
  QComboBox* planLayerBox(const QString& layer) const { return planLayerBoxes_.value(layer); }
  QPushButton* loadPlanButton() const { return loadPlan_; }
  // Scrolls the form to the plan box (the last box: a plan put in from elsewhere is then in view).
  void showPlanBox();
  // Load Plan…: an `advise --plan` file as the plan of the model shown (readPlanConfigFile): sets
  // plan.default and plan.layers and checks the plan mode; layers the model lacks are left out and named
  // in a note. Empty path: asks for one. False when cancelled or when the file gives no plan for this
  // model (the message names the file and the plan file's field; the form is left as it was).
  bool loadPlanFile(const QString& path = QString());

  // Dialogs go through replaceable hooks (tests answer them); on the offscreen and minimal platforms the
  // defaults never block: the file dialog is cancelled, messages are logged.
  using PathPrompt = std::function<QString(const QString& folder)>;
  using MessageSink = std::function<void(const QString& title, const QString& text, bool error)>;
  void setPlanPathPrompt(PathPrompt prompt) { planPathPrompt_ = std::move(prompt); }
  void setMessageSink(MessageSink sink) { messageSink_ = std::move(sink); }

 signals:
  void validityChanged(bool valid);
  void configChanged();

 private:
  void addNumberRow(QFormLayout* form, const ConfigField& field);
  QString fieldLabel(const QString& key) const;
  void addErrorLabel(const QString& name, QWidget* anchorParent, QFormLayout* form, QWidget* fieldWidget,
                     const QString& label);
  void onModelChanged();
  void reparse();
  void showErrors(const QHash<QString, QString>& errors);
  void rebuildPlanLayerRows(ModelKind model);
  void showPlanLayers(const std::vector<std::pair<std::string, PrecisionMode>>& layers);
  void onPlanLayerBoxChanged(const QString& layer);
  void updatePlanEnabled();

  QComboBox* model_;
  QListWidget* modes_;
  QComboBox* optimizer_;
  QComboBox* clip_;
  QHash<QString, QLineEdit*> edits_;
  QHash<QString, QCheckBox*> switches_;
  QHash<QString, QComboBox*> choices_;
  QHash<QString, QLabel*> errorLabels_;
  QLabel* generalError_;
  QScrollArea* scroll_ = nullptr;
  QGroupBox* planBox_ = nullptr;
  QWidget* planFields_ = nullptr;
  QFormLayout* planForm_ = nullptr;
  QPushButton* loadPlan_ = nullptr;
  int planLayerRowStart_ = 0;           // the plan form's row of the first layer combo
  ModelKind planLayersModel_ = ModelKind::TinyMLP;
  QStringList planLayerOrder_;
  QHash<QString, QComboBox*> planLayerBoxes_;
  QString planFolder_;                  // where Load Plan… last found a file
  PathPrompt planPathPrompt_;
  MessageSink messageSink_;
  RunConfig config_;
  bool valid_ = true;
  bool loading_ = false;
  bool showingPlan_ = false;            // the layer combos are being set from the config
  bool editable_ = true;
};

}  // namespace ampscope::ui
