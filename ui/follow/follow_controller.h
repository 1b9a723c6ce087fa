// FollowController: the training runs AmpScope follows from outside: a training script's record stream
// read from a growing file or a TCP port. One StreamFollower per target, polled by a timer on the GUI
// thread (the follower never blocks); what arrives goes into the TelemetryStore as followed runs, and a
// full-resolution copy of every run's steps is kept (bounded like the session recorder) for saving.
//
// A stream whose header says ranks "per-rank" is shown as "<run> rank R", and the other ranks' streams
// (by the probe's naming: "<stem>.rank<R>..." files, base port + R) are followed too, so following one
// rank shows them all side by side. A new run-id on the same
// target (the script was restarted) starts a new run; the old one stays. Runs restored from a session
// are not live: they carry a "saved" mark and have no follower. Following a target again whose earlier
// run (stopped, or restored from a session or the autosave journal) has a run-id continues that run when
// the stream's header names the same run-id: the reader starts where the run ended (by seq, or by each
// mode's step for the engine's streams), so nothing arrives twice.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/record_stream_reader.h"
#include "ampscope/engine/session_codec.h"
#include "ampscope/engine/stream_follower.h"
#include "ampscope/engine/telemetry.h"
#include "ui/session/autosave_manager.h"

namespace ampscope {
class TelemetryStore;
}  // namespace ampscope

namespace ampscope::ui {

class FollowController : public QObject {
  Q_OBJECT
 public:
  // Full-resolution steps kept per run for saving; past this every other one is dropped (as the session
  // recorder thins). Instrumented steps keep their tensors up to kMaxInstrumentedSteps steps and
  // kMaxTensorEntries tensor entries in all (follow_budget.h holds the figures).
  static constexpr std::size_t kMaxSteps = kMaxKeptSteps;
  static constexpr std::size_t kMaxInstrumentedSteps = kMaxKeptInstrumentedSteps;
  static constexpr std::size_t kMaxTensorEntries = kMaxKeptTensorEntries;
  static constexpr int kPollIntervalMs = 100;
  // A connected stream that sent nothing for this long reads as "stalled".
  static constexpr double kStalledSeconds = 30.0;

  // One run: a series source in the store.
  struct Run {
    int storeRun = 0;             // the store's run id
    QString label;                // "my-run", "my-run rank 1"
    StreamSource source;
    QString target;               // what it was followed from
    std::vector<ModeStep> steps;  // full resolution (thinned past kMaxSteps)
    bool live = true;             // false: restored from a session
    int follow = -1;              // the follow that feeds it (-1: none)
    uint64_t stride = 1;          // keep every stride-th arriving step
    uint64_t arrived = 0;
    std::size_t instrumented = 0;
    std::size_t tensorEntries = 0;  // tensor entries of the kept steps
    std::optional<int64_t> divergedAt;  // first step whose loss was NaN/Inf or that the writer marked diverged
    RecordStreamReader::Position position;  // run-id, highest seq and step per mode of what arrived
    uint64_t journalKey = 0;  // unique per run in this controller (the autosave journal's file identity)
    uint64_t generation = 0;  // changes when kept steps were replaced (thinning), not when appended
  };

  // One followed target.
  struct Follow {
    int id = 0;
    FollowTarget target;
    QString label;  // the user's label; empty: the stream's own run name
    std::unique_ptr<StreamFollower> follower;
    int run = -1;   // index into runs() of the run it feeds now (-1: no header yet)
    int64_t records = 0, dropped = 0, malformed = 0;
    QString lastError;
    double lastArrival = 0;  // seconds since the epoch of the last record's arrival (0: none yet)
    bool ranksLooked = false;  // the other ranks of a per-rank stream were looked for
  };

  explicit FollowController(TelemetryStore* store, QObject* parent = nullptr);
  ~FollowController() override;

  // Starts following; returns the follow id (that of the existing follow when the target is already
  // followed). `label` empty: the stream's run name.
  int follow(const FollowTarget& target, const QString& label = QString(),
             RecordStreamReader::Limits limits = {});
  void stop(int followId);  // stops reading; the run's data stays (not live)
  void stopAll();
  // Forgets every run and follow (a session was opened, or the store was cleared).
  void clear();

  // Reads what every follower has (no blocking) and feeds the store. True when any step arrived.
  // The timer calls it every kPollIntervalMs; tests call it directly.
  bool poll();
  void setPolling(bool on);

  // Runs for saving, and restoring saved ones (not live).
  std::vector<FollowedRun> followedRuns() const;
  // The runs as the autosave journals them (AutosaveManager::setFollowedSource), in runs() order.
  std::vector<AutosaveManager::FollowedView> journalViews() const;
  void restore(const std::vector<FollowedRun>& runs);

  const std::vector<Run>& runs() const { return runs_; }
  const std::vector<std::unique_ptr<Follow>>& follows() const { return follows_; }
  const Follow* followById(int id) const;
  // Status of one follow for the status bar: "my-run: connected · 120 records · 0 dropped · 0 malformed ·
  // lag 0.4 s" (and "· 199,000 entries folded" when the record budget folded any), and its tooltip (the
  // follower's own words, the last stream error, what the budget folded and which steps the store
  // holds as buckets).
  QString statusText(int followId) const;
  QString statusToolTip(int followId) const;
  // True when the run a follow feeds has diverged (NaN/Inf loss).
  bool diverged(int followId) const;

 signals:
  void dataAppended();        // new steps are in the store
  void followsChanged();      // a follow started or stopped, a run appeared or was restored
  void stepsArrived(int runIndex, const std::vector<ampscope::ModeStep>& steps);  // for the non-finite table
  void statusChanged();       // counters or states moved

 private:
  int startRun(Follow& follow);
  void keep(Run& run, const std::vector<ModeStep>& steps);
  static QString stateWord(const Follow& follow);

  TelemetryStore* store_;
  QTimer timer_;
  std::vector<std::unique_ptr<Follow>> follows_;
  std::vector<Run> runs_;
  int nextFollow_ = 1;
  uint64_t nextJournalKey_ = 1;
};

}  // namespace ampscope::ui
