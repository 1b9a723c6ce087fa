// std::cout's buffer for ampscope-cli: writes straight to a file descriptor and keeps the errno of the
// first write that failed. Through stdio the reason is gone by the time the stream is checked (a later
// call resets errno), so "cannot write to standard output" could not say whether the disk was full or
// the reader had gone.
#pragma once

#include <streambuf>
#include <string>

namespace ampscope::cli {

class StdoutBuffer : public std::streambuf {
 public:
  explicit StdoutBuffer(int fd);
  ~StdoutBuffer() override;
  StdoutBuffer(const StdoutBuffer&) = delete;
  StdoutBuffer& operator=(const StdoutBuffer&) = delete;

  // Writes what is buffered; false once any write has failed.
  bool flushAll();
  int firstError() const { return firstError_; }  // errno of the first failed write, 0 if none

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool writeOut(const char* data, std::size_t size);

  int fd_;
  bool lineBuffered_;  // a terminal sees each line as it is finished, as stdio would show it
  std::string pending_;
  int firstError_ = 0;
};

}  // namespace ampscope::cli
