#include "ui/advice/advice_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDebug>
#include <QDir>
#include <QDialogButtonBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ampscope/engine/precision_plan.h"
#include "ui/advice/evidence_table_model.h"
#include "ui/advice/plan_run.h"
#include "ui/common/dialog_sink.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {

QString q(const std::string& text) { return QString::fromStdString(text); }

QString pow2(int log2) { return QStringLiteral("2^%1").arg(log2); }

}  // namespace

AdvicePanel::AdvicePanel(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("advicePanel"));
  setModal(false);

  sourceLabel_ = new QLabel(this);
  sourceBox_ = new QComboBox(this);
  sourceBox_->setObjectName(QStringLiteral("adviceSource"));
  sourceBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  sourceLabel_->setBuddy(sourceBox_);
  openButton_ = new QPushButton(this);
  openButton_->setObjectName(QStringLiteral("adviceOpenFile"));
  refreshButton_ = new QPushButton(this);
  refreshButton_->setObjectName(QStringLiteral("adviceRefresh"));
  targetLabel_ = new QLabel(this);
  targetBox_ = new QComboBox(this);
  targetBox_->setObjectName(QStringLiteral("adviceTarget"));
  targetLabel_->setBuddy(targetBox_);
  targetBox_->addItem(QStringLiteral("auto"), QStringLiteral("auto"));
  for (PrecisionMode mode : adviceModeOrder()) targetBox_->addItem(q(modeName(mode)), q(modeName(mode)));

  modeLabel_ = new QLabel(this);
  modeBox_ = new QComboBox(this);
  modeBox_->setObjectName(QStringLiteral("adviceJudgedMode"));
  modeLabel_->setBuddy(modeBox_);
  modeBox_->addItem(QString(), QString());
  for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
                             PrecisionMode::BF16Amp, PrecisionMode::FP16Pure, PrecisionMode::BF16Pure,
                             PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current, PrecisionMode::MXFP8,
                             PrecisionMode::NVFP4})
    modeBox_->addItem(q(modeName(mode)), q(modeName(mode)));

  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(sourceLabel_);
  sourceRow->addWidget(sourceBox_, 1);
  sourceRow->addWidget(openButton_);
  sourceRow->addWidget(refreshButton_);
  sourceRow->addSpacing(12);
  sourceRow->addWidget(modeLabel_);
  sourceRow->addWidget(modeBox_);
  sourceRow->addSpacing(12);
  sourceRow->addWidget(targetLabel_);
  sourceRow->addWidget(targetBox_);

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("adviceSummary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  thresholds_ = new QLabel(this);
  thresholds_->setObjectName(QStringLiteral("adviceThresholds"));
  thresholds_->setWordWrap(true);
  thresholds_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("adviceStatus"));
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  model_ = new EvidenceTableModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(EvidenceTableModel::SortRole);
  evidenceView_ = new QTableView(this);
  evidenceView_->setObjectName(QStringLiteral("adviceEvidence"));
  evidenceView_->setModel(sorted_);
  evidenceView_->setSortingEnabled(true);
  evidenceView_->sortByColumn(-1, Qt::AscendingOrder);  // the engine's order (layer, role, format) until asked
  evidenceView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  evidenceView_->setAlternatingRowColors(true);
  evidenceView_->setWordWrap(false);
  evidenceView_->verticalHeader()->hide();
  // One line per row (the style's default leaves room for two at 1280x720): more rows in view.
  evidenceView_->verticalHeader()->setDefaultSectionSize(evidenceView_->fontMetrics().height() + 8);
  evidenceView_->horizontalHeader()->setStretchLastSection(true);
  evidenceView_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

  planTable_ = new QTableWidget(0, 4, this);
  planTable_->setObjectName(QStringLiteral("advicePlan"));
  planTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  planTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  planTable_->verticalHeader()->hide();
  planTable_->verticalHeader()->setDefaultSectionSize(planTable_->fontMetrics().height() + 8);
  planTable_->horizontalHeader()->setStretchLastSection(true);
  keptLabel_ = new QLabel(this);
  keptLabel_->setObjectName(QStringLiteral("adviceKeptHigher"));
  keptLabel_->setWordWrap(true);
  auto* planPage = new QWidget(this);
  auto* planLayout = new QVBoxLayout(planPage);
  planLayout->addWidget(keptLabel_);
  planLayout->addWidget(planTable_, 1);

  scaler_ = new QLabel(this);
  scaler_->setObjectName(QStringLiteral("adviceScaler"));
  scaler_->setWordWrap(true);
  scaler_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  scaler_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  scaler_->setMargin(8);

  report_ = new QPlainTextEdit(this);
  report_->setObjectName(QStringLiteral("adviceReport"));
  report_->setReadOnly(true);
  report_->setLineWrapMode(QPlainTextEdit::NoWrap);
  report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("adviceTabs"));
  tabs_->addTab(evidenceView_, QString());
  tabs_->addTab(planPage, QString());
  tabs_->addTab(scaler_, QString());
  tabs_->addTab(report_, QString());

  copyButton_ = new QPushButton(this);
  copyButton_->setObjectName(QStringLiteral("adviceCopyTable"));
  saveButton_ = new QPushButton(this);
  saveButton_->setObjectName(QStringLiteral("adviceSavePlan"));
  trainButton_ = new QPushButton(this);
  trainButton_->setObjectName(QStringLiteral("adviceTrainPlan"));
  closeButton_ = new QPushButton(this);
  closeButton_->setObjectName(QStringLiteral("adviceClose"));
  auto* buttons = new QDialogButtonBox(this);
  buttons->addButton(copyButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(saveButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(trainButton_, QDialogButtonBox::ActionRole);
  buttons->addButton(closeButton_, QDialogButtonBox::RejectRole);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(sourceRow);
  layout->addWidget(summary_);
  layout->addWidget(thresholds_);
  layout->addWidget(status_);
  layout->addWidget(tabs_, 1);
  layout->addWidget(buttons);

  connect(sourceBox_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (!rebuilding_) selectSource(index);
  });
  connect(targetBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (rebuilding_) return;
    recompute();
    showResult();
  });
  connect(modeBox_, &QComboBox::currentIndexChanged, this, [this] {
    if (rebuilding_) return;
    recompute();
    showResult();
  });
  connect(openButton_, &QPushButton::clicked, this, [this] { openFile(); });
  connect(refreshButton_, &QPushButton::clicked, this, &AdvicePanel::refresh);
  connect(copyButton_, &QPushButton::clicked, this, &AdvicePanel::copyTable);
  connect(saveButton_, &QPushButton::clicked, this, [this] { savePlan(); });
  connect(trainButton_, &QPushButton::clicked, this, [this] { trainPlan(); });
  connect(closeButton_, &QPushButton::clicked, this, &QDialog::reject);

  pathPrompt_ = [this](bool save, const QString& suggestion) -> QString {
    if (!canShowDialogs()) return QString();
    if (save) {
      // The panel asks before it replaces a file (savePlan), so the file dialog does not ask as well.
      return QFileDialog::getSaveFileName(this, tr("Save Precision Plan"), suggestion,
                                          tr("Precision plans (*.json);;All files (*)"), nullptr,
                                          QFileDialog::DontConfirmOverwrite);
    }
    return QFileDialog::getOpenFileName(this, tr("Advice on a Run File"), suggestion,
                                        tr("Sessions and record streams (*.ampscope *.jsonl);;All files (*)"));
  };
  questionPrompt_ = [this](const QString& title, const QString& text) {
    if (!canShowDialogs()) return false;
    QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, this);
    box.setDefaultButton(QMessageBox::No);  // Enter keeps the file
    return box.exec() == QMessageBox::Yes;
  };
  messageSink_ = messageBoxSink(this);

  retranslate();
  showResult();
  // Room for the evidence table's eleven columns, within the screen (1280x720 included).
  QSize size(1160, 640);
  if (const QScreen* screen = parent ? parent->screen() : QGuiApplication::primaryScreen())
    size = size.boundedTo(screen->availableGeometry().size() - QSize(40, 60));
  resize(size);
}

