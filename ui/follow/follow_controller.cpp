#include "ui/follow/follow_controller.h"

#include <QCoreApplication>
#include <QDateTime>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/telemetry_store.h"

namespace ampscope::ui {

namespace {

double nowSeconds() { return static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

// The run's name as the stream gives it, with its rank when the stream is one rank's of several.
QString runLabel(const QString& userLabel, const StreamSource& source, const QString& fallback) {
  QString base = userLabel;
  if (base.isEmpty()) base = QString::fromStdString(source.run);
  if (base.isEmpty()) base = fallback;
  if (source.ranks == "per-rank")
    return QCoreApplication::translate("FollowController", "%1 rank %2").arg(base).arg(source.rank);
  return base;
}

}  // namespace

FollowController::FollowController(TelemetryStore* store, QObject* parent) : QObject(parent), store_(store) {
  timer_.setInterval(kPollIntervalMs);
  timer_.setObjectName(QStringLiteral("followPollTimer"));
  connect(&timer_, &QTimer::timeout, this, [this] { poll(); });
}

FollowController::~FollowController() = default;

void FollowController::setPolling(bool on) {
  if (on && !follows_.empty())
    timer_.start();
  else
    timer_.stop();
}

int FollowController::follow(const FollowTarget& target, const QString& label, RecordStreamReader::Limits limits) {
  // The same stream twice would show every step twice.
  for (const auto& existing : follows_)
    if (existing->target.text() == target.text()) return existing->id;
  auto f = std::make_unique<Follow>();
  f->id = nextFollow_++;
  f->target = target;
  f->label = label.trimmed();
  f->follower = std::make_unique<StreamFollower>(target, limits);
  // A run this target fed before (stopped, or restored): if the stream names its run-id, it continues
  // where that run ended.
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) {
    if (it->live || it->target.toStdString() != target.text() || it->source.runId.empty()) continue;
    f->follower->reader().resume(it->position);
    break;
  }
  const int id = f->id;
  follows_.push_back(std::move(f));
  if (!timer_.isActive()) timer_.start();
  emit followsChanged();
  return id;
}

const FollowController::Follow* FollowController::followById(int id) const {
  for (const auto& f : follows_)
    if (f->id == id) return f.get();
  return nullptr;
}

void FollowController::stop(int followId) {
  auto it = std::find_if(follows_.begin(), follows_.end(), [followId](const auto& f) { return f->id == followId; });
  if (it == follows_.end()) return;
  poll();  // what already arrived is kept
  (*it)->follower->close();
  for (Run& run : runs_)
    if (run.follow == followId) {
      run.live = false;
      run.follow = -1;
    }
  follows_.erase(it);
  if (follows_.empty()) timer_.stop();
  emit followsChanged();
  emit statusChanged();
}

void FollowController::stopAll() {
  while (!follows_.empty()) stop(follows_.front()->id);
}

void FollowController::clear() {
  for (auto& f : follows_) f->follower->close();
  follows_.clear();
  for (const Run& run : runs_) store_->removeRun(run.storeRun);
  runs_.clear();
  timer_.stop();
  emit followsChanged();
  emit statusChanged();
}

int FollowController::startRun(Follow& follow) {
  const RecordStream& header = follow.follower->reader().header();
  Run run;
  run.source = header.source;
  run.target = QString::fromStdString(follow.target.text());
  run.label = runLabel(follow.label, run.source, run.target);
  run.follow = follow.id;
  run.position.runId = run.source.runId;
  run.journalKey = nextJournalKey_++;
  run.storeRun = store_->addRun(run.label.toStdString());
  runs_.push_back(std::move(run));
  follow.run = static_cast<int>(runs_.size()) - 1;
  emit followsChanged();
  return follow.run;
}

void FollowController::keep(Run& run, const std::vector<ModeStep>& steps) {
  for (const ModeStep& step : steps) {
    run.position.add(step);
    if (!run.divergedAt && (step.diverged || !std::isfinite(step.loss))) run.divergedAt = step.step;
    // Steps the scaler skipped always stay: the non-finite table and the loss scale need them.
    const bool keepIt = step.skipped || step.foundInf || run.arrived++ % run.stride == 0;
    if (!keepIt) continue;
    run.steps.push_back(step);
    if (!step.tensors.empty()) ++run.instrumented;
    run.tensorEntries += step.tensors.size();
  }
  if (run.steps.size() > kMaxSteps) {
    std::vector<ModeStep> thinned;
    thinned.reserve(run.steps.size() / 2 + 1);
    run.instrumented = 0;
    run.tensorEntries = 0;
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
      if (i % 2 != 0 && !run.steps[i].skipped && !run.steps[i].foundInf) continue;
      if (!run.steps[i].tensors.empty()) ++run.instrumented;
      run.tensorEntries += run.steps[i].tensors.size();
      thinned.push_back(std::move(run.steps[i]));
    }
    run.steps.swap(thinned);
    run.stride *= 2;
    ++run.generation;
  }
  if (run.instrumented > kMaxInstrumentedSteps || run.tensorEntries > kMaxTensorEntries) {
    // Every other instrumented step gives up its tensors (its scalars stay).
    std::size_t seen = 0;
    run.instrumented = 0;
    run.tensorEntries = 0;
    ++run.generation;
    for (ModeStep& s : run.steps) {
      if (s.tensors.empty()) continue;
      if (seen++ % 2 == 1 && !s.skipped) {
        s.tensors.clear();
        s.tensors.shrink_to_fit();
      } else {
        ++run.instrumented;
        run.tensorEntries += s.tensors.size();
      }
    }
  }
}

