// ampscope_gui_bench: what the live-training GUI costs, measured. Not a test.
//
//   ampscope_gui_bench [--seconds S] [--threads 1,2] [--latency-only] [--follow N] [--rate R]
//                                             all three measurements below (--latency-only: the first),
//                                             the latency once per intra-op thread count of the list;
//                                             --follow: the window also follows N local record streams
//                                             (files a writer thread each appends R records/s to,
//                                             default 100) beside the engine's run
//   ampscope_gui_bench --follow-file FILE [--every-records N]
//                                             4. below alone: the main window follows FILE to its end
//   ampscope_gui_bench --screenshots PREFIX   the deep-MLP underflow preset run in the real main window,
//                                             saved as PREFIX-window.png and PREFIX-<panel>.png
//
// 1. Event-loop latency: a 1 ms precise QTimer records how late each timeout fires while the workspace
//    trains six modes of the tiny Transformer with every plot visible (p50 / p99 / max of lateness),
//    and the training's steps/s, at each thread count (RunConfig::threadsPerMode) asked for. Each stall
//    over 50 ms is split into the GUI thread's CPU time, its wait for a core and the rest (asleep or
//    blocked), with the slowest event delivery inside it: the app's stalls and the machine's apart.
// 2. Replot: the loss plot holding 6 series × 100,000 points, QCustomPlot::replotTime() averaged.
// 3. Memory: RSS (/proc/self/statm) while 100,000 synthetic steps of 6 modes, instrumented every step,
//    go through the TelemetryStore and the plots: it must level off, not grow with the step count.
// 4. Memory of a followed run (--follow-file): the main window follows a record stream file (one
//    follow_stream_gen.py writes) as File > Follow Run does; RSS every N records (default 100,000),
//    the peak, and what the store and the kept copy hold at the end (docs/following.md).
#include <QApplication>
#include <QDateTime>
#include <QDockWidget>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <fstream>
#include <sys/resource.h>
#include <time.h>
#include <typeinfo>
#include <unistd.h>
#include <vector>
#include <qcustomplot.h>

#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/stream_follower.h"
#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_workspace.h"
#include "ui/main_window.h"
#include "ui/training/heat_map_plot.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/run_controller.h"
#include "ui/training/scale_plot.h"
#include "ui/training/training_workspace.h"
#include "ui/training/underflow_plot.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

double rssMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// CPU seconds the calling thread has used: how busy the GUI thread really was, independent of how long
// the scheduler kept it waiting on a loaded machine.
double threadCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// CPU time of the calling thread, in ms, finer than getrusage's.
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// Time the calling thread has spent runnable but waiting for a core, in ms (the kernel's schedstat:
// run time, run-queue wait, time slices); 0 where the kernel does not keep it.
double runQueueWaitMs() {
  std::ifstream schedstat("/proc/thread-self/schedstat");
  unsigned long long run = 0, wait = 0;
  schedstat >> run >> wait;
  return static_cast<double>(wait) / 1e6;
}

// One top-level event delivery on the GUI thread: what ran and for how long.
struct Delivery {
  double startMs = 0;  // on the latency clock
  double wallMs = 0;
  double cpuMs = 0;
  std::string what;  // receiver class, object name, event type
};

// Times every top-level event delivery, so a stall between two timer ticks can be put down to the app
// (a handler that computed through it) or to the machine (the thread had no core, or nothing ran).
class TimedApplication : public QApplication {
 public:
  using QApplication::QApplication;
  bool notify(QObject* receiver, QEvent* event) override {
    if (!timing_ || depth_ > 0) {
      ++depth_;
      const bool handled = QApplication::notify(receiver, event);
      --depth_;
      return handled;
    }
    // Named before delivery: a DeferredDelete event frees the receiver inside notify().
    const char* className = receiver->metaObject()->className();
    const QString objectName = receiver->objectName();
    const int type = static_cast<int>(event->type());
    const double cpu0 = threadCpuMs();
    const qint64 t0 = clock_->nsecsElapsed();
    ++depth_;
    const bool handled = QApplication::notify(receiver, event);
    --depth_;
    const double wall = static_cast<double>(clock_->nsecsElapsed() - t0) / 1e6;
    if (wall >= 5.0) {
      Delivery d;
      d.startMs = static_cast<double>(t0) / 1e6;
      d.wallMs = wall;
      d.cpuMs = threadCpuMs() - cpu0;
      d.what = std::string(className) + " '" + objectName.toStdString() + "' event " + std::to_string(type);
      slow_.push_back(std::move(d));
    }
    return handled;
  }
  void startTiming(const QElapsedTimer* clock) {
    clock_ = clock;
    slow_.clear();
    timing_ = true;
  }
  void stopTiming() { timing_ = false; }
  const std::vector<Delivery>& slowDeliveries() const { return slow_; }

