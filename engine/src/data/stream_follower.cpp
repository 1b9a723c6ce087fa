#include "ampscope/engine/stream_follower.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <system_error>
#include <thread>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace ampscope {

namespace {

constexpr std::chrono::milliseconds kFirstRetry{100};
constexpr std::chrono::milliseconds kMaxRetry{2000};
constexpr std::size_t kReadChunk = 64u << 10;

std::string errnoText(int code) { return std::strerror(code); }

bool allDigits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The port of "host:PORT", or an error naming it.
std::optional<int> parsePort(std::string_view digits, std::string* error) {
  // More than 6 digits is out of range whatever they are; stop before the integer could overflow.
  long value = 0;
  for (const char c : digits.substr(0, 7)) value = value * 10 + (c - '0');
  if (digits.size() > 6 || value < 1 || value > 65535) {
    if (error) *error = "port " + std::string(digits.substr(0, 12)) + (digits.size() > 12 ? "..." : "") +
                        " is outside 1-65535";
    return std::nullopt;
  }
  return static_cast<int>(value);
}

}  // namespace

std::string FollowTarget::text() const {
  if (kind == Kind::File) return path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::optional<FollowTarget> parseFollowTarget(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<FollowTarget> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  if (text.empty()) return fail("the target is empty (expected a file or HOST:PORT)");
  if (text.find('\0') != std::string_view::npos) return fail("the target contains a NUL byte");
  FollowTarget target;
  if (text.front() == '[') {
    const std::size_t close = text.find("]:");
    if (close == std::string_view::npos || close == 1) {
      return fail("\"" + std::string(text) + "\": expected [IPv6 address]:port");
    }
    const std::string_view digits = text.substr(close + 2);
    if (!allDigits(digits)) return fail("\"" + std::string(text) + "\": the port must be a number");
    const auto port = parsePort(digits, error);
    if (!port) return std::nullopt;
    target.kind = FollowTarget::Kind::Tcp;
    target.host = std::string(text.substr(1, close - 1));
    target.port = *port;
    return target;
  }
  // "host:port": one colon, digits after it, no '/' (so "./a:1" is a file).
  const std::size_t colon = text.rfind(':');
  if (colon != std::string_view::npos && colon > 0 && text.find('/') == std::string_view::npos &&
      text.find(':') == colon && allDigits(text.substr(colon + 1))) {
    const auto port = parsePort(text.substr(colon + 1), error);
    if (!port) return std::nullopt;
    target.kind = FollowTarget::Kind::Tcp;
    target.host = std::string(text.substr(0, colon));
    target.port = *port;
    return target;
  }
  target.path = std::string(text);
  struct stat info {};
  if (::stat(target.path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) return fail(target.path + " is a directory, not a record stream file");
    if (!S_ISREG(info.st_mode)) return fail(target.path + " is not a regular file");
  }
  return target;
}

std::vector<FollowTarget> otherRankTargets(const FollowTarget& target, int64_t rank, int64_t worldSize) {
  std::vector<FollowTarget> out;
  if (worldSize < 2 || worldSize > kMaxFollowedRanks || rank < 0 || rank >= worldSize) return out;
  if (target.kind == FollowTarget::Kind::Tcp) {
    const int64_t base = target.port - rank;
    if (base < 1 || base + worldSize - 1 > 65535) return out;
    for (int64_t r = 0; r < worldSize; ++r) {
      if (r == rank) continue;
      FollowTarget t = target;
      t.port = static_cast<int>(base + r);
      out.push_back(std::move(t));
    }
    return out;
  }
  // The rank's mark is in the file name, not in a directory above it.
  const std::string mark = ".rank" + std::to_string(rank);
  const std::size_t slash = target.path.rfind('/');
  const std::size_t nameStart = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t at = target.path.rfind(mark);
  if (at == std::string::npos || at < nameStart) return out;
  const std::size_t after = at + mark.size();
  // ".rank1" must not be the start of ".rank12".
  if (after < target.path.size() && target.path[after] >= '0' && target.path[after] <= '9') return out;
  for (int64_t r = 0; r < worldSize; ++r) {
    if (r == rank) continue;
    FollowTarget t = target;
    t.path = target.path.substr(0, at) + ".rank" + std::to_string(r) + target.path.substr(after);
    out.push_back(std::move(t));
  }
  return out;
}

StreamFollower::StreamFollower(FollowTarget target, RecordStreamReader::Limits limits)
    : target_(std::move(target)), reader_(limits) {}

StreamFollower::~StreamFollower() { close(); }

void StreamFollower::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  lookup_.reset();  // a lookup still running finishes and frees its answer by itself
  connecting_ = false;
  state_ = State::Closed;
}

