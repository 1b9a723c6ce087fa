// StreamFollower (stream_follower.h): a file is read as it grows, read again from its start when it is
// truncated or replaced; a TCP stream is read as it arrives, and after the server goes away and comes
// back the follower reconnects and the resent history gives no duplicate records. parseFollowTarget
// tells HOST:PORT from file paths and names what is wrong.
#include "ampscope/engine/stream_follower.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <netdb.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "support/record_samples.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

using samples::probeHeaderLine;
using samples::streamLines;

// Polls until `done` holds; a generous bound so a slow machine passes and a hang fails.
bool pollUntil(StreamFollower& follower, std::vector<ModeStep>& got, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    follower.poll();
    for (auto& s : follower.reader().takeSteps()) got.push_back(std::move(s));
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

std::vector<int64_t> seqs(const std::vector<ModeStep>& steps) {
  std::vector<int64_t> list;
  for (const auto& s : steps) list.push_back(s.seq);
  return list;
}

std::vector<int64_t> range(int64_t from, int64_t to) {
  std::vector<int64_t> list;
  for (int64_t i = from; i <= to; ++i) list.push_back(i);
  return list;
}

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/ampscope_follow_XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void append(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
}

TEST(FollowTarget, HostPortAndFilePathsAreToldApart) {
  std::string error;
  auto t = parseFollowTarget("127.0.0.1:5000", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->kind, FollowTarget::Kind::Tcp);
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, 5000);
  EXPECT_EQ(t->text(), "127.0.0.1:5000");
  t = parseFollowTarget("[::1]:65535", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->kind, FollowTarget::Kind::Tcp);
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->port, 65535);
  EXPECT_EQ(t->text(), "[::1]:65535");
  t = parseFollowTarget("runs/run.rank0.jsonl", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->kind, FollowTarget::Kind::File);
  EXPECT_EQ(t->path, "runs/run.rank0.jsonl");
  t = parseFollowTarget("./name:5000", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->kind, FollowTarget::Kind::File) << "a '/' makes it a path";

  EXPECT_FALSE(parseFollowTarget("localhost:70000", &error));
  EXPECT_EQ(error, "port 70000 is outside 1-65535");
  EXPECT_FALSE(parseFollowTarget("localhost:0", &error));
  EXPECT_EQ(error, "port 0 is outside 1-65535");
  EXPECT_FALSE(parseFollowTarget("[::1]:99999999999999999999", &error));
  EXPECT_EQ(error, "port 999999999999... is outside 1-65535");
  EXPECT_FALSE(parseFollowTarget("[::1]", &error));
  EXPECT_EQ(error, "\"[::1]\": expected [IPv6 address]:port");
  EXPECT_FALSE(parseFollowTarget("", &error));
  EXPECT_EQ(error, "the target is empty (expected a file or HOST:PORT)");
  TempDir dir;
  const std::string folder = dir.file("");
  EXPECT_FALSE(parseFollowTarget(folder, &error));
  EXPECT_EQ(error, folder + " is a directory, not a record stream file");
  EXPECT_FALSE(parseFollowTarget("/dev/null", &error));
  EXPECT_EQ(error, "/dev/null is not a regular file");
}

// The probe names per-rank streams "<stem>.rank<R><suffix>" and serves rank R on base port + R
// (docs/probe.md); the other ranks' targets follow from one rank's.
TEST(FollowTarget, OtherRanksAreFoundFromOneRanksFileOrPort) {
  FollowTarget file;
  file.path = "runs.rank1/run.rank1.jsonl";
  auto others = otherRankTargets(file, 1, 3);
  ASSERT_EQ(others.size(), 2u);
  EXPECT_EQ(others[0].path, "runs.rank1/run.rank0.jsonl") << "only the file name's mark changes";
  EXPECT_EQ(others[1].path, "runs.rank1/run.rank2.jsonl");

  FollowTarget tcp;
  tcp.kind = FollowTarget::Kind::Tcp;
  tcp.host = "127.0.0.1";
  tcp.port = 5002;
  others = otherRankTargets(tcp, 2, 4);
  ASSERT_EQ(others.size(), 3u);
  EXPECT_EQ(others[0].port, 5000);
  EXPECT_EQ(others[1].port, 5001);
  EXPECT_EQ(others[2].port, 5003);
  EXPECT_EQ(others[2].host, "127.0.0.1");

  FollowTarget plain;
  plain.path = "run.jsonl";
  EXPECT_TRUE(otherRankTargets(plain, 1, 2).empty()) << "a file without its rank's mark";
  FollowTarget longer;
  longer.path = "run.rank12.jsonl";
  EXPECT_TRUE(otherRankTargets(longer, 1, 2).empty()) << ".rank1 is not .rank12";
  EXPECT_TRUE(otherRankTargets(file, 1, 1).empty()) << "not distributed";
  EXPECT_TRUE(otherRankTargets(file, 1, kMaxFollowedRanks + 1).empty()) << "a hostile world size";
  EXPECT_TRUE(otherRankTargets(file, 5, 3).empty()) << "a rank outside the world";
  tcp.port = 1;
  EXPECT_TRUE(otherRankTargets(tcp, 2, 4).empty()) << "base port below 1";
  tcp.port = 65535;
  EXPECT_TRUE(otherRankTargets(tcp, 0, 2).empty()) << "a port past 65535";
}