 private:
  const QElapsedTimer* clock_ = nullptr;
  bool timing_ = false;
  int depth_ = 0;
  std::vector<Delivery> slow_;  // deliveries of 5 ms or more while timing
};

// A gap between two 1 ms ticks, with what the GUI thread did during it.
struct Gap {
  double endMs = 0;
  double wallMs = 0;
  double cpuMs = 0;
  double queuedMs = 0;  // runnable, waiting for a core
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

void pump(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 5);
}

const std::vector<PrecisionMode> kSixModes = {PrecisionMode::FP32,    PrecisionMode::FP16AmpScaled,
                                              PrecisionMode::FP16Amp, PrecisionMode::BF16Amp,
                                              PrecisionMode::FP16Pure, PrecisionMode::BF16Pure};

// A training script's stream, as far as the window can tell: a probe header, then one record every
// 1/rate s (seq and wall-time set), appended to `path` until `stop`.
void writeStream(const std::string& path, int index, double rate, const std::atomic<bool>& stop) {
  StreamSource source;
  source.source = "probe";
  source.run = "stream " + std::to_string(index + 1);
  char id[17];
  std::snprintf(id, sizeof id, "%016x", 0xf0110 + index);
  source.runId = id;
  source.every = 1;
  source.device = "cpu";
  source.torch = "none";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << probeStreamHeader(source, "ampscope_gui_bench");
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  const auto start = std::chrono::steady_clock::now();
  int64_t seq = 0;
  std::string line;
  while (!stop) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    while (seq < static_cast<int64_t>(elapsed * rate)) {
      ModeStep s;
      s.mode = PrecisionMode::FP16AmpScaled;
      s.step = ++seq;
      s.seq = seq;
      s.loss = 1.0 / static_cast<double>(seq);
      s.lossScale = 65536;
      s.lr = 0.1;
      s.wallTime = static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
      line.clear();
      appendRecordStreamLine(line, s);
      out << line;
    }
    out.flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Each stall over 50 ms, longest first, split by the kernel's account of the GUI thread inside it: CPU
// time (the app computing), run-queue wait (runnable, but another thread or process had the core: the
// machine) and the rest (asleep or blocked: waiting on a lock or I/O is the app's; an idle event loop
// cannot take 50 ms while a 1 ms timer is due). The slowest event delivery overlapping it names the
// handler.
void printStalls(std::vector<Gap> gaps, const std::vector<Delivery>& slow) {
  std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) { return a.wallMs > b.wallMs; });
  int computing = 0, queued = 0, blocked = 0;
  for (const Gap& g : gaps) {
    const double rest = g.wallMs - g.cpuMs - g.queuedMs;
    if (g.cpuMs >= g.queuedMs && g.cpuMs >= rest)
      ++computing;
    else if (g.queuedMs >= rest)
      ++queued;
    else
      ++blocked;
  }
  std::printf("  stalls over 50 ms: %zu; mostly computing: %d, mostly waiting for a core: %d, mostly asleep or "
              "blocked: %d\n",
              gaps.size(), computing, queued, blocked);
  for (size_t i = 0; i < gaps.size() && i < 8; ++i) {
    const Gap& g = gaps[i];
    const Delivery* worst = nullptr;
    for (const Delivery& d : slow)
      if (d.startMs < g.endMs && d.startMs + d.wallMs > g.endMs - g.wallMs && (!worst || d.wallMs > worst->wallMs))
        worst = &d;
    std::printf("    %6.1f ms at %6.2f s: CPU %5.1f, waiting for a core %5.1f, asleep/blocked %5.1f ms; slowest "
                "event: ",
                g.wallMs, (g.endMs - g.wallMs) / 1e3, g.cpuMs, g.queuedMs, g.wallMs - g.cpuMs - g.queuedMs);
    if (worst)
      std::printf("%s, %.1f ms wall / %.1f ms CPU\n", worst->what.c_str(), worst->wallMs, worst->cpuMs);
    else
      std::printf("none of 5 ms or more\n");
  }
}