AdvicePanel::~AdvicePanel() = default;

void AdvicePanel::retranslate() {
  setWindowTitle(tr("Precision Advice"));
  sourceLabel_->setText(tr("&Run:"));
  openButton_->setText(tr("&Open File…"));
  openButton_->setToolTip(tr("Advice on a saved session (.ampscope) or a record stream (.jsonl): a probe's or "
                             "ampscope-cli train --jsonl's."));
  refreshButton_->setText(tr("Re&fresh"));
  refreshButton_->setToolTip(tr("Read the run again: a run still training or followed has more steps now."));
  modeLabel_->setText(tr("&Judged:"));
  modeBox_->setItemText(0, tr("default (fp32)"));
  modeBox_->setToolTip(tr("Whose tensors are judged: by default fp32 when the run has it (the reference: what a lower "
                          "precision would have to hold), else the run's first mode."));
  targetLabel_->setText(tr("Plan &target:"));
  targetBox_->setItemText(0, tr("auto (cheapest safe mode)"));
  targetBox_->setToolTip(tr("The mode the plan aims for; a layer it does not hold is kept in higher precision. "
                            "auto: the cheapest mode that holds each layer."));
  tabs_->setTabText(0, tr("Evidence"));
  tabs_->setTabText(1, tr("Plan"));
  tabs_->setTabText(2, tr("GradScaler"));
  tabs_->setTabText(3, tr("Report"));
  tabs_->setTabToolTip(3, tr("The report as ampscope-cli advise prints it."));
  planTable_->setHorizontalHeaderLabels({tr("Layer"), tr("Mode"), tr("Kept higher"), tr("Reason")});
  copyButton_->setText(tr("&Copy Table"));
  copyButton_->setToolTip(tr("Copy the evidence table, in its current order, as tab-separated text."));
  saveButton_->setText(tr("&Save Plan…"));
  saveButton_->setToolTip(tr("Write the precision plan (JSON, as ampscope-cli advise --plan writes it)."));
  trainButton_->setText(tr("Train This &Plan"));
  closeButton_->setText(tr("Close"));
  model_->retranslate();
  if (!rebuilding_ && sourceBox_->count() > 0) rebuildSources();
  showResult();
}

void AdvicePanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  QDialog::changeEvent(event);
}

void AdvicePanel::showEvent(QShowEvent* event) {
  QDialog::showEvent(event);
  refresh();
}

void AdvicePanel::rebuildSources() {
  rebuilding_ = true;
  followed_ = followedRuns_ ? followedRuns_() : std::vector<FollowedRun>{};
  sourceBox_->clear();
  sourceBox_->addItem(tr("This AmpScope run"), QVariant::fromValue(QPoint(0, 0)));
  for (size_t i = 0; i < followed_.size(); ++i) {
    const FollowedRun& run = followed_[i];
    QString name = q(run.source.run.empty() ? run.target : run.source.run);
    if (run.source.ranks == "per-rank") name = tr("%1 rank %2").arg(name).arg(run.source.rank);
    sourceBox_->addItem(tr("Followed: %1").arg(name), QVariant::fromValue(QPoint(1, static_cast<int>(i))));
  }
  if (!filePath_.isEmpty())
    sourceBox_->addItem(tr("File: %1").arg(QFileInfo(filePath_).fileName()), QVariant::fromValue(QPoint(2, 0)));
  if (sourceKind_ == SourceKind::FollowedRun && followedIndex_ >= static_cast<int>(followed_.size()))
    sourceKind_ = SourceKind::CurrentRun;
  int select = 0;
  if (sourceKind_ == SourceKind::FollowedRun) select = 1 + followedIndex_;
  if (sourceKind_ == SourceKind::File) select = sourceBox_->count() - 1;
  sourceBox_->setCurrentIndex(select);
  sourceBox_->setItemData(sourceBox_->count() - 1, filePath_, Qt::ToolTipRole);
  rebuilding_ = false;
}

