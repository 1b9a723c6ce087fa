// ampscope_session_bench: what opening a long session and the autosave journal cost, measured. Not a test.
//
//   ampscope_session_bench make RUN.jsonl OUT.ampscope
//       A session from a record stream (`ampscope-cli train --jsonl`): the steps grouped into records.
//   ampscope_session_bench open FILE.ampscope
//       Opens it through File > Open's path in the real main window (offscreen) and prints the GUI
//       thread's longest stall (a 1 ms timer's largest gap), its CPU time, the wall time, and the peak
//       RSS during the open next to the file's size.
//   ampscope_session_bench journal-run STEPLOG
//       Trains the tiny MLP in all six modes in the real main window, autosave journal on (its default
//       place under XDG_DATA_HOME), and appends "<last step of the batch> <wall seconds>" to STEPLOG as
//       each batch of records reaches the session (one write(2) per batch: a SIGKILL loses none of them).
//       Prints the journal's path first. For tests/bench/journal_kill9.py.
//   ampscope_session_bench journal-run STEPLOG HOST:PORT FOLLOWLOG
//       The same, and follows the record stream at HOST:PORT beside the run (File > Follow Run's path),
//       appending "<highest seq of the batch> <wall seconds>" to FOLLOWLOG as each batch of its steps
//       reaches the window. For tests/bench/journal_kill9.py --follow.
//   ampscope_session_bench journal-read JOURNAL
//       Recovers the journal as the next start would and prints "<records> <last step>", then for each
//       followed run "followed <steps> <highest seq> <seqs seen twice>", and the notes about a torn last
//       line, if any.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <sys/resource.h>
#include <unistd.h>
#include <fcntl.h>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/stream_follower.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_workspace.h"
#include "ui/main_window.h"
#include "ui/session/autosave_manager.h"
#include "ui/session/session_controller.h"
#include "ui/training/headless_trainer.h"
#include "ui/training/run_controller.h"
#include "ui/training/training_workspace.h"

using namespace ampscope;
using namespace ampscope::ui;

namespace {

// "VmRSS" or "VmHWM" of /proc/self/status, in MiB.
double statusMiB(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size())) / 1024.0;
  }
  return -1;
}

// Resets VmHWM to the current RSS (Linux: 5 to clear_refs), so the peak read later is the open's own.
bool resetPeakRss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  return static_cast<bool>(clear.flush());
}

double threadCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

double wallSeconds() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The bytes the records take in memory (their vectors' capacity, the histograms' stored bins included,
// strings not counted beyond the struct), and how many of them are the exponent histograms of the
// instrumented steps.
std::pair<double, double> recordsMiB(const std::vector<StepRecord>& records) {
  std::size_t total = records.capacity() * sizeof(StepRecord);
  std::size_t histograms = 0;
  for (const StepRecord& record : records) {
    total += record.modes.capacity() * sizeof(ModeStep);
    for (const ModeStep& step : record.modes) {
      total += step.tensors.capacity() * sizeof(TensorStats) +
               step.roundingPoints.capacity() * sizeof(RoundingPointStats);
      for (const TensorStats& t : step.tensors) {
        histograms += 2 * sizeof(ExponentHistogram) + t.scaled.counts.heapBytes() + t.unscaled.counts.heapBytes();
        total += t.scaled.counts.heapBytes() + t.unscaled.counts.heapBytes();
      }
    }
  }
  return {static_cast<double>(total) / (1024.0 * 1024.0), static_cast<double>(histograms) / (1024.0 * 1024.0)};
}

int make(const char* streamPath, const char* outPath) {
  std::ifstream in(streamPath, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  RecordError error;
  auto stream = readRecordStream(text, &error);
  if (!stream || !stream->config) {
    std::fprintf(stderr, "%s: %s\n", streamPath, stream ? "no engine header" : error.text().c_str());
    return 2;
  }
  ui::Session session;
  session.config = *stream->config;
  for (ModeStep& step : stream->steps) {
    if (session.records.empty() || session.records.back().step != step.step) {
      session.records.push_back({step.step, {}});
    }
    session.records.back().modes.push_back(std::move(step));
  }
  QString message;
  if (!SessionFile::save(QString::fromLocal8Bit(outPath), session, &message)) {
    std::fprintf(stderr, "%s\n", qUtf8Printable(message));
    return 1;
  }
  std::printf("%zu records, %lld bytes\n", session.records.size(),
              static_cast<long long>(QFile(QString::fromLocal8Bit(outPath)).size()));
  return 0;
}

int openSession(const char* path) {
  MainWindow window;
  window.show();
  SessionController* sessions = window.sessionController();
  sessions->setMessageSink([](const QString&, const QString& text, bool) {
    std::fprintf(stderr, "%s\n", qUtf8Printable(text));
  });
  const double fileMiB = static_cast<double>(QFile(QString::fromLocal8Bit(path)).size()) / (1024.0 * 1024.0);

  QElapsedTimer clock;
  clock.start();
  qint64 lastTickNs = 0;
  qint64 longestGapNs = 0;
  bool opening = false;
  QTimer tick;
  tick.setTimerType(Qt::PreciseTimer);
  tick.setInterval(1);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    if (opening) longestGapNs = std::max(longestGapNs, now - lastTickNs);
    lastTickNs = now;
  });
  tick.start();

  bool ok = false;
  double wall = 0, cpu = 0, rssBefore = 0, peak = 0, rssAfter = 0;
  QTimer::singleShot(200, [&] {
    rssBefore = statusMiB("VmRSS");
    const bool peakReset = resetPeakRss();
    const double cpuBefore = threadCpuSeconds();
    const qint64 start = clock.nsecsElapsed();
    opening = true;
    lastTickNs = start;
    ok = sessions->openFile(QString::fromLocal8Bit(path));
    // The stall that ends with the open returning counts too.
    longestGapNs = std::max(longestGapNs, clock.nsecsElapsed() - lastTickNs);
    opening = false;
    wall = static_cast<double>(clock.nsecsElapsed() - start) / 1e9;
    cpu = threadCpuSeconds() - cpuBefore;
    peak = peakReset ? statusMiB("VmHWM") : -1;
    rssAfter = statusMiB("VmRSS");
    QTimer::singleShot(100, qApp, &QApplication::quit);
  });
  QApplication::exec();
  if (!ok) return 1;
  std::printf("file                       %.1f MiB, %zu records\n", fileMiB, sessions->recorder()->records().size());
  std::printf("open, wall                 %.2f s\n", wall);
  std::printf("GUI thread, CPU            %.2f s\n", cpu);
  std::printf("GUI thread, longest stall  %.0f ms\n", static_cast<double>(longestGapNs) / 1e6);
  std::printf("RSS before the open        %.0f MiB\n", rssBefore);
  std::printf("peak RSS during the open   %.0f MiB (+%.0f MiB = %.2fx the file)\n", peak, peak - rssBefore,
              (peak - rssBefore) / fileMiB);
  std::printf("RSS after the open         %.0f MiB (+%.0f MiB)\n", rssAfter, rssAfter - rssBefore);
  const auto [recordsSize, histogramsSize] = recordsMiB(sessions->recorder()->records());
  std::printf("the records in memory      %.0f MiB, of which %.0f MiB exponent histograms (%zu bytes each "
              "plus their stored bins)\n",
              recordsSize, histogramsSize, sizeof(ExponentHistogram));
  return 0;
}