bool FollowController::poll() {
  bool any = false;
  bool status = false;
  std::vector<std::pair<FollowTarget, QString>> ranksToFollow;
  for (auto& fp : follows_) {
    Follow& f = *fp;
    const auto stateBefore = f.follower->state();
    status = f.follower->poll() || status;
    status = status || f.follower->state() != stateBefore;
    RecordStreamReader& reader = f.follower->reader();
    for (const RecordError& e : reader.takeErrors()) f.lastError = QString::fromStdString(e.text());
    const bool restarted = reader.headerChanged();
    std::vector<ModeStep> steps = reader.takeSteps();
    f.malformed = reader.malformed() + reader.oversized();
    f.dropped = reader.dropped();
    if (!reader.hasHeader()) continue;
    const std::string& runId = reader.header().source.runId;
    if (f.run < 0 || restarted || runs_[static_cast<std::size_t>(f.run)].source.runId != runId) {
      if (f.run >= 0) {
        runs_[static_cast<std::size_t>(f.run)].live = false;
        runs_[static_cast<std::size_t>(f.run)].follow = -1;
      }
      // The run this target fed before, if the stream names its run-id (the reader resumed it), goes on.
      const std::string target = f.target.text();
      int earlier = -1;
      for (int i = static_cast<int>(runs_.size()) - 1; i >= 0 && !runId.empty(); --i) {
        const Run& r = runs_[static_cast<std::size_t>(i)];
        if (!r.live && r.follow < 0 && r.source.runId == runId && r.target.toStdString() == target) {
          earlier = i;
          break;
        }
      }
      if (earlier >= 0) {
        Run& r = runs_[static_cast<std::size_t>(earlier)];
        r.live = true;
        r.follow = f.id;
        f.run = earlier;
        emit followsChanged();
      } else {
        startRun(f);
      }
    }
    if (!f.ranksLooked) {
      f.ranksLooked = true;
      const StreamSource& source = reader.header().source;
      if (source.ranks == "per-rank")
        for (FollowTarget& other : otherRankTargets(f.target, source.rank, source.worldSize))
          ranksToFollow.emplace_back(std::move(other), f.label);
    }
    if (steps.empty()) continue;
    Run& run = runs_[static_cast<std::size_t>(f.run)];
    f.records += static_cast<int64_t>(steps.size());
    f.lastArrival = nowSeconds();
    store_->appendFollowed(run.storeRun, steps);
    keep(run, steps);
    emit stepsArrived(f.run, steps);
    any = true;
  }
  for (auto& [target, label] : ranksToFollow) {
    // follow() returns the existing follow of a target already followed; either way that rank's
    // siblings are this one's, so it need not look for them again.
    const int id = follow(target, label);
    for (auto& f : follows_)
      if (f->id == id) f->ranksLooked = true;
  }
  if (any) emit dataAppended();
  if (any || status || !ranksToFollow.empty()) emit statusChanged();
  return any;
}