void measureLatency(double seconds, int threads, int follows, double rate) {
  MainWindow window;
  QTemporaryDir streams;
  std::atomic<bool> stopStreams{false};
  std::vector<std::thread> writers;
  for (int i = 0; i < follows; ++i) {
    const std::string path = streams.filePath(QStringLiteral("stream%1.jsonl").arg(i)).toStdString();
    writers.emplace_back(writeStream, path, i, rate, std::cref(stopStreams));
  }
  window.setLayoutPersistence(false);
  window.resize(1600, 1000);
  window.show();
  TrainingWorkspace* ws = window.trainingWorkspace();
  RunConfig config = presetFor(ModelKind::TinyTransformer);
  config.modes = kSixModes;
  config.steps = 1000000;
  config.threadsPerMode = threads;
  ws->applyConfig(config);
  for (int i = 0; i < follows; ++i) {
    std::string error;
    const auto target =
        parseFollowTarget(streams.filePath(QStringLiteral("stream%1.jsonl").arg(i)).toStdString(), &error);
    if (target) window.followWorkspace()->follow(*target);
  }
  ws->runOrPause();
  pump(500);  // warm-up: the first steps pay allocation and start-up

  std::vector<double> lateness;
  QElapsedTimer clock;
  QTimer tick;
  tick.setObjectName(QStringLiteral("benchTick"));
  tick.setTimerType(Qt::PreciseTimer);
  tick.setInterval(1);
  qint64 last = -1;
  double lastCpu = 0;
  double lastQueued = 0;
  std::vector<Gap> gaps;  // those over 50 ms
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    const double cpu = threadCpuMs();
    const double queued = runQueueWaitMs();
    if (last >= 0) {
      const double gap = static_cast<double>(now - last) / 1e6;
      lateness.push_back(std::max(0.0, gap - 1.0));
      if (gap > 50) gaps.push_back({static_cast<double>(now) / 1e6, gap, cpu - lastCpu, queued - lastQueued});
    }
    last = now;
    lastCpu = cpu;
    lastQueued = queued;
  });
  auto* app = static_cast<TimedApplication*>(QCoreApplication::instance());
  const int64_t stepsBefore = ws->store()->lastStep();
  const double cpuBefore = threadCpuSeconds();
  int drains = 0;
  QObject::connect(ws->controller(), &RunController::dataAppended, [&] { ++drains; });
  clock.start();
  app->startTiming(&clock);
  tick.start();
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  tick.stop();
  app->stopTiming();
  const double cpu = threadCpuSeconds() - cpuBefore;
  const int64_t steps = ws->store()->lastStep() - stepsBefore;
  std::printf("event-loop latency, six modes training tiny-transformer, %d intra-op thread%s (%.0f s, %lld "
              "lock-steps, %.1f steps/s):\n",
              threads, threads == 1 ? "" : "s", seconds, static_cast<long long>(steps),
              static_cast<double>(steps) / seconds);
  if (follows > 0) {
    int64_t followed = 0;
    for (const auto& f : window.followWorkspace()->controller()->follows()) followed += f->records;
    std::printf("  following %d local streams at %.0f records/s each: %lld records arrived in all\n", follows, rate,
                static_cast<long long>(followed));
  }
  std::printf("  1 ms timer lateness over %zu ticks: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", lateness.size(),
              percentile(lateness, 0.50), percentile(lateness, 0.99), percentile(lateness, 1.0));
  std::printf("  longest stall (largest gap between ticks): %.1f ms\n", percentile(lateness, 1.0) + 1.0);
  std::printf("  GUI thread CPU: %.2f s of %.0f s wall (%.0f%% busy, incl. the 1 ms timer itself); %d drains\n", cpu,
              seconds, 100.0 * cpu / seconds, drains);
  std::printf("  machine load average while measuring: see `uptime` (lateness includes waiting for a core)\n");
  printStalls(gaps, app->slowDeliveries());
  ws->shutdown();
  stopStreams = true;
  for (std::thread& t : writers) t.join();
}

void measureReplot() {
  StoreLimits limits;
  limits.recentSteps = 100000;  // hold all 100,000 points at full resolution: the worst case
  TelemetryStore store(limits);
  test::SyntheticOptions o;
  o.modes = kSixModes;
  o.instrumentEvery = 0;
  for (int64_t s = 1; s <= 100000; ++s) store.append(test::syntheticRecord(s, o));
  LossPlot plot(&store);
  plot.resize(1200, 700);
  plot.show();
  plot.onDataAppended();
  int points = 0;
  for (PrecisionMode m : kSixModes) points += plot.lossGraph(m)->dataCount();
  std::vector<double> times;
  for (int i = 0; i < 30; ++i) {
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    times.push_back(plot.plot()->replotTime(false));
  }
  std::printf("loss plot replot, %d points in 6 series (1200x700 px, adaptive sampling): median %.2f ms, max %.2f ms\n",
              points, percentile(times, 0.5), percentile(times, 1.0));
  plot.plot()->xAxis->setRange(40000, 60000);
  times.clear();
  for (int i = 0; i < 30; ++i) {
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    times.push_back(plot.plot()->replotTime(false));
  }
  std::printf("  zoomed to 20,000 steps: median %.2f ms, max %.2f ms\n", percentile(times, 0.5), percentile(times, 1.0));
}

