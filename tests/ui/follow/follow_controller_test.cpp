// FollowController over real transports: a file another thread appends to, a TCP stream that is cut and
// served again, a stream full of malformed lines; what arrives reaches the store and the loss plot.
#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <arpa/inet.h>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <netinet/in.h>
#include <qcustomplot.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "ampscope/engine/telemetry_store.h"
#include "follow_test_support.h"
#include "ui/follow/follow_controller.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"

namespace ampscope::ui {
namespace {

using test::append;
using test::fileTarget;
using test::header;
using test::lines;
using test::pollUntil;
using test::probeSource;



const ModeSeries* onlyFollowedSeries(const TelemetryStore& store) {
  for (SeriesKey k : store.seriesKeys())
    if (k.run != kEngineRun) return store.series(k);
  return nullptr;
}

TEST(FollowController, AFileAppendedByAnotherThreadShowsTheNewStepsAfterOnePollAndRefresh) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("run.jsonl")).toStdString();
  append(path, header(probeSource("my-run", "00000000000000aa")) + lines(1, 3));
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  FollowController controller(&store);
  controller.setPolling(false);  // the test polls
  controller.follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(controller, [&] { return onlyFollowedSeries(store) && onlyFollowedSeries(store)->stepsSeen == 3; }));
  plot.onDataAppended();

  std::thread writer([&] { append(path, lines(4, 6)); });
  writer.join();
  EXPECT_TRUE(controller.poll());  // one poll reads what the writer appended
  plot.onDataAppended();
  const SeriesKey key{1, PrecisionMode::FP16AmpScaled};
  ASSERT_NE(plot.lossGraph(key), nullptr);
  EXPECT_EQ(plot.lossGraph(key)->dataCount(), 6);
  EXPECT_DOUBLE_EQ((plot.lossGraph(key)->data()->constEnd() - 1)->value, 10.0 / 6.0);
  // The legend names the run and the mode; the line is dashed (the engine's run is solid).
  EXPECT_EQ(plot.lossGraph(key)->name(), QStringLiteral("my-run: FP16 AMP + GradScaler"));
  EXPECT_EQ(plot.lossGraph(key)->pen().style(), Qt::DashLine);
  ASSERT_EQ(controller.runs().size(), 1u);
  EXPECT_EQ(controller.runs()[0].steps.size(), 6u);
  EXPECT_EQ(controller.follows()[0]->records, 6);
}

// A server on 127.0.0.1 that serves `parts[i]` to its i-th client, then cuts that connection.
class CuttingServer {
 public:
  explicit CuttingServer(std::vector<std::string> parts) : parts_(std::move(parts)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int on = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      for (const std::string& part : parts_) {
        const int client = ::accept(fd_, nullptr, nullptr);
        if (client < 0) return;
        std::size_t sent = 0;
        while (sent < part.size()) {
          const ssize_t n = ::send(client, part.data() + sent, part.size() - sent, MSG_NOSIGNAL);
          if (n <= 0) break;
          sent += static_cast<std::size_t>(n);
        }
        ::close(client);
        ++served_;
      }
    });
  }
  ~CuttingServer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  int served() const { return served_; }

 private:
  std::vector<std::string> parts_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> served_{0};
  std::thread thread_;
};

TEST(FollowController, ATcpStreamCutAndServedAgainReconnectsAndContinuesWithoutDuplicates) {
  const std::string head = header(probeSource("tcp-run", "00000000000000bb"));
  // The second connection replays the probe's history (steps 1-3 again) before the new steps 4-8.
  CuttingServer server({head + lines(1, 3), head + lines(1, 8)});
  TelemetryStore store;
  FollowController controller(&store);
  controller.setPolling(false);
  std::string error;
  const auto target = parseFollowTarget("127.0.0.1:" + std::to_string(server.port()), &error);
  ASSERT_TRUE(target) << error;
  controller.follow(*target);
  ASSERT_TRUE(pollUntil(controller, [&] {
    const ModeSeries* s = onlyFollowedSeries(store);
    return server.served() == 2 && s && s->lastStep == 8;
  }));
  const ModeSeries* s = onlyFollowedSeries(store);
  ASSERT_EQ(s->recent.size(), 8u);  // every step once
  for (std::size_t i = 0; i < s->recent.size(); ++i) EXPECT_EQ(s->recent[i].step, static_cast<int64_t>(i) + 1);
  EXPECT_EQ(controller.runs().size(), 1u);  // same run-id: the same run continues
  EXPECT_EQ(controller.runs()[0].steps.size(), 8u);
  EXPECT_GE(controller.follows()[0]->follower->reconnects(), 1);
  EXPECT_EQ(controller.follows()[0]->dropped, 0);
}

