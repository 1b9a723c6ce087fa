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
//    and the training's steps/s, at each thread count (RunConfig::threadsPerMode) asked for.
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
  tick.setTimerType(Qt::PreciseTimer);
  tick.setInterval(1);
  qint64 last = -1;
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    if (last >= 0) lateness.push_back(std::max(0.0, (now - last) / 1e6 - 1.0));
    last = now;
  });
  const int64_t stepsBefore = ws->store()->lastStep();
  const double cpuBefore = threadCpuSeconds();
  int drains = 0;
  QObject::connect(ws->controller(), &RunController::dataAppended, [&] { ++drains; });
  clock.start();
  tick.start();
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  tick.stop();
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
  QApplication app(argc, argv);
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
