// Files and streams the CLI reads: a regular file or stdin, each within the size cap of bounds.hpp
// (docs/testing.md, "Security"), and the user's own files under ~/.config/gpuadvise.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "gpuadvise/bounds.hpp"
#include "gpuadvise/escape.hpp"
#include "support.hpp"

namespace gpuadvise::cli {

namespace {
// Reads with limits (docs/testing.md, "Security"): a regular file only (a device, FIFO or socket would block or
// never end), at most k_max_input_file_bytes, checked before and while reading.
std::string too_large(const std::string& flag, const std::string& path) {
  return flag + ": '" + printable(path) + "' is larger than " + std::to_string(k_max_input_file_bytes >> 20) +
         " MiB, the most gpuadvise reads from one input file";
}

std::optional<std::string> slurp(const std::filesystem::path& path, const std::string& flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  if (!S_ISREG(st.st_mode))
    throw UserError{2, flag + ": '" + printable(path.string()) + "' is not a regular file (a device, FIFO or socket is not read; give a file, or - for stdin)"};
  if (static_cast<std::uintmax_t>(st.st_size) > k_max_input_file_bytes) throw UserError{2, too_large(flag, path.string())};
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char block[1 << 16];
  while (f.read(block, sizeof block) || f.gcount() > 0) {
    text.append(block, static_cast<std::size_t>(f.gcount()));
    if (text.size() > k_max_input_file_bytes) throw UserError{2, too_large(flag, path.string())};  // it grew while read
  }
  if (f.bad()) return std::nullopt;
  return text;
}
}  // namespace

std::optional<std::string> read_file(const std::string& path, std::istream& in, const std::string& flag) {
  if (path == "-") {
    // Standard input, with the same cap: read in blocks, stopped at the limit.
    std::string text;
    char block[1 << 16];
    while (in.read(block, sizeof block) || in.gcount() > 0) {
      text.append(block, static_cast<std::size_t>(in.gcount()));
      if (text.size() > k_max_input_file_bytes) throw UserError{2, too_large(flag, "stdin")};
    }
    return text;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // A model snapshot folder: its config.json. Any other folder is not a file to read.
    const auto config = std::filesystem::path(path) / "config.json";
    if (!std::filesystem::is_regular_file(config, ec)) return std::nullopt;
    return slurp(config, flag);
  }
  return slurp(path, flag);
}

// A user file: $ENV, else $XDG_CONFIG_HOME/gpuadvise/NAME, else ~/.config/gpuadvise/NAME ("" without a home).
std::string config_path(const char* env, const std::string& name) {
  if (const char* p = std::getenv(env); p && *p) return p;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/gpuadvise/" + name;
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/gpuadvise/" + name;
  return "";
}

// Its text, or nothing when there is no such file; a file that exists but cannot be read is bad input.
std::optional<std::string> read_config_file(const std::string& path, const std::string& what, const std::string& remedy) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::nullopt;
  auto text = slurp(path, what);
  if (!text) throw UserError{2, what + " '" + path + "' cannot be read (" + remedy + ")"};
  return text;
}

}  // namespace gpuadvise::cli