TEST(FollowController, AThousandMalformedLinesAreSkippedAndCountedAndTheRunStillPlots) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("bad.jsonl")).toStdString();
  std::string text = header(probeSource("noisy", "00000000000000cc"));
  int bad = 0;
  for (int64_t n = 1; n <= 50; ++n) {
    for (int k = 0; k < 20; ++k, ++bad) {
      switch (k % 4) {
        case 0: text += "{not json\n"; break;
        case 1: text += "{\"mode\":\"fp16-amp-scaled\",\"step\":\"seven\"}\n"; break;
        case 2: text += "[1,2,3]\n"; break;
        default: text += "{\"mode\":\"fp99\",\"step\":1}\n"; break;
      }
    }
    appendRecordStreamLine(text, test::probeStep(n));
  }
  ASSERT_EQ(bad, 1000);
  append(path, text);
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  FollowController controller(&store);
  controller.setPolling(false);
  controller.follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(controller, [&] { return onlyFollowedSeries(store) && onlyFollowedSeries(store)->lastStep == 50; }));
  plot.onDataAppended();
  EXPECT_EQ(controller.follows()[0]->malformed, 1000);
  EXPECT_FALSE(controller.follows()[0]->lastError.isEmpty());  // the last message, for the tooltip
  EXPECT_TRUE(controller.statusToolTip(controller.follows()[0]->id).contains(controller.follows()[0]->lastError));
  QCPGraph* loss = plot.lossGraph(SeriesKey{1, PrecisionMode::FP16AmpScaled});
  ASSERT_NE(loss, nullptr);
  ASSERT_EQ(loss->dataCount(), 50);
  int64_t n = 1;
  for (auto it = loss->data()->constBegin(); it != loss->data()->constEnd(); ++it, ++n) {
    EXPECT_EQ(it->key, static_cast<double>(n));
    EXPECT_DOUBLE_EQ(it->value, 10.0 / static_cast<double>(n));
  }
}

TEST(FollowController, PerRankStreamsAreNamedByRankAndARestartedRunIsANewSeries) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("run.rank1.jsonl")).toStdString();
  append(path, header(probeSource("dist", "00000000000000d1", "per-rank", 1)) + lines(1, 4));
  TelemetryStore store;
  FollowController controller(&store);
  controller.setPolling(false);
  controller.follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(controller, [&] { return !controller.runs().empty() && controller.runs()[0].steps.size() == 4; }));
  EXPECT_EQ(controller.runs()[0].label, QStringLiteral("dist rank 1"));

  // The script restarts: a new file (new inode) with a new run-id.
  const std::string fresh = path + ".new";
  append(fresh, header(probeSource("dist", "00000000000000d2", "per-rank", 1)) + lines(1, 2));
  ASSERT_EQ(std::rename(fresh.c_str(), path.c_str()), 0);
  ASSERT_TRUE(pollUntil(controller, [&] { return controller.runs().size() == 2 && controller.runs()[1].steps.size() == 2; }));
  EXPECT_EQ(controller.runs()[0].steps.size(), 4u);  // the old run stays
  EXPECT_FALSE(controller.runs()[0].live);
  EXPECT_EQ(store.seriesKeys().size(), 2u);
  EXPECT_EQ(store.series(SeriesKey{controller.runs()[0].storeRun, PrecisionMode::FP16AmpScaled})->lastStep, 4);
  EXPECT_EQ(store.series(SeriesKey{controller.runs()[1].storeRun, PrecisionMode::FP16AmpScaled})->lastStep, 2);
}

TEST(FollowController, FollowingOneRanksStreamFollowsTheOtherRanksSideBySide) {
  QTemporaryDir dir;
  const std::string rank0 = dir.filePath(QStringLiteral("run.rank0.jsonl")).toStdString();
  const std::string rank1 = dir.filePath(QStringLiteral("run.rank1.jsonl")).toStdString();
  append(rank0, header(probeSource("dist", "00000000000000e0", "per-rank", 0)) + lines(1, 3));
  append(rank1, header(probeSource("dist", "00000000000000e1", "per-rank", 1)) + lines(1, 5));
  TelemetryStore store;
  FollowController controller(&store);
  controller.setPolling(false);
  controller.follow(fileTarget(rank0));
  ASSERT_TRUE(pollUntil(controller, [&] { return controller.runs().size() == 2; }));
  ASSERT_EQ(controller.follows().size(), 2u);
  EXPECT_EQ(controller.follows()[1]->target.path, rank1);
  std::vector<QString> labels;
  for (const auto& run : controller.runs()) labels.push_back(run.label);
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<QString>{QStringLiteral("dist rank 0"), QStringLiteral("dist rank 1")}));
  ASSERT_TRUE(pollUntil(controller, [&] {
    std::size_t steps = 0;
    for (const auto& run : controller.runs()) steps += run.steps.size();
    return steps == 8;
  }));
  // Following rank 1 by hand as well changes nothing: it is already followed (same follow id).
  EXPECT_EQ(controller.follow(fileTarget(rank1)), controller.follows()[1]->id);
  controller.poll();
  EXPECT_EQ(controller.follows().size(), 2u);
  EXPECT_EQ(store.seriesKeys().size(), 2u);
}

}  // namespace
}  // namespace ampscope::ui

