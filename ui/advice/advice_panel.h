// Analysis > Precision Advice…: the advice of `ampscope-cli advise` (precision_advice.h) for the run
// shown in the window (the engine's run, during or after training: the records a saved session holds),
// for a followed run (a probe's stream), or for a session or record file the user opens. The advice
// comes from the engine's one path (advice_run.h), so its verdicts are the CLI's: a sortable table of
// the evidence per layer, role and format, the thresholds in use, the GradScaler's advice, the plan per
// layer with the layers kept in higher precision, and the CLI's report as it prints it. "Save Plan…"
// writes the precision plan file the CLI's --plan writes (byte for byte for the same run and target),
// asking before it replaces a file; "Copy Table" puts the evidence table on the clipboard as
// tab-separated text. "Train This Plan" puts the plan into the window's run configuration as the plan
// lane, beside FP32 and the plan's target mode (trainPlanRequested), for advice on a run whose model
// AmpScope knows: its own run, a session, an `ampscope-cli train` stream (not a probed script's).
//
// Dialogs go through replaceable hooks, so tests can answer them; on the offscreen and minimal platforms
// the defaults never block: file dialogs are cancelled, questions answered "no", messages logged.
#pragma once

#include <QDialog>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "ampscope/engine/advice_run.h"
#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/session_codec.h"
#include "ui/session/session_file.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTableWidget;

namespace ampscope::ui {

class EvidenceTableModel;

class AdvicePanel : public QDialog {
  Q_OBJECT
 public:
  // Where the advice comes from.
  enum class SourceKind { CurrentRun, FollowedRun, File };

  // The engine's current run as the window keeps it for saving (config, lesson, records; nullptr or no
  // records: none yet).
  using CurrentRunProvider = std::function<const ui::Session*()>;
  // The file the current run was opened from or saved to (the plan's source.file); empty: none.
  using CurrentRunFileProvider = std::function<QString()>;
  // The followed runs, in the order the window lists them.
  using FollowedRunsProvider = std::function<std::vector<FollowedRun>()>;
  // Returns the chosen path, or an empty string when the user cancelled. `save`: a plan to write.
  using PathPrompt = std::function<QString(bool save, const QString& suggestion)>;
  // Returns true for "yes".
  using QuestionPrompt = std::function<bool(const QString& title, const QString& text)>;
  using MessageSink = std::function<void(const QString& title, const QString& text, bool error)>;
  // The window's run configuration (the Run panel's), which Train This Plan extends; and whether a run is
  // training there now (Train This Plan then asks before the window stops it).
  using RunConfigProvider = std::function<RunConfig()>;
  using RunActiveProvider = std::function<bool()>;

  explicit AdvicePanel(QWidget* parent = nullptr);
  ~AdvicePanel() override;

  void setCurrentRunProvider(CurrentRunProvider provider) { currentRun_ = std::move(provider); }
  void setCurrentRunFileProvider(CurrentRunFileProvider provider) { currentRunFile_ = std::move(provider); }
  void setFollowedRunsProvider(FollowedRunsProvider provider) { followedRuns_ = std::move(provider); }
  void setPathPrompt(PathPrompt prompt) { pathPrompt_ = std::move(prompt); }
  void setQuestionPrompt(QuestionPrompt prompt) { questionPrompt_ = std::move(prompt); }
  void setMessageSink(MessageSink sink) { messageSink_ = std::move(sink); }
  void setRunConfigProvider(RunConfigProvider provider) { runConfig_ = std::move(provider); }
  void setRunActiveProvider(RunActiveProvider provider) { runActive_ = std::move(provider); }

  // Re-reads the list of sources (the current run, each followed run, the opened file) and the chosen
  // source's advice. Opening the panel does this; so does its Refresh button (a run still training).
  void refresh();
  // Advice on the current run / the `index`-th followed run (0-based) / a file. False when it gives none
  // (nothing recorded yet, a file that does not read: the message names the field).
  bool showCurrentRun();
  bool showFollowedRun(int index);
  bool openFile(const QString& path = QString());  // empty: ask for one
  // The plan's target: "auto" or a mode of adviceModeOrder(). Recomputes the advice.
  void setTarget(const QString& target);
  QString target() const;
  // Whose tensors are judged (advise --mode): empty for the default (fp32 when the run has it, else its
  // first mode), or a mode name. A mode the run lacks gives no advice and says which modes it has.
  void setJudgedMode(const QString& mode);
  QString judgedMode() const;

