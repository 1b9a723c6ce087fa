#include "stdout_buffer.h"

#include <unistd.h>

#include <cerrno>

namespace ampscope::cli {

namespace {
constexpr std::size_t kChunk = 64 * 1024;
}

StdoutBuffer::StdoutBuffer(int fd) : fd_(fd), lineBuffered_(::isatty(fd) == 1) { pending_.reserve(kChunk); }

StdoutBuffer::~StdoutBuffer() { flushAll(); }

bool StdoutBuffer::writeOut(const char* data, std::size_t size) {
  if (firstError_ != 0) return false;  // what follows a lost write would be a corrupt stream
  while (size > 0) {
    const ssize_t written = ::write(fd_, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      firstError_ = errno;
      return false;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return true;
}

bool StdoutBuffer::flushAll() {
  const bool ok = writeOut(pending_.data(), pending_.size());
  pending_.clear();
  return ok;
}

StdoutBuffer::int_type StdoutBuffer::overflow(int_type ch) {
  if (traits_type::eq_int_type(ch, traits_type::eof())) return sync() == 0 ? traits_type::not_eof(ch) : ch;
  const char c = traits_type::to_char_type(ch);
  return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
}

std::streamsize StdoutBuffer::xsputn(const char* s, std::streamsize n) {
  if (firstError_ != 0) return 0;
  pending_.append(s, static_cast<std::size_t>(n));
  const bool endsLine = lineBuffered_ && pending_.find('\n') != std::string::npos;
  if ((pending_.size() >= kChunk || endsLine) && !flushAll()) return 0;
  return n;
}

int StdoutBuffer::sync() { return flushAll() ? 0 : -1; }

}  // namespace ampscope::cli