void AdvicePanel::selectSource(int comboIndex) {
  const QPoint which = sourceBox_->itemData(comboIndex).toPoint();
  if (which.x() == 1) {
    showFollowedRun(which.y());
  } else if (which.x() == 2) {
    sourceKind_ = SourceKind::File;
    recompute();
    showResult();
  } else {
    showCurrentRun();
  }
}

void AdvicePanel::refresh() {
  // The run shown by default: the engine's when it has recorded steps, else the first followed run.
  if (sourceKind_ == SourceKind::CurrentRun && followedRuns_) {
    const ui::Session* session = currentRun_ ? currentRun_() : nullptr;
    if ((!session || session->records.empty()) && !followedRuns_().empty()) {
      sourceKind_ = SourceKind::FollowedRun;
      followedIndex_ = 0;
    }
  }
  rebuildSources();
  recompute();
  showResult();
}

bool AdvicePanel::showCurrentRun() {
  sourceKind_ = SourceKind::CurrentRun;
  rebuildSources();
  const bool given = recompute();
  showResult();
  return given;
}

bool AdvicePanel::showFollowedRun(int index) {
  sourceKind_ = SourceKind::FollowedRun;
  followedIndex_ = index;
  rebuildSources();
  const bool given = sourceKind_ == SourceKind::FollowedRun && recompute();
  if (sourceKind_ != SourceKind::FollowedRun) {
    advice_.reset();
    errorText_ = tr("There is no followed run %1.").arg(index + 1);
  }
  showResult();
  return given;
}

bool AdvicePanel::openFile(const QString& path) {
  QString chosen = path;
  if (chosen.isEmpty()) chosen = pathPrompt_ ? pathPrompt_(false, QFileInfo(filePath_).absolutePath()) : QString();
  if (chosen.isEmpty()) return false;
  filePath_ = chosen;
  sourceKind_ = SourceKind::File;
  rebuildSources();
  const bool given = recompute();
  showResult();
  if (!given) report(tr("Precision Advice"), errorText_, true);
  return given;
}

void AdvicePanel::setTarget(const QString& target) {
  const int index = targetBox_->findData(target);
  if (index >= 0) targetBox_->setCurrentIndex(index);  // recomputes
}

QString AdvicePanel::target() const { return targetBox_->currentData().toString(); }

void AdvicePanel::setJudgedMode(const QString& mode) {
  const int index = modeBox_->findData(mode);
  if (index >= 0) modeBox_->setCurrentIndex(index);  // recomputes
}

QString AdvicePanel::judgedMode() const { return modeBox_->currentData().toString(); }

bool AdvicePanel::recompute() {
  advice_.reset();
  errorText_.clear();
  noteText_.clear();
  AdviceRequest request;
  request.target = target().toStdString();
  if (!judgedMode().isEmpty()) request.mode = parseMode(judgedMode().toStdString());
  AdviceInputError error;
  switch (sourceKind_) {
    case SourceKind::CurrentRun: {
      const ui::Session* session = currentRun_ ? currentRun_() : nullptr;
      if (!session || session->records.empty()) {
        errorText_ = tr("This AmpScope run has recorded no steps yet: train (Space), open a session, or choose a "
                        "followed run or a file.");
        return false;
      }
      advice_ = adviseEngineRecords(session->config, session->lesson.toStdString(), session->records,
                                    currentRunFile_ ? currentRunFile_().toStdString() : std::string(), request, &error);
      break;
    }
    case SourceKind::FollowedRun: {
      if (followedIndex_ < 0 || followedIndex_ >= static_cast<int>(followed_.size())) return false;
      const FollowedRun& run = followed_[static_cast<size_t>(followedIndex_)];
      // An engine stream's configuration (its model, so the engine's layer names, and its modes, so fp32
      // judged) is in its header, which the window does not keep: a followed file is read as advise reads it.
      if (run.source.source != "probe" && QFileInfo(q(run.target)).isFile()) {
        std::string note;
        advice_ = adviseFile(run.target, request, &error, &note);
        noteText_ = q(note);
      } else {
        advice_ = adviseFollowedRun(run, run.target, request, &error);
      }
      break;
    }
    case SourceKind::File: {
      QApplication::setOverrideCursor(Qt::WaitCursor);
      std::string note;
      advice_ = adviseFile(filePath_.toStdString(), request, &error, &note);
      QApplication::restoreOverrideCursor();
      noteText_ = q(note);
      break;
    }
  }
  if (!advice_) {
    errorText_ = sourceKind_ == SourceKind::File
                     ? tr("No advice for %1: %2").arg(QFileInfo(filePath_).fileName(), q(error.message))
                     : tr("No advice: %1").arg(q(error.message));
    return false;
  }
  return true;
}

