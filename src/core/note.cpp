// Notes rendered when read (note.hpp).
#include "gpuadvise/note.hpp"

#include <fmt/args.h>

namespace gpuadvise {

std::string Note::text() const {
  if (kind_ == Kind::written) return strings_;
  if (kind_ == Kind::literal) return std::string(format_);
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  std::size_t next_text = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    switch (types_[i]) {
      case Arg::number: store.push_back(values_[i].number); break;
      case Arg::integer: store.push_back(values_[i].integer); break;
      case Arg::static_text: store.push_back(fmt::string_view(values_[i].static_text, lengths_[i])); break;
      case Arg::text:
        store.push_back(fmt::string_view(strings_.data() + next_text, lengths_[i]));
        next_text += lengths_[i];
        break;
    }
  }
  return fmt::vformat(fmt::string_view(format_.data(), format_.size()), store);
}

}  // namespace gpuadvise