void measureMemory() {
  TelemetryStore store;  // default limits: 20,000 recent steps per mode
  LossPlot loss(&store);
  ScalePlot scale(&store);
  HistogramPlot histogram(&store);
  UnderflowPlot underflow(&store);
  for (PlotPanel* p : std::initializer_list<PlotPanel*>{&loss, &scale, &histogram, &underflow}) p->show();
  test::SyntheticOptions o;
  o.modes = kSixModes;
  o.instrumentEvery = 1;
  std::printf("memory, 6 modes instrumented every step through store + 4 plots (RSS):\n");
  std::printf("  before: %.1f MiB\n", rssMiB());
  QElapsedTimer t;
  t.start();
  for (int64_t s = 1; s <= 100000; ++s) {
    store.append(test::syntheticRecord(s, o));
    if (s % 100 == 0) {  // ~ what one 33 ms drain brings at 3000 steps/s
      for (PlotPanel* p : std::initializer_list<PlotPanel*>{&loss, &scale, &histogram, &underflow}) p->onDataAppended();
      QApplication::processEvents();
    }
    if (s % 10000 == 0) std::printf("  after %6lld steps: %.1f MiB\n", static_cast<long long>(s), rssMiB());
  }
  std::printf("  (%.1f s); loss plot holds %d points per mode\n", t.elapsed() / 1000.0,
              loss.lossGraph(PrecisionMode::FP32)->dataCount());
}

double peakRssMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

int measureFollowMemory(const QString& path, int64_t every) {
  MainWindow window;
  window.setLayoutPersistence(false);
  window.resize(1280, 800);
  window.show();
  std::string error;
  const auto target = parseFollowTarget(path.toStdString(), &error);
  if (!target) {
    std::fprintf(stderr, "ampscope_gui_bench: --follow-file: %s\n", error.c_str());
    return 2;
  }
  std::printf("following %s in the main window (RSS):\n  before: %.1f MiB\n", path.toStdString().c_str(), rssMiB());
  FollowController* controller = window.followWorkspace()->controller();
  const int id = window.followWorkspace()->follow(*target);
  QElapsedTimer t;
  t.start();
  QElapsedTimer idle;
  idle.start();
  int64_t next = every, last = -1;
  for (;;) {
    QApplication::processEvents(QEventLoop::AllEvents, 50);
    const FollowController::Follow* f = controller->followById(id);
    const int64_t records = f ? f->records : 0;
    for (; records >= next; next += every)
      std::printf("  after %8lld records: %7.1f MiB (%.1f s)\n", static_cast<long long>(next), rssMiB(),
                  t.elapsed() / 1000.0);
    if (records != last) {
      last = records;
      idle.restart();
    } else if (idle.elapsed() > 5000) {
      break;  // the file's end: nothing more for 5 s
    }
  }
  std::printf("  end: %lld records in %.1f s; RSS %.1f MiB, peak %.1f MiB\n", static_cast<long long>(last),
              t.elapsed() / 1000.0 - 5.0, rssMiB(), peakRssMiB());
  for (const FollowController::Run& run : controller->runs()) {
    std::printf("  kept copy (saving, journal): %zu steps, %zu with tensors, %zu tensor entries (stride %llu)\n",
                run.steps.size(), run.instrumented, run.tensorEntries, static_cast<unsigned long long>(run.stride));
  }
  const TelemetryStore& store = *window.trainingWorkspace()->store();
  for (const SeriesKey& key : store.seriesKeys()) {
    const ModeSeries* s = store.series(key);
    if (key.run == kEngineRun || !s) continue;
    std::printf("  store: %lld steps seen, %zu buckets of up to %zu steps, %zu recent; %zu instrument buckets, %zu "
                "recent; %zu layers; %zu heat-map columns\n",
                static_cast<long long>(s->stepsSeen), s->buckets.size(), s->bucketWidth, s->recent.size(),
                s->instrumentBuckets.size(), s->instruments.size(), s->layers.size(), s->histogramRing.size());
  }
  std::printf("  status bar: %s\n  tooltip: %s\n", controller->statusText(id).toStdString().c_str(),
              controller->statusToolTip(id).replace(QLatin1Char('\n'), QStringLiteral(" | ")).toStdString().c_str());
  return 0;
}