QString AdvicePanel::describeSource() const {
  if (!advice_) return QString();
  const RunIdentity& r = advice_->run;
  QString kind = q(r.kind);
  if (r.kind == "probe-stream") kind = tr("probe stream");
  if (r.kind == "engine-stream") kind = tr("engine stream");
  if (r.kind == "session") kind = tr("session");
  QString what = r.file.empty() ? kind : tr("%1 %2").arg(kind, q(r.file));
  if (!r.run.empty()) what += tr(", run %1").arg(q(r.run));
  if (!r.runId.empty()) what += tr(", run-id %1").arg(q(r.runId));
  return tr("%1: judged mode %2, steps %3-%4, %5 instrumented")
      .arg(what, q(r.mode))
      .arg(r.firstStep)
      .arg(r.lastStep)
      .arg(r.instrumentedSteps);
}

void AdvicePanel::showResult() {
  const AdviceThresholds t = advice_ ? advice_->thresholds : AdviceThresholds{};
  QStringList floors;
  for (const char* column : {"fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"})
    floors << QStringLiteral("%1 %2").arg(QLatin1String(column)).arg(*formatSqnrDb(column) - t.sqnrMarginDb, 0, 'f', 1);
  thresholds_->setText(
      tr("Thresholds: judged from %1 instrumented steps. Unsafe: more than %2 of the non-zero values flush or "
         "more than %3 overflow at a step, or the SQNR falls more than %4 dB below the format's own (floors: %5 dB). "
         "Caution: more than %6 flush or more than %7 are subnormal.")
          .arg(t.minSteps)
          .arg(shareText(t.unsafeFlushShare), shareText(t.unsafeOverflowShare))
          .arg(t.sqnrMarginDb, 0, 'f', 1)
          .arg(floors.join(QStringLiteral(", ")), shareText(t.cautionFlushShare), shareText(t.cautionSubnormalShare)));
  summary_->setText(advice_ ? describeSource() : QString());
  summary_->setVisible(advice_.has_value());

  QString status;
  bool warning = false;
  if (!errorText_.isEmpty()) {
    status = errorText_;
    warning = true;
  } else if (advice_ && advice_->tooShort) {
    status = tr("Too short to judge: the most instrumented steps of any tensor is %1, at least %2 are needed "
                "(record more steps or instrument more often). No plan.")
                 .arg(advice_->mostSteps)
                 .arg(t.minSteps);
    warning = true;
  } else if (advice_) {
    int unsafe = 0, caution = 0, kept = 0;
    for (const auto& e : advice_->evidence) {
      unsafe += e.verdict == Verdict::Unsafe;
      caution += e.verdict == Verdict::Caution;
    }
    for (const auto& p : advice_->plan) kept += p.keptHigher;
    status = tr("%1 unsafe and %2 caution of %3 entries; %4 of %5 layers kept in higher precision.")
                 .arg(unsafe)
                 .arg(caution)
                 .arg(advice_->evidence.size())
                 .arg(kept)
                 .arg(advice_->plan.size());
  }
  if (!noteText_.isEmpty()) status += QStringLiteral("\n") + tr("Note: %1").arg(noteText_);
  status_->setText(status);
  status_->setStyleSheet(warning ? QStringLiteral("QLabel { color: #c0392b; font-weight: bold; }") : QString());

  model_->setEvidence(advice_ && !advice_->tooShort ? advice_->evidence : std::vector<FormatEvidence>{});
  evidenceView_->resizeColumnsToContents();
  for (int c = 0; c < EvidenceTableModel::ReasonColumn; ++c)
    evidenceView_->setColumnWidth(c, std::min(evidenceView_->columnWidth(c), 260));

  planTable_->setRowCount(0);
  QStringList keptLayers;
  if (advice_ && !advice_->tooShort) {
    planTable_->setRowCount(static_cast<int>(advice_->plan.size()));
    for (size_t i = 0; i < advice_->plan.size(); ++i) {
      const LayerPlan& p = advice_->plan[i];
      const int row = static_cast<int>(i);
      planTable_->setItem(row, 0, new QTableWidgetItem(q(p.layer)));
      planTable_->setItem(row, 1, new QTableWidgetItem(q(p.mode)));
      planTable_->setItem(row, 2, new QTableWidgetItem(p.keptHigher ? tr("yes") : tr("no")));
      auto* reason = new QTableWidgetItem(q(p.reason));
      reason->setToolTip(q(p.reason));
      planTable_->setItem(row, 3, reason);
      if (p.keptHigher) keptLayers << tr("%1 (%2)").arg(q(p.layer), q(p.mode));
    }
    planTable_->resizeColumnsToContents();
    keptLabel_->setText(tr("Target %1. Keep in higher precision: %2.")
                            .arg(q(advice_->target), keptLayers.isEmpty() ? tr("none") : keptLayers.join(QStringLiteral(", "))));
  } else {
    keptLabel_->setText(tr("No plan."));
  }

  QStringList lines;
  if (advice_ && !advice_->tooShort) {
    const ScalerAdvice& s = advice_->scaler;
    const QString unsafeShare = shareText(t.unsafeFlushShare);
    if (s.steps == 0) {
      lines << tr("No backward values recorded.");
    } else {
      lines << (s.needed ? tr("A GradScaler is needed: without a scale some layer's gradients flush more than %1.")
                         : tr("No GradScaler needed: without a scale no layer's gradients flush more than %1."))
                   .arg(unsafeShare);
      lines << tr("The smallest gradients need a scale of at least %1 (step %2); to flush at most %3 of them, %4 "
                  "(step %5). The largest allow at most %6 (step %7).")
                   .arg(pow2(s.neededLog2))
                   .arg(s.neededStep)
                   .arg(unsafeShare, pow2(s.neededForShareLog2))
                   .arg(s.neededForShareStep)
                   .arg(pow2(s.ceilingLog2))
                   .arg(s.ceilingStep);
      if (s.noScaleFitsSteps > 0)
        lines << tr("No single scale fits at %1 of %2 steps (first: step %3): the gradients span more binades than "
                    "FP16 holds; keep such layers in BF16 or FP32.")
                     .arg(s.noScaleFitsSteps)
                     .arg(s.steps)
                     .arg(s.firstNoScaleFitsStep);
      for (size_t i = 0; i < s.covers.size(); ++i) {
        const ScaleCover& c = s.covers[i];
        QString label = q(c.label);
        // The engine's labels (precision_advice.cpp), in the language shown.
        const std::string usedPrefix = "the loss scale ", usedSuffix = " used";
        if (i == 0) {
          label = tr("2^16 (torch's default initial scale, halved where it would overflow)");
        } else if (c.label == "the recorded loss scale") {
          label = tr("The recorded loss scale");
        } else if (c.label.rfind(usedPrefix, 0) == 0 && c.label.size() > usedPrefix.size() + usedSuffix.size() &&
                   c.label.compare(c.label.size() - usedSuffix.size(), usedSuffix.size(), usedSuffix) == 0) {
          label = tr("The loss scale %1 used")
                      .arg(q(c.label.substr(usedPrefix.size(), c.label.size() - usedPrefix.size() - usedSuffix.size())));
        }
        QString line;
        if (c.uncoveredSteps == 0) {
          line = tr("%1 covers the smallest gradients at every step.").arg(label);
        } else {
          line = tr("%1 leaves the smallest gradients below 2^-24 at %2 of %3 steps (steps %4 to %5).")
                     .arg(label)
                     .arg(c.uncoveredSteps)
                     .arg(c.steps)
                     .arg(c.firstUncoveredStep)
                     .arg(c.lastUncoveredStep);
          line += QLatin1Char(' ') + (c.coveredFromStep > 0 ? tr("It covers them from step %1 on.").arg(c.coveredFromStep)
                                                            : tr("It does not cover them at the last step."));
        }
        if (c.overShareSteps == 0) {
          line += QLatin1Char(' ') + tr("At no step do more than %1 flush.").arg(unsafeShare);
        } else {
          line += QLatin1Char(' ') + tr("More than %1 flush at %2 of %3 steps (first: step %4).")
                                         .arg(unsafeShare)
                                         .arg(c.overShareSteps)
                                         .arg(c.steps)
                                         .arg(c.firstOverShareStep);
          line += QLatin1Char(' ') + (c.shareCoveredFromStep > 0
                                          ? tr("Within the share from step %1 on.").arg(c.shareCoveredFromStep)
                                          : tr("Still over it at the last step."));
        }
        lines << line;
      }
    }
  }
  scaler_->setText(lines.join(QStringLiteral("\n\n")));
  report_->setPlainText(advice_ ? q(adviceText(*advice_)) : errorText_);

  const bool hasPlan = advice_ && !advice_->tooShort;
  saveButton_->setEnabled(hasPlan);
  QString whyNot;
  trainButton_->setEnabled(canTrainPlan(&whyNot));
  trainButton_->setToolTip(trainButton_->isEnabled()
                               ? tr("Put this plan into the Run panel as the Precision plan mode, beside FP32 and the "
                                    "plan's target mode, to train them side by side from the same initial weights.")
                               : whyNot);
  copyButton_->setEnabled(model_->rowCount() > 0);
}

