#include "ampscope/engine/stream_follower.h"

namespace ampscope {

std::string FollowTarget::text() const {
  if (kind == Kind::File) return path;
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

std::optional<FollowTarget> parseFollowTarget(std::string_view text, std::string* error) {
  if (text.empty()) {
    if (error) *error = "empty target";
    return std::nullopt;
  }
  FollowTarget target;
  target.path = std::string(text);
  return target;
}

// Not yet implemented: the follower stays Waiting.
StreamFollower::StreamFollower(FollowTarget target, RecordStreamReader::Limits limits)
    : target_(std::move(target)), reader_(limits) {}

StreamFollower::~StreamFollower() { close(); }

bool StreamFollower::poll() { return false; }

std::string StreamFollower::stateText() const { return "waiting for " + target_.text(); }

void StreamFollower::close() { state_ = State::Closed; }

}  // namespace ampscope