namespace ampscope::ui {
namespace {

// The budgets (follow_budget.h) in the GUI: a record of 1,030 parameter gradients keeps 1,024 and folds
// six, the status bar and its tooltip say so with the counts, and the store's folding of old steps is
// named in the tooltip. Saved and restored (session codec, as the autosave journal does), the run keeps
// the folded counts and the store holds the same heat-map column as it did while following.
TEST(FollowController, ARunOverTheBudgetsSaysWhatWasFoldedAndRestoresWithIt) {
  QTemporaryDir dir;
  const std::string path = dir.filePath(QStringLiteral("wide.jsonl")).toStdString();
  ModeStep wide = test::probeStep(1);
  wide.instrumented = true;
  for (int i = 0; i < 1030; ++i) {
    TensorStats t;
    t.name = "l" + std::to_string(i) + ".weight";
    t.numel = 4 + i;
    t.scaled.counts.set(-10 - i % 5, 4 + i);
    t.unscaled = t.scaled;
    wide.tensors.push_back(t);
  }
  std::string text = header(probeSource("wide", "00000000000000dd"));
  appendRecordStreamLine(text, wide);
  text += lines(2, 400);
  append(path, text);
  StoreLimits limits;
  limits.recentSteps = 100;
  limits.foldChunk = 50;
  TelemetryStore store(limits);
  FollowController controller(&store);
  controller.setPolling(false);
  const int id = controller.follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(controller, [&] {
    return onlyFollowedSeries(store) && onlyFollowedSeries(store)->lastStep == 400;
  }));
  EXPECT_TRUE(controller.statusText(id).endsWith(QStringLiteral(" · 6 entries folded")))
      << controller.statusText(id).toStdString();
  const QString tip = controller.statusToolTip(id);
  EXPECT_TRUE(tip.contains(QStringLiteral("folded: 6 tensor entries (6 parameter gradients"))) << tip.toStdString();
  const ModeSeries* series = onlyFollowedSeries(store);
  ASSERT_FALSE(series->buckets.empty());
  const QString folding = QStringLiteral("fp16-amp-scaled: steps 1–%1 folded into %2 buckets")
                              .arg(series->buckets.back().lastStep)
                              .arg(series->buckets.size());
  EXPECT_TRUE(tip.contains(folding)) << tip.toStdString();
  ASSERT_EQ(series->histogramRing.size(), 1u);
  const HistogramSnapshot followedColumn = series->histogramRing[0];
  // Every parameter of the record is in the column, folded or kept: sum(4 + i) over i < 1030.
  EXPECT_EQ(followedColumn.scaled.total(), 1030 * 4 + 1029 * 1030 / 2);
  // The histogram plot's all-parameters sum holds them too (its latest step is the wide one).
  HistogramPlot histogram(&store);
  EXPECT_EQ(histogram.shownHistogram(SeriesKey{1, PrecisionMode::FP16AmpScaled}).total(), followedColumn.scaled.total());

  SessionError error;
  const auto session = decodeSession(encodeSession(RunConfig{}, "", {}, controller.followedRuns()), &error);
  ASSERT_TRUE(session) << error.message;
  TelemetryStore restoredStore(limits);
  FollowController restored(&restoredStore);
  restored.restore(session->followed);
  ASSERT_EQ(restored.runs().size(), 1u);
  const ModeStep& first = restored.runs()[0].steps.front();
  EXPECT_EQ(first.tensors.size(), 1024u);
  EXPECT_EQ(first.folded.tensors, 6);
  EXPECT_EQ(first.folded.parameters, 6);
  const ModeSeries* again = onlyFollowedSeries(restoredStore);
  ASSERT_NE(again, nullptr);
  ASSERT_EQ(again->histogramRing.size(), 1u);
  EXPECT_EQ(again->histogramRing[0].scaled.counts, followedColumn.scaled.counts);
  EXPECT_EQ(again->latestFolded.tensors, 6);
  EXPECT_EQ(again->stepsSeen, 400);
}

}  // namespace
}  // namespace ampscope::ui
