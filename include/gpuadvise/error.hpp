#pragma once
// Errors on user input. The library throws InputError for anything a user typed or a file held;
// the CLI turns it into one line on stderr and exit status 2.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpuadvise {

class InputError : public std::runtime_error {
public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// Levenshtein distance, for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidates to `word` (at most `limit`), best first; empty when nothing is close.
std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t limit = 3);

// "did you mean 'x'?" or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& items, std::string_view sep);

// A user's text as an error message quotes it: whole when short, its first 60 characters and its length when
// long (a pasted megabyte is not echoed back).
std::string quote_input(std::string_view text);

}  // namespace gpuadvise