bool StreamFollower::setState(State state) {
  if (state_ == state) return false;
  state_ = state;
  return true;
}

std::string StreamFollower::stateText() const {
  const std::string name = target_.text();
  switch (state_) {
    case State::Connected:
      return target_.kind == FollowTarget::Kind::File ? "following " + name : "connected to " + name;
    case State::Closed: return "closed";
    case State::Waiting:
      if (connecting_) return "connecting to " + name;
      if (lookup_) return "looking up " + target_.host;
      return "waiting for " + name + (lastError_.empty() ? "" : " (" + lastError_ + ")");
  }
  return "closed";
}

void StreamFollower::scheduleRetry() {
  backoff_ = std::min(kMaxRetry, std::max(kFirstRetry, backoff_ * 2));
  nextAttempt_ = Clock::now() + backoff_;
}

void StreamFollower::dropConnection(const std::string& why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  connecting_ = false;
  lastError_ = why;
  state_ = State::Waiting;
  scheduleRetry();
}

bool StreamFollower::poll() {
  if (state_ == State::Closed) return false;
  return target_.kind == FollowTarget::Kind::File ? pollFile() : pollTcp();
}

// ---- file ----

bool StreamFollower::pollFile() {
  bool changed = false;
  if (fd_ < 0) {
    if (Clock::now() < nextAttempt_) return false;
    const int fd = ::open(target_.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      const std::string why = errno == ENOENT ? std::string("not there yet") : errnoText(errno);
      changed = why != lastError_;
      lastError_ = why;
      scheduleRetry();
      return setState(State::Waiting) || changed;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
      ::close(fd);
      lastError_ = "not a regular file";
      scheduleRetry();
      return setState(State::Waiting) || true;
    }
    fd_ = fd;
    inode_ = static_cast<uint64_t>(info.st_ino);
    device_ = static_cast<uint64_t>(info.st_dev);
    offset_ = 0;
    if (everOpened_) ++reconnects_;
    everOpened_ = true;
    reader_.restart();
    lastError_.clear();
    backoff_ = std::chrono::milliseconds{0};
    changed = setState(State::Connected);
  }
  struct stat now {};
  if (::fstat(fd_, &now) == 0 && static_cast<int64_t>(now.st_size) < offset_) {
    // Truncated (rewritten in place): read it again from the start.
    offset_ = 0;
    reader_.restart();
    ++reconnects_;
    changed = true;
  }
  std::vector<char> buffer(kReadChunk);
  std::size_t total = 0;
  while (total < kMaxBytesPerPoll) {
    const ssize_t n = ::pread(fd_, buffer.data(), std::min(buffer.size(), kMaxBytesPerPoll - total), offset_);
    if (n < 0) {
      if (errno == EINTR) continue;
      dropConnection(errnoText(errno));
      return true;
    }
    if (n == 0) break;
    offset_ += n;
    total += static_cast<std::size_t>(n);
    bytesReceived_ += n;
    reader_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
  }
  if (total > 0) changed = true;
  if (total < kMaxBytesPerPoll) {
    // At the end of what is there: if the path now names another file (replaced, or removed), the
    // stream continues there.
    struct stat named {};
    const bool present = ::stat(target_.path.c_str(), &named) == 0;
    if (!present || static_cast<uint64_t>(named.st_ino) != inode_ || static_cast<uint64_t>(named.st_dev) != device_) {
      ::close(fd_);
      fd_ = -1;
      lastError_ = present ? "" : "removed";
      nextAttempt_ = Clock::now();
      if (!present) scheduleRetry();
      setState(State::Waiting);
      changed = true;
    }
  }
  return changed;
}

// ---- TCP ----

namespace {
std::atomic<StreamFollower::NameLookup> nameLookup{&::getaddrinfo};
}  // namespace

void StreamFollower::setNameLookup(NameLookup lookup) { nameLookup = lookup ? lookup : &::getaddrinfo; }