int screenshots(const QString& prefix) {
  MainWindow window;
  window.setLayoutPersistence(false);
  window.resize(1600, 1000);
  window.show();
  TrainingWorkspace* ws = window.trainingWorkspace();
  RunConfig config = presetFor(ModelKind::DeepMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
  config.instrumentEvery = 5;
  ws->applyConfig(config);
  ws->runOrPause();
  QElapsedTimer t;
  t.start();
  while (ws->controller()->state() != RunState::Finished && ws->controller()->state() != RunState::Failed &&
         t.elapsed() < 300000)
    pump(100);
  pump(500);
  std::printf("run: %s after %lld steps in %.1f s\n", runStateName(ws->controller()->state()).c_str(),
              static_cast<long long>(ws->store()->lastStep()), t.elapsed() / 1000.0);
  window.grab().save(prefix + QStringLiteral("-window.png"));
  for (const char* id : {"loss", "scale", "histogram", "heatmap", "underflow", "op-dtype", "memory", "run"}) {
    ws->raisePanel(QLatin1String(id));
    pump(300);
    QDockWidget* dock = ws->dock(QLatin1String(id));
    // A lone panel at a readable size, as a class would see it enlarged on the projector.
    QWidget* content = dock->widget();
    dock->setFloating(true);
    dock->resize(1100, 650);
    pump(400);
    content->grab().save(prefix + QStringLiteral("-") + QLatin1String(id) + QStringLiteral(".png"));
    dock->setFloating(false);
    pump(100);
  }
  ws->histogramPlot()->setScaled(false);
  ws->dock(QStringLiteral("histogram"))->setFloating(true);
  ws->dock(QStringLiteral("histogram"))->resize(1100, 650);
  pump(400);
  ws->histogramPlot()->grab().save(prefix + QStringLiteral("-histogram-unscaled.png"));
  ws->shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  TimedApplication app(argc, argv);
  const QStringList args = QApplication::arguments();
  const int shots = static_cast<int>(args.indexOf(QStringLiteral("--screenshots")));
  if (shots >= 0 && shots + 1 < args.size()) return screenshots(args.at(shots + 1));
  double seconds = 10;
  const int secondsAt = static_cast<int>(args.indexOf(QStringLiteral("--seconds")));
  if (secondsAt >= 0 && secondsAt + 1 < args.size()) seconds = args.at(secondsAt + 1).toDouble();
  std::vector<int> threads = {1};
  const int threadsAt = static_cast<int>(args.indexOf(QStringLiteral("--threads")));
  if (threadsAt >= 0 && threadsAt + 1 < args.size()) {
    threads.clear();
    for (const QString& n : args.at(threadsAt + 1).split(QLatin1Char(','))) threads.push_back(std::max(1, n.toInt()));
  }
  int follows = 0;
  const int followAt = static_cast<int>(args.indexOf(QStringLiteral("--follow")));
  if (followAt >= 0 && followAt + 1 < args.size()) follows = std::max(0, args.at(followAt + 1).toInt());
  double rate = 100;
  const int rateAt = static_cast<int>(args.indexOf(QStringLiteral("--rate")));
  if (rateAt >= 0 && rateAt + 1 < args.size()) rate = std::max(1.0, args.at(rateAt + 1).toDouble());
  std::printf("CPU: %s, %ld cores online\n", cpuIdentity().first.c_str(), sysconf(_SC_NPROCESSORS_ONLN));
  const int followFileAt = static_cast<int>(args.indexOf(QStringLiteral("--follow-file")));
  if (followFileAt >= 0 && followFileAt + 1 < args.size()) {
    int64_t every = 100000;
    const int everyAt = static_cast<int>(args.indexOf(QStringLiteral("--every-records")));
    if (everyAt >= 0 && everyAt + 1 < args.size()) every = std::max<qint64>(1, args.at(everyAt + 1).toLongLong());
    return measureFollowMemory(args.at(followFileAt + 1), every);
  }
  if (!args.contains(QStringLiteral("--latency-only"))) {
    measureReplot();
    measureMemory();
  }
  for (int n : threads) measureLatency(seconds, n, follows, rate);
  return 0;
}