TEST(StreamFollower, AFileIsFollowedAsItGrowsAndRereadWhenTruncatedOrReplaced) {
  TempDir dir;
  const std::string path = dir.file("run.jsonl");
  StreamFollower follower(*parseFollowTarget(path, nullptr));
  std::vector<ModeStep> got;
  follower.poll();
  EXPECT_EQ(follower.state(), StreamFollower::State::Waiting);
  EXPECT_EQ(follower.stateText(), "waiting for " + path + " (not there yet)");

  // Appended in steps, a record split across two writes.
  const auto steps = samples::probeSteps(9);
  const std::string text = probeHeaderLine() + streamLines(steps);
  const std::size_t third = text.size() / 3;
  append(path, text.substr(0, third));
  ASSERT_TRUE(pollUntil(follower, got, [&] { return follower.state() == StreamFollower::State::Connected; }));
  EXPECT_EQ(follower.stateText(), "following " + path);
  append(path, text.substr(third, third));
  append(path, text.substr(2 * third));
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 9; }));
  EXPECT_EQ(seqs(got), range(1, 9));
  EXPECT_EQ(follower.bytesReceived(), static_cast<int64_t>(text.size()));

  // Truncated and rewritten by a new run (another run-id): read from the start.
  got.clear();
  fs::resize_file(path, 0);
  append(path, probeHeaderLine("00000000000000aa") + streamLines(samples::probeSteps(2)));
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 2; }));
  EXPECT_EQ(seqs(got), range(1, 2));
  EXPECT_TRUE(follower.reader().headerChanged());

  // Replaced (written elsewhere, renamed over it): the new file from its start.
  got.clear();
  const std::string next = dir.file("next.jsonl");
  append(next, probeHeaderLine("00000000000000bb") + streamLines(samples::probeSteps(5)));
  fs::rename(next, path);
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 5; }));
  EXPECT_EQ(seqs(got), range(1, 5));
  EXPECT_EQ(follower.reader().header().source.runId, "00000000000000bb");
  EXPECT_GE(follower.reconnects(), 2);
  EXPECT_EQ(follower.reader().malformed(), 0);
  follower.close();
  EXPECT_EQ(follower.state(), StreamFollower::State::Closed);
  EXPECT_FALSE(follower.poll());
}

// A one-client server on 127.0.0.1: sends `text`, then closes the connection (and its socket).
class OneShotServer {
 public:
  explicit OneShotServer(int port = 0) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int yes = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    ok_ = ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
          ::listen(listener_, 4) == 0;
    socklen_t length = sizeof address;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~OneShotServer() {
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  bool ok() const { return ok_; }
  int port() const { return port_; }
  // Accepts one client, sends `first`, waits for `release`, sends `second`, closes.
  void serve(std::string first, std::function<void()> wait, std::string second) {
    thread_ = std::thread([this, first = std::move(first), wait = std::move(wait), second = std::move(second)] {
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) return;
      sendAll(client, first);
      wait();
      sendAll(client, second);
      ::close(client);
    });
  }
  void join() { thread_.join(); }

 private:
  static void sendAll(int fd, const std::string& text) {
    std::size_t sent = 0;
    while (sent < text.size()) {
      const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }
  int listener_ = -1;
  int port_ = 0;
  bool ok_ = false;
  std::thread thread_;
};

TEST(StreamFollower, ATcpStreamReconnectsAfterACutWithoutDuplicates) {
  const auto all = samples::probeSteps(20);
  std::vector<ModeStep> got;
  std::atomic<bool> release{false};
  auto server = std::make_unique<OneShotServer>();
  ASSERT_TRUE(server->ok());
  const int port = server->port();
  // First connection: header and records 1..8, the 9th cut in the middle, then the server goes away.
  const std::string ninth = streamLines({all[8]});
  server->serve(probeHeaderLine() + streamLines({all.begin(), all.begin() + 8}) + ninth.substr(0, ninth.size() / 2),
                [&] { while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1)); }, "");
  StreamFollower follower(*parseFollowTarget("127.0.0.1:" + std::to_string(port), nullptr));
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 8; }));
  EXPECT_EQ(follower.state(), StreamFollower::State::Connected);
  EXPECT_EQ(follower.stateText(), "connected to 127.0.0.1:" + std::to_string(port));
  release = true;
  server.reset();  // closes the connection and the listener
  ASSERT_TRUE(pollUntil(follower, got, [&] { return follower.state() == StreamFollower::State::Waiting; }));
  EXPECT_NE(follower.stateText().find("waiting for 127.0.0.1:"), std::string::npos) << follower.stateText();
  // While nobody listens, connecting is refused and retried.
  for (int i = 0; i < 20; ++i) {
    follower.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(follower.state(), StreamFollower::State::Waiting);

  // The probe comes back on the same port (the same run): header, its history 1..15, then 16..20.
  OneShotServer again(port);
  ASSERT_TRUE(again.ok());
  std::atomic<bool> secondRelease{false};
  again.serve(probeHeaderLine() + streamLines({all.begin(), all.begin() + 15}),
              [&] { while (!secondRelease) std::this_thread::sleep_for(std::chrono::milliseconds(1)); },
              streamLines({all.begin() + 15, all.end()}));
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 15; }));
  secondRelease = true;
  ASSERT_TRUE(pollUntil(follower, got, [&] { return got.size() == 20; }));
  EXPECT_EQ(seqs(got), range(1, 20)) << "no duplicates, nothing lost";
  EXPECT_EQ(follower.reconnects(), 1);
  EXPECT_EQ(follower.reader().duplicates(), 8);
  EXPECT_EQ(follower.reader().dropped(), 0);
  EXPECT_EQ(follower.reader().malformed(), 0) << "the cut line was dropped with the connection";
  EXPECT_FALSE(follower.reader().headerChanged());
  again.join();
}

