// Notes kept as a format and its arguments (note.hpp): the text they render is the text fmt writes for the
// same format and arguments, whatever kind of argument each is.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <string>

#include "gpuadvise/note.hpp"

using namespace gpuadvise;

TEST_CASE("note: a literal, a written text and an empty note", "[note]") {
  const Note literal("less than 10% headroom {not a field}");
  CHECK(literal.text() == "less than 10% headroom {not a field}");
  CHECK_FALSE(literal.empty());
  const Note written(std::string("from a catalogue: ") + "NVLink");
  CHECK(written.text() == "from a catalogue: NVLink");
  Note none;
  CHECK(none.empty());
  CHECK(none.text().empty());
  Note cleared = Note::format("{} nodes", 2);
  cleared.clear();
  CHECK(cleared.empty());
}

TEST_CASE("note: numbers, integers, copied and static text render as fmt writes them", "[note]") {
  const double share = 12.345;
  const std::int64_t nodes = 8;
  std::string network = "NDR InfiniBand 400 Gb/s per GPU, a name longer than the small-string buffer";
  const char* family = "Hopper";
  const Note n = Note::format("{} nodes joined by {} ({:g} Gb/s): {:.1f}% idle on {}, {}", nodes, network, 400.0, share, family, 3u);
  network = "changed after the note was made";  // a std::string argument is copied
  CHECK(n.text() == "8 nodes joined by NDR InfiniBand 400 Gb/s per GPU, a name longer than the small-string buffer (400 Gb/s): 12.3% idle on Hopper, 3");
  CHECK(n.text() == fmt::format("{} nodes joined by {} ({:g} Gb/s): {:.1f}% idle on {}, {}", 8, "NDR InfiniBand 400 Gb/s per GPU, a name longer than the small-string buffer", 400.0, 12.345, "Hopper", 3));
  // Escaped braces are the format's, not text: "{{" renders "{".
  CHECK(Note::format("{{{}}}", 1).text() == "{1}");
}

TEST_CASE("note: notes compare by their text and a list renders in order", "[note]") {
  CHECK(Note::format("{} GPUs", 4) == Note("4 GPUs"));
  CHECK_FALSE(Note::format("{} GPUs", 4) == Note("8 GPUs"));
  const Notes list{Note("first"), Note::format("second: {:.0f}", 2.4), Note(std::string("third"))};
  std::vector<std::string> texts;
  for (const auto& n : list) texts.push_back(n.text());
  CHECK(texts == std::vector<std::string>{"first", "second: 2", "third"});
}