  // Writes the plan of the advice shown (empty path: ask for one). Never replaces a file without asking;
  // false when there is no plan (nothing judged, too short), the user declined, or the write failed.
  bool savePlan(const QString& path = QString());
  // The evidence table in its current order, a header line first, tab-separated, '\n'-terminated lines.
  QString tableText() const;
  void copyTable() const;

  // Train This Plan: the advised plan as the plan lane of the advised run's model (planConfigOf), in the
  // window's run configuration (that of the advised run, or the model's preset, where the window's is of
  // another model) with fp32, the target mode and "plan" among its modes; emits trainPlanRequested and
  // says what it did. False (with a message) where the model is unknown or the plan has none of its
  // layers, or when the user keeps a run training.
  bool trainPlan();
  // Whether Train This Plan can be offered for the advice shown; `why` says why not.
  bool canTrainPlan(QString* why = nullptr) const;

  // What is shown: the advice (nullopt: none), the last error ("" when none).
  const std::optional<PrecisionAdvice>& advice() const { return advice_; }
  QString errorText() const { return errorText_; }
  SourceKind sourceKind() const { return sourceKind_; }

  EvidenceTableModel* evidenceModel() const { return model_; }
  QSortFilterProxyModel* sortedEvidence() const { return sorted_; }
  QTableView* evidenceView() const { return evidenceView_; }
  QTableWidget* planTable() const { return planTable_; }
  QLabel* summaryLabel() const { return summary_; }
  QLabel* thresholdsLabel() const { return thresholds_; }
  QLabel* statusLabel() const { return status_; }
  QLabel* scalerLabel() const { return scaler_; }
  QPlainTextEdit* reportView() const { return report_; }
  QPushButton* savePlanButton() const { return saveButton_; }
  QPushButton* trainPlanButton() const { return trainButton_; }
  QPushButton* copyButton() const { return copyButton_; }
  QComboBox* sourceBox() const { return sourceBox_; }
  QComboBox* targetBox() const { return targetBox_; }
  QComboBox* judgedModeBox() const { return modeBox_; }
  QTabWidget* tabs() const { return tabs_; }

 signals:
  // The configuration Train This Plan made: the window puts it into its Run panel (stopping a run first).
  void trainPlanRequested(const ampscope::RunConfig& config);

 protected:
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void retranslate();
  void rebuildSources();
  void selectSource(int comboIndex);
  bool recompute();
  void showResult();
  void showError(const QString& message);
  void report(const QString& title, const QString& text, bool error);
  QString describeSource() const;

  CurrentRunProvider currentRun_;
  CurrentRunFileProvider currentRunFile_;
  FollowedRunsProvider followedRuns_;
  PathPrompt pathPrompt_;
  QuestionPrompt questionPrompt_;
  MessageSink messageSink_;
  RunConfigProvider runConfig_;
  RunActiveProvider runActive_;

  SourceKind sourceKind_ = SourceKind::CurrentRun;
  int followedIndex_ = 0;
  QString filePath_;
  std::vector<FollowedRun> followed_;  // as last read from the provider
  std::optional<PrecisionAdvice> advice_;
  QString errorText_;
  QString noteText_;
  bool rebuilding_ = false;

  QLabel* sourceLabel_ = nullptr;
  QComboBox* sourceBox_ = nullptr;
  QPushButton* openButton_ = nullptr;
  QPushButton* refreshButton_ = nullptr;
  QLabel* targetLabel_ = nullptr;
  QComboBox* targetBox_ = nullptr;
  QLabel* modeLabel_ = nullptr;
  QComboBox* modeBox_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* thresholds_ = nullptr;
  QLabel* status_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  EvidenceTableModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* evidenceView_ = nullptr;
  QLabel* keptLabel_ = nullptr;
  QTableWidget* planTable_ = nullptr;
  QLabel* scaler_ = nullptr;
  QPlainTextEdit* report_ = nullptr;
  QPushButton* copyButton_ = nullptr;
  QPushButton* saveButton_ = nullptr;
  QPushButton* trainButton_ = nullptr;
  QPushButton* closeButton_ = nullptr;
};

}  // namespace ampscope::ui