TEST(StreamFollower, ARefusedConnectionWaitsAndSaysWhy) {
  // A port nobody listens on: bind one, note it, close it.
  int port = 0;
  {
    OneShotServer probe;
    port = probe.port();
  }
  StreamFollower follower(*parseFollowTarget("127.0.0.1:" + std::to_string(port), nullptr));
  std::vector<ModeStep> got;
  ASSERT_TRUE(pollUntil(follower, got, [&] { return !follower.lastError().empty(); }));
  EXPECT_EQ(follower.state(), StreamFollower::State::Waiting);
  EXPECT_EQ(follower.stateText(), "waiting for 127.0.0.1:" + std::to_string(port) + " (Connection refused)");
}

// A DNS server that takes 1.5 s to answer (issue 47: name lookup blocked the window); it resolves
// "slowhost" to 127.0.0.1.
constexpr auto kSlowLookup = std::chrono::milliseconds(1500);
std::atomic<int> slowLookups{0};
int slowLookup(const char* host, const char* service, const addrinfo* hints, addrinfo** result) {
  ++slowLookups;
  std::this_thread::sleep_for(kSlowLookup);
  if (std::string(host) != "slowhost") return EAI_NONAME;
  return ::getaddrinfo("127.0.0.1", service, hints, result);
}

TEST(StreamFollower, AHostNameIsLookedUpOffThePollingThread) {
  StreamFollower::setNameLookup(&slowLookup);
  OneShotServer server;
  ASSERT_TRUE(server.ok());
  const auto all = samples::probeSteps(3);
  server.serve(probeHeaderLine() + streamLines(all), [] {}, "");
  StreamFollower follower(*parseFollowTarget("slowhost:" + std::to_string(server.port()), nullptr));
  std::vector<ModeStep> got;
  // Every poll returns at once while the lookup runs (the window's budget: no stall over 100 ms, issue
  // 47; a blocking lookup would take kSlowLookup in the first poll).
  auto longest = std::chrono::steady_clock::duration::zero();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  bool sawLookup = false;
  while (got.size() < all.size() && std::chrono::steady_clock::now() < deadline) {
    const auto before = std::chrono::steady_clock::now();
    follower.poll();
    longest = std::max(longest, std::chrono::steady_clock::now() - before);
    if (follower.lookingUp()) {
      sawLookup = true;
      EXPECT_EQ(follower.stateText(), "looking up slowhost");
    }
    for (auto& step : follower.reader().takeSteps()) got.push_back(std::move(step));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_TRUE(sawLookup);
  EXPECT_EQ(seqs(got), range(1, 3));
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(longest).count(), 100);
  server.join();

  // A follower that goes while its lookup runs does not wait for it; an unknown name says why.
  const int before = slowLookups;
  auto start = std::chrono::steady_clock::now();
  {
    StreamFollower gone(*parseFollowTarget("nohost:5000", nullptr));
    gone.poll();
    EXPECT_TRUE(gone.lookingUp());
  }
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count(), 100);
  StreamFollower unknown(*parseFollowTarget("nohost:5000", nullptr));
  std::vector<ModeStep> none;
  ASSERT_TRUE(pollUntil(unknown, none, [&] { return !unknown.lastError().empty(); }));
  EXPECT_EQ(unknown.lastError().rfind("cannot resolve nohost: ", 0), 0u) << unknown.lastError();
  EXPECT_GE(slowLookups - before, 2);
  // A numeric address is never handed to the lookup.
  const int numeric = slowLookups;
  StreamFollower direct(*parseFollowTarget("127.0.0.1:1", nullptr));
  direct.poll();
  EXPECT_FALSE(direct.lookingUp());
  EXPECT_EQ(slowLookups, numeric);
  std::this_thread::sleep_for(kSlowLookup);  // the abandoned lookup ends before the function goes
  StreamFollower::setNameLookup(nullptr);
}

}  // namespace
}  // namespace ampscope