// What a lookup's helper thread hands back; whichever of the thread and the follower lets go last frees it.
struct StreamFollower::Lookup {
  std::mutex mutex;
  bool done = false;
  int status = 0;
  addrinfo* list = nullptr;
  ~Lookup() {
    if (list) ::freeaddrinfo(list);
  }
};

StreamFollower::Start StreamFollower::startConnect() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* list = nullptr;
  const std::string port = std::to_string(target_.port);
  int status = 0;
  if (lookup_) {
    // A host name's lookup is running on its helper thread: take its answer once it has one.
    const std::lock_guard<std::mutex> lock(lookup_->mutex);
    if (!lookup_->done) return Start::LookingUp;
    status = lookup_->status;
    list = std::exchange(lookup_->list, nullptr);
  } else {
    // A numeric address reads without asking anyone; only a name needs the (possibly slow) lookup.
    addrinfo numeric = hints;
    numeric.ai_flags |= AI_NUMERICHOST;
    status = ::getaddrinfo(target_.host.c_str(), port.c_str(), &numeric, &list);
    if (status == EAI_NONAME) {
      auto lookup = std::make_shared<Lookup>();
      try {
        std::thread([lookup, host = target_.host, port, hints, resolve = nameLookup.load()] {
          addrinfo* found = nullptr;
          const int code = resolve(host.c_str(), port.c_str(), &hints, &found);
          const std::lock_guard<std::mutex> lock(lookup->mutex);
          lookup->status = code;
          lookup->list = found;
          lookup->done = true;
        }).detach();
      } catch (const std::system_error& error) {
        lastError_ = std::string("cannot look up ") + target_.host + ": " + error.what();
        return Start::Failed;
      }
      lookup_ = std::move(lookup);
      return Start::LookingUp;
    }
  }
  // (The lookup is over either way: the next attempt starts a new one.)
  std::shared_ptr<Lookup> finished = std::move(lookup_);
  if (status != 0) {
    if (list) ::freeaddrinfo(list);
    lastError_ = std::string("cannot resolve ") + target_.host + ": " + ::gai_strerror(status);
    return Start::Failed;
  }
  std::string why = "no address";
  for (addrinfo* a = list; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      why = errnoText(errno);
      continue;
    }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 || errno == EINPROGRESS) {
      fd_ = fd;
      connecting_ = true;
      break;
    }
    why = errnoText(errno);
    ::close(fd);
  }
  ::freeaddrinfo(list);
  if (fd_ < 0) lastError_ = why;
  return fd_ >= 0 ? Start::Connecting : Start::Failed;
}

bool StreamFollower::pollTcp() {
  bool changed = false;
  if (fd_ < 0) {
    if (Clock::now() < nextAttempt_) return false;
    const std::string before = lastError_;
    const Start start = startConnect();
    if (start == Start::LookingUp) return false;  // asked again on the next poll
    if (start == Start::Failed) {
      scheduleRetry();
      return setState(State::Waiting) || before != lastError_;
    }
    changed = true;
  }
  if (connecting_) {
    pollfd p{fd_, POLLOUT, 0};
    const int ready = ::poll(&p, 1, 0);
    if (ready == 0) return changed;
    int code = 0;
    socklen_t length = sizeof code;
    if (ready < 0 || ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &code, &length) != 0 || code != 0) {
      dropConnection(errnoText(code != 0 ? code : errno));
      return true;
    }
    connecting_ = false;
    if (everOpened_) ++reconnects_;
    everOpened_ = true;
    reader_.restart();
    lastError_.clear();
    backoff_ = std::chrono::milliseconds{0};
    setState(State::Connected);
    changed = true;
  }
  std::vector<char> buffer(kReadChunk);
  std::size_t total = 0;
  while (total < kMaxBytesPerPoll) {
    const ssize_t n = ::recv(fd_, buffer.data(), std::min(buffer.size(), kMaxBytesPerPoll - total), 0);
    if (n > 0) {
      total += static_cast<std::size_t>(n);
      bytesReceived_ += n;
      reader_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
      changed = true;
      continue;
    }
    if (n == 0) {
      dropConnection("the connection was closed");
      return true;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    dropConnection(errnoText(errno));
    return true;
  }
  return changed;
}

}  // namespace ampscope
