// RunPanel: the form a teacher fills before pressing Run: model, the precision modes to compare (each
// with its palette colour), optimizer and its settings, GradScaler settings, clipping, instrument
// interval and threads. It has one widget per field of the RunConfig schema (config_schema.h), whose
// help text (translated) is the tooltip and whose bounds check every edit (setFieldText, then
// validate for the checks across fields); a bad value is outlined in red with the reason right under
// the field (the engine's message, or "not a number" for text that does not parse), and
// `validityChanged(false)` keeps Run disabled until the form is valid again.
#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/run_config.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;

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

  QComboBox* model_;
  QListWidget* modes_;
  QComboBox* optimizer_;
  QComboBox* clip_;
  QHash<QString, QLineEdit*> edits_;
  QHash<QString, QCheckBox*> switches_;
  QHash<QString, QComboBox*> choices_;
  QHash<QString, QLabel*> errorLabels_;
  QLabel* generalError_;
  RunConfig config_;
  bool valid_ = true;
  bool loading_ = false;
};

}  // namespace ampscope::ui
