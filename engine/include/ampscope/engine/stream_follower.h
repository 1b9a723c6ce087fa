// Follows a record stream while it is written: a JSON Lines file that grows, or a TCP connection to a
// training script's probe. POSIX, no threads, never blocks: the owner calls poll() from its own loop
// (a GUI timer, the CLI's sleep loop) and takes the records from reader().
//
// File: the file is opened once it exists; each poll() reads the bytes appended since; a file that
// shrinks or is replaced (another inode) is read again from its start (reader().restart()).
// TCP: a non-blocking connect to the first address getaddrinfo gives that accepts; each poll() reads what
// arrived (bounded per call); on EOF, a reset or a refused connection the follower waits and retries,
// the delay doubling up to 2 s. A numeric address is taken as it is; a host name is looked up on a
// helper thread of its own (getaddrinfo may wait seconds for a DNS server), which poll() only asks
// whether it is done: the caller's thread (the GUI's) never waits for the network. A lookup still
// running when the follower goes is left to finish and free its result by itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/record_stream_reader.h"

struct addrinfo;  // <netdb.h>

namespace ampscope {

struct FollowTarget {
  enum class Kind { File, Tcp };
  Kind kind = Kind::File;
  std::string path;  // File
  std::string host;  // Tcp: a name, an IPv4 address or an IPv6 address (without brackets)
  int port = 0;      // Tcp: 1-65535
  std::string text() const;  // "run.jsonl", "127.0.0.1:5000", "[::1]:5000"
};

// "host:port" or "[v6]:port" -> Tcp; anything else -> a file path. A path that exists and is a directory
// or another non-regular file is refused. Errors name what is wrong ("port 70000 is outside 1-65535").
std::optional<FollowTarget> parseFollowTarget(std::string_view text, std::string* error);

// The probe's per-rank streams are named after their rank: the file "<stem>.rank<R><suffix>" and the TCP
// port base + R. Given one rank's target, its rank and the world size (from its header), the targets of
// every other rank, in rank order; empty when the target does not carry that rank's name (a file without
// ".rank<R>", a port below R) or when the world size is outside 2..kMaxFollowedRanks (the header is
// data from elsewhere: it must not open thousands of follows).
inline constexpr int64_t kMaxFollowedRanks = 64;
std::vector<FollowTarget> otherRankTargets(const FollowTarget& target, int64_t rank, int64_t worldSize);

class StreamFollower {
 public:
  enum class State { Waiting, Connected, Closed };  // Waiting: absent / refused / cut, retrying

  explicit StreamFollower(FollowTarget target, RecordStreamReader::Limits limits = {});
  ~StreamFollower();
  StreamFollower(const StreamFollower&) = delete;
  StreamFollower& operator=(const StreamFollower&) = delete;

  // Reads what is available without blocking (at most kMaxBytesPerPoll), reconnects or reopens when due;
  // true if anything changed (bytes read, state changed).
  bool poll();
  static constexpr std::size_t kMaxBytesPerPoll = 4u << 20;

  State state() const { return state_; }
  // English: "connected to 127.0.0.1:5000", "waiting for run.jsonl", "following run.jsonl", "closed".
  std::string stateText() const;
  // Why the last attempt failed ("connection refused"), empty when none did.
  const std::string& lastError() const { return lastError_; }
  int64_t reconnects() const { return reconnects_; }  // times the stream was (re)opened after the first
  int64_t bytesReceived() const { return bytesReceived_; }
  RecordStreamReader& reader() { return reader_; }
  const RecordStreamReader& reader() const { return reader_; }
  const FollowTarget& target() const { return target_; }
  void close();
  bool lookingUp() const { return lookup_ != nullptr; }  // a host name's lookup is running

  // The name lookup the helper thread runs (getaddrinfo's signature; ::getaddrinfo by default), for
  // tests that need a slow DNS server. Set it before any follower starts a lookup.
  using NameLookup = int (*)(const char* host, const char* service, const ::addrinfo* hints, ::addrinfo** result);
  static void setNameLookup(NameLookup lookup);

 private:
  using Clock = std::chrono::steady_clock;
  bool pollFile();
  bool pollTcp();
  enum class Start { Connecting, Failed, LookingUp };
  Start startConnect();
  struct Lookup;  // shared with the lookup's helper thread
  void dropConnection(const std::string& why);
  void scheduleRetry();
  bool setState(State state);

  FollowTarget target_;
  RecordStreamReader reader_;
  State state_ = State::Waiting;
  int fd_ = -1;
  bool connecting_ = false;
  bool everOpened_ = false;
  uint64_t inode_ = 0, device_ = 0;
  int64_t offset_ = 0;
  Clock::time_point nextAttempt_{};
  std::chrono::milliseconds backoff_{0};
  std::string lastError_;
  std::string connectedAddress_;
  int64_t reconnects_ = 0;
  int64_t bytesReceived_ = 0;
  std::shared_ptr<Lookup> lookup_;  // the host name's lookup in flight (null: none)
};

}  // namespace ampscope