std::vector<FollowedRun> FollowController::followedRuns() const {
  std::vector<FollowedRun> out;
  out.reserve(runs_.size());
  for (const Run& run : runs_) {
    FollowedRun f;
    f.source = run.source;
    if (f.source.run.empty()) f.source.run = run.label.toStdString();
    f.target = run.target.toStdString();
    f.steps = run.steps;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<AutosaveManager::FollowedView> FollowController::journalViews() const {
  std::vector<AutosaveManager::FollowedView> views;
  views.reserve(runs_.size());
  for (const Run& run : runs_)
    views.push_back({run.journalKey, run.generation, &run.source, run.target.toStdString(), &run.steps});
  return views;
}

void FollowController::restore(const std::vector<FollowedRun>& saved) {
  for (const FollowedRun& f : saved) {
    Run run;
    run.source = f.source;
    run.target = QString::fromStdString(f.target);
    run.label = tr("%1 (saved)").arg(runLabel(QString(), f.source, run.target));
    run.live = false;
    run.position.runId = f.source.runId;
    run.journalKey = nextJournalKey_++;
    run.storeRun = store_->addRun(run.label.toStdString());
    store_->appendFollowed(run.storeRun, f.steps);
    keep(run, f.steps);
    runs_.push_back(std::move(run));
    emit stepsArrived(static_cast<int>(runs_.size()) - 1, f.steps);
  }
  emit followsChanged();
  emit dataAppended();
}

bool FollowController::diverged(int followId) const {
  const Follow* f = followById(followId);
  return f && f->run >= 0 && runs_[static_cast<std::size_t>(f->run)].divergedAt.has_value();
}

QString FollowController::stateWord(const Follow& f) {
  switch (f.follower->state()) {
    case StreamFollower::State::Connected: return tr("connected");
    case StreamFollower::State::Waiting:
      return f.follower->bytesReceived() > 0 ? tr("reconnecting") : tr("waiting");
    case StreamFollower::State::Closed: return tr("closed");
  }
  return {};
}

QString FollowController::statusText(int followId) const {
  const Follow* f = followById(followId);
  if (!f) return {};
  const QString name = f->run >= 0 ? runs_[static_cast<std::size_t>(f->run)].label
                                   : (f->label.isEmpty() ? QString::fromStdString(f->target.text()) : f->label);
  QString state = stateWord(*f);
  const double now = nowSeconds();
  if (f->follower->state() == StreamFollower::State::Connected && f->lastArrival > 0 &&
      now - f->lastArrival > kStalledSeconds)
    state = tr("stalled");
  QString text = tr("%1: %2 · %3 records · %4 dropped · %5 malformed")
                     .arg(name, state)
                     .arg(f->records)
                     .arg(f->dropped)
                     .arg(f->malformed);
  if (const auto wall = f->follower->reader().lastWallTime(); wall && *wall > 0)
    text += tr(" · lag %1 s").arg(QString::fromStdString(numberText(std::round(std::max(0.0, now - *wall) * 10.0) / 10.0)));
  if (diverged(followId)) text += tr(" · diverged");
  const FoldedEntries& folded = f->follower->reader().folded();
  if (folded.any()) text += tr(" · %1 entries folded").arg(folded.entries());
  return text;
}

QString FollowController::statusToolTip(int followId) const {
  const Follow* f = followById(followId);
  if (!f) return {};
  QStringList lines;
  lines << QString::fromStdString(f->follower->stateText());
  if (!f->follower->lastError().empty()) lines << QString::fromStdString(f->follower->lastError());
  lines << tr("%n reconnect(s)", nullptr, static_cast<int>(f->follower->reconnects()));
  if (!f->lastError.isEmpty()) lines << tr("Last stream error: %1").arg(f->lastError);
  const RecordStreamReader& reader = f->follower->reader();
  if (reader.folded().any()) {
    const FoldedEntries& folded = reader.folded();
    const RecordBudget budget;
    lines << tr("Record budget: %n record(s) held longer lists than kept (the first %1 tensors, %2 rounding "
                "points, %3 quantized tensors and %4 names of each record are kept); folded: %5 tensor "
                "entries (%6 parameter gradients, their histograms summed), %7 rounding points (their counts "
                "summed), %8 quantized tensors and %9 non-finite names",
                nullptr, static_cast<int>(std::min<int64_t>(reader.foldedRecords(), INT32_MAX)))
                 .arg(budget.tensors)
                 .arg(budget.roundingPoints)
                 .arg(budget.quantized)
                 .arg(budget.names)
                 .arg(folded.tensors)
                 .arg(folded.parameters)
                 .arg(folded.roundingPoints)
                 .arg(folded.quantized)
                 .arg(folded.names);
  }
  if (f->run >= 0) {
    const Run& run = runs_[static_cast<std::size_t>(f->run)];
    for (const SeriesKey& key : store_->seriesKeys()) {
      if (key.run != run.storeRun) continue;
      const ModeSeries* s = store_->series(key);
      if (!s || s->buckets.empty()) continue;
      lines << tr("%1: steps %2–%3 folded into %4 buckets (loss min, max and mean, summed counts); the last "
                  "%5 steps at full resolution")
                   .arg(QString::fromStdString(modeName(key.mode)))
                   .arg(s->buckets.front().firstStep)
                   .arg(s->buckets.back().lastStep)
                   .arg(s->buckets.size())
                   .arg(s->recent.size());
    }
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace ampscope::ui