int journalRun(const char* stepLog, const char* followTarget = nullptr, const char* followLog = nullptr) {
  const int log = ::open(stepLog, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    std::perror(stepLog);
    return 1;
  }
  MainWindow window;
  int followed = -1;
  if (followTarget) {
    followed = ::open(followLog, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    std::string error;
    const auto target = parseFollowTarget(followTarget, &error);
    if (followed < 0 || !target) {
      std::fprintf(stderr, "%s\n", followed < 0 ? followLog : error.c_str());
      return 1;
    }
    QObject::connect(window.followWorkspace()->controller(), &FollowController::stepsArrived,
                     [followed](int, const std::vector<ModeStep>& steps) {
                       int64_t seq = 0;
                       for (const ModeStep& s : steps) seq = std::max(seq, s.seq);
                       char line[64];
                       const int n = std::snprintf(line, sizeof line, "%lld %.6f\n", static_cast<long long>(seq),
                                                   wallSeconds());
                       if (::write(followed, line, static_cast<size_t>(n)) != n) std::perror("follow log");
                     });
    window.followWorkspace()->follow(*target);
  }
  std::printf("%s\n", qUtf8Printable(window.sessionController()->autosave()->path()));
  std::fflush(stdout);
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32,    PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
                  PrecisionMode::BF16Amp, PrecisionMode::FP16Pure,      PrecisionMode::BF16Pure};
  window.trainingWorkspace()->applyConfig(config);
  QObject::connect(window.trainingWorkspace()->controller(), &RunController::recordsDrained,
                   [log](const std::vector<StepRecord>& batch) {
                     if (batch.empty()) return;
                     char line[64];
                     const int n = std::snprintf(line, sizeof line, "%lld %.6f\n",
                                                 static_cast<long long>(batch.back().step), wallSeconds());
                     if (::write(log, line, static_cast<size_t>(n)) != n) std::perror("step log");
                   });
  const auto result = HeadlessTrainer::trainSteps(*window.trainingWorkspace(), 1000000, 30 * 60 * 1000);
  if (!result.ok) std::fprintf(stderr, "%s\n", qUtf8Printable(result.error));
  window.sessionController()->shutdown();
  ::close(log);
  if (followed >= 0) ::close(followed);
  return result.ok ? 0 : 1;
}

int journalRead(const char* path) {
  AutosaveManager autosave(nullptr, QString::fromLocal8Bit(path));
  QString error;
  QString note;
  const auto session = autosave.recover(&error, &note);
  if (!session) {
    std::fprintf(stderr, "%s\n", qUtf8Printable(error));
    return 1;
  }
  std::printf("%zu %lld\n", session->records.size(),
              static_cast<long long>(session->records.empty() ? 0 : session->records.back().step));
  for (const FollowedRun& run : session->followed) {
    std::vector<int64_t> seqs;
    for (const ModeStep& s : run.steps) seqs.push_back(s.seq);
    std::sort(seqs.begin(), seqs.end());
    const auto twice = seqs.size() - static_cast<std::size_t>(std::unique(seqs.begin(), seqs.end()) - seqs.begin());
    std::printf("followed %zu %lld %zu\n", run.steps.size(), static_cast<long long>(seqs.empty() ? 0 : seqs.back()),
                twice);
  }
  if (!note.isEmpty()) std::printf("note: %s\n", qUtf8Printable(note));
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: ampscope_session_bench make RUN.jsonl OUT.ampscope | open FILE | journal-run STEPLOG "
               "[HOST:PORT FOLLOWLOG] | "
               "journal-read JOURNAL\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const std::string command = argv[1];
  if (command == "make" && argc == 4) return make(argv[2], argv[3]);
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("AmpScope"));
  QApplication::setOrganizationName(QStringLiteral("AmpScope"));
  if (command == "open") return openSession(argv[2]);
  if (command == "journal-run" && argc == 5) return journalRun(argv[2], argv[3], argv[4]);
  if (command == "journal-run") return journalRun(argv[2]);
  if (command == "journal-read") return journalRead(argv[2]);
  return usage();
}
