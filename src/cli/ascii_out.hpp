#pragma once
// Text for terminals whose locale is not UTF-8 (LC_ALL=C, POSIX, ISO-8859-*): the few non-ASCII characters the
// tables and notes use (dashes, ellipsis, multiplication sign, arrows, inequalities) written as ASCII, the rest as
// '?'. JSON stays UTF-8, as its specification requires.
#include <ostream>
#include <streambuf>
#include <string>

namespace gpuadvise::cli {

// Whether the locale the environment names (LC_ALL, else LC_CTYPE, else LANG) is set and not UTF-8.
bool ascii_locale();

// A stream buffer that forwards to `target`, transliterating UTF-8 as it passes (a sequence split between two
// writes is held until it completes).
class AsciiBuf : public std::streambuf {
 public:
  explicit AsciiBuf(std::streambuf* target) : target_(target) {}
  ~AsciiBuf() override;

 protected:
  int_type overflow(int_type ch) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void put(unsigned char byte);
  void flush_pending();
  std::streambuf* target_;
  std::string pending_;  // an incomplete UTF-8 sequence
  std::size_t need_ = 0; // its length when complete
};

}  // namespace gpuadvise::cli