bool AdvicePanel::savePlan(const QString& path) {
  if (!advice_ || advice_->tooShort) return false;
  QString chosen = path;
  if (chosen.isEmpty()) {
    QString suggestion = QStringLiteral("precision-plan.json");
    if (sourceKind_ == SourceKind::File)
      suggestion = QFileInfo(filePath_).absoluteDir().filePath(QFileInfo(filePath_).completeBaseName() +
                                                             QStringLiteral("-plan.json"));
    chosen = pathPrompt_ ? pathPrompt_(true, suggestion) : QString();
    if (chosen.isEmpty()) return false;
  }
  const QFileInfo info(chosen);
  if (info.isDir()) {
    report(tr("Save Precision Plan"), tr("%1 is a folder, not a file.").arg(chosen), true);
    return false;
  }
  if (info.exists()) {
    const bool replace = questionPrompt_ &&
                         questionPrompt_(tr("Replace File?"),
                                         tr("%1 already exists. Replace it with the precision plan?").arg(chosen));
    if (!replace) return false;
  }
  if (!writePrecisionPlanFile(chosen.toStdString(), planOf(*advice_))) {
    report(tr("Save Precision Plan"), tr("Writing the precision plan to %1 failed.").arg(chosen), true);
    return false;
  }
  return true;
}

QString AdvicePanel::tableText() const {
  QString text;
  const auto escape = [](QString cell) { return cell.replace(QLatin1Char('\t'), QLatin1Char(' ')); };
  QStringList header;
  for (int c = 0; c < sorted_->columnCount(); ++c) header << escape(sorted_->headerData(c, Qt::Horizontal).toString());
  text += header.join(QLatin1Char('\t')) + QLatin1Char('\n');
  for (int r = 0; r < sorted_->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < sorted_->columnCount(); ++c) row << escape(sorted_->index(r, c).data().toString());
    text += row.join(QLatin1Char('\t')) + QLatin1Char('\n');
  }
  return text;
}

void AdvicePanel::copyTable() const {
  if (QClipboard* clipboard = QGuiApplication::clipboard()) clipboard->setText(tableText());
}

void AdvicePanel::report(const QString& title, const QString& text, bool error) {
  if (messageSink_) messageSink_(title, text, error);
}

bool AdvicePanel::canTrainPlan(QString* why) const {
  QString reason;
  if (!advice_ || advice_->tooShort) {
    reason = tr("No plan to train: there is no advice, or the run is too short to judge.");
  } else if (sourceKind_ == SourceKind::FollowedRun) {
    const bool engineFile = followedIndex_ >= 0 && followedIndex_ < static_cast<int>(followed_.size()) &&
                            followed_[static_cast<size_t>(followedIndex_)].source.source != "probe" &&
                            QFileInfo(q(followed_[static_cast<size_t>(followedIndex_)].target)).isFile();
    if (!engineFile)
      reason = tr("Only a plan for one of AmpScope's own models can be trained here; a followed run's model is "
                  "known only from an ampscope-cli train stream's file.");
  } else if (sourceKind_ == SourceKind::File && advice_->run.kind == "probe-stream") {
    reason = tr("A probed script's plan cannot be trained here: AmpScope trains only its own models. Use the plan "
                "file in your script, or advise a run of AmpScope's.");
  }
  if (why) *why = reason;
  return reason.isEmpty();
}

bool AdvicePanel::trainPlan() {
  const QString title = tr("Train This Plan");
  QString why;
  if (!canTrainPlan(&why)) {
    report(title, why, true);
    return false;
  }
  // The advised run's configuration: its model names the layers the plan may give modes to.
  std::optional<RunConfig> advised;
  if (sourceKind_ == SourceKind::CurrentRun) {
    if (const ui::Session* session = currentRun_ ? currentRun_() : nullptr) advised = session->config;
    if (!advised) why = tr("This AmpScope run has no configuration yet.");
  } else {
    const std::string path = sourceKind_ == SourceKind::File ? filePath_.toStdString()
                                                             : followed_[static_cast<size_t>(followedIndex_)].target;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const FileRunConfig file = engineRunConfigOfFile(path);
    QApplication::restoreOverrideCursor();
    advised = file.config;
    switch (file.missing) {
      case FileRunConfig::Missing::None: break;
      case FileRunConfig::Missing::Unreadable:
        why = tr("%1 does not read: %2").arg(q(path), q(file.detail));
        break;
      case FileRunConfig::Missing::NotEngineStream:
        why = tr("%1 is not a stream of an AmpScope run (a probe's, or one without a header): its model is unknown.")
                  .arg(q(path));
        break;
      case FileRunConfig::Missing::FollowedRunsOnly:
        why = tr("%1 holds no run of AmpScope's own (the advice is on a followed run): its model is unknown.")
                  .arg(q(path));
        break;
    }
  }
  if (!advised) {
    report(title, why, true);
    return false;
  }
  const ModelKind model = advised->model;
  std::vector<std::string> notes;
  std::string error;
  const std::optional<PlanConfig> plan = planConfigOf(planOf(*advice_), model, &notes, &error);
  if (!plan) {
    report(title, tr("The plan cannot be trained on %1: %2").arg(q(modelName(model)), q(error)), true);
    return false;
  }
  // The window's configuration where it is of the same model (what the user set up), else the advised run's.
  RunConfig base = runConfig_ ? runConfig_() : *advised;
  if (base.model != model) base = *advised;
  const RunConfig config = planRunConfig(base, *plan, parseMode(advice_->target));
  if (runActive_ && runActive_()) {
    const bool stop = questionPrompt_ && questionPrompt_(tr("Stop the Run?"),
                                                         tr("A run is training. Stop it and set up the plan's run?"));
    if (!stop) return false;
  }
  emit trainPlanRequested(config);

  QStringList modes;  // the modes' names, as the plan's text names them
  for (PrecisionMode mode : config.modes) modes << ModePalette::name(mode);
  QString text = tr("The Run panel now compares %1 on %2. The plan: %3 by default; %4. Press Run (Space) to train "
                    "them side by side from the same initial weights and batches.")
                     .arg(modes.join(QStringLiteral(", ")), q(modelName(model)), q(modeName(plan->defaultMode)),
                          plan->layers.empty() ? tr("no layer in a mode of its own") : q(planLayersText(plan->layers)));
  for (const std::string& note : notes) text += QStringLiteral("\n") + tr("Note: %1").arg(q(note));
  report(title, text, false);
  return true;
}

}  // namespace ampscope::ui
