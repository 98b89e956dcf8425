// Tables for any terminal (docs/cli.md "Tables"): the ranking fitted to COLUMNS, ids never cut, colour that does
// not shift the alignment, and the full table for pipes and --wide.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"

TEST_CASE("cli: the ranking table fits a narrow terminal, and --wide shows every column", "[cli][width]") {
  setenv("COLUMNS", "120", 1);
  const auto narrow = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B"});
  const auto wide = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B", "--wide"});
  unsetenv("COLUMNS");
  const auto piped = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B"});
  REQUIRE(narrow.code == 0);
  auto longest_row = [](const std::string& out) {
    std::size_t longest = 0;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("  1  ", 0) == 0 || line.rfind("  #  ", 0) == 0)  // columns: UTF-8 characters, not bytes ("…" is 3)
        longest = std::max(longest, static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; })));
    return longest;
  };
  CHECK(longest_row(narrow.out) > 0);
  CHECK(longest_row(narrow.out) <= 120);
  const auto header = narrow.out.substr(narrow.out.find("  #  "), narrow.out.find('\n', narrow.out.find("  #  ")) - narrow.out.find("  #  "));
  CHECK(header.find("headroom") == std::string::npos);
  CHECK(header.find("peak GB") != std::string::npos);  // the unit once, in the header
  CHECK(header.find("of usable") != std::string::npos);
  CHECK(longest_row(wide.out) > 150);
  CHECK(wide.out == piped.out);  // no terminal: the full table
  // Piped, the layout is never cut.
  CHECK(piped.out.find("…") == std::string::npos);
}

TEST_CASE("cli: at 60, 80, 100 and 200 columns every ranking row fits, ids are never cut and the columns go in the stated order", "[cli][width]") {
  // docs/cli.md "Tables": the layout shortened to 26, then the card's capacity, headroom, hourly price and memory bar
  // dropped, the layout to 16, then the GPU count, the peak, the job time, the layout, the throughput; the job cost
  // goes last. Colour never shifts the alignment: the same text with and without it.
  const auto ids = test::run_json({"gpus"});
  std::vector<std::string> every_id;
  for (const auto& g : ids["gpus"]) every_id.push_back(g["id"].get<std::string>());
  REQUIRE(every_id.size() > 20);
  auto columns = [](const std::string& line) {
    return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
  };
  for (const char* width : {"60", "80", "100", "200"}) {
    setenv("COLUMNS", width, 1);
    const auto r = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B"});
    const auto colored = test::run({"--model", "7B", "--mode", "finetune", "--tokens", "1B", "--color", "always"});
    unsetenv("COLUMNS");
    REQUIRE(r.code == 0);
    const std::size_t limit = static_cast<std::size_t>(std::stoi(width));
    std::istringstream lines(r.out);
    std::size_t rows = 0;
    bool header = false;
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  #  ", 0) == 0) {
        header = true;
        CHECK(columns(line) <= limit);
        CHECK(line.find("job cost") != std::string::npos);  // the last to go
        if (limit <= 80) CHECK(line.find("of usable") == std::string::npos);
        continue;
      }
      if (!header || line.empty()) {
        if (header && line.empty()) header = false;
        continue;
      }
      ++rows;
      CHECK(columns(line) <= limit);
      std::istringstream words(line);
      std::string number, id;
      words >> number >> id;
      CHECK(std::find(every_id.begin(), every_id.end(), id) != every_id.end());  // never cut
    }
    CHECK(rows == every_id.size());
    // Without its escapes, the coloured table is the plain one.
    std::string stripped;
    for (std::size_t i = 0; i < colored.out.size(); ++i) {
      if (colored.out[i] == '\x1b') {
        while (i < colored.out.size() && colored.out[i] != 'm') ++i;
        continue;
      }
      stripped += colored.out[i];
    }
    CHECK(stripped == r.out);
  }
}

TEST_CASE("tables: gpus and models fit 60 and 80 columns with whole ids, and pipes get every column", "[cli][width]") {
  auto columns = [](const std::string& line) {
    return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
  };
  for (const char* cmd : {"gpus", "models"}) {
    const auto full = test::run({cmd});
    REQUIRE(full.code == 0);
    const auto doc = test::run_json({cmd});
    for (const char* width : {"60", "80"}) {
      setenv("COLUMNS", width, 1);
      const auto r = test::run({cmd});
      unsetenv("COLUMNS");
      const std::size_t limit = static_cast<std::size_t>(std::stoi(width));
      std::istringstream lines(r.out);
      std::string line;
      std::getline(lines, line);
      CHECK(line.rfind("id ", 0) == 0);
      std::size_t rows = 0;
      while (std::getline(lines, line) && !line.empty()) {
        CHECK(columns(line) <= limit);
        ++rows;
        const std::string id = line.substr(0, line.find(' '));
        const auto& list = doc[std::string(cmd) == "gpus" ? "gpus" : "models"];
        CHECK(std::any_of(list.begin(), list.end(), [&](const auto& e) { return e["id"] == id; }));
      }
      CHECK(rows == doc[std::string(cmd) == "gpus" ? "gpus" : "models"].size());
      CHECK(r.out.size() < full.out.size());
    }
  }
  CHECK(test::run({"models"}).out.find("…") == std::string::npos);
}

TEST_CASE("tables: --help and the ranking's notes wrap at spaces to the terminal, and pipes keep whole lines", "[cli][width]") {
  auto words_of = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  };
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"}, std::vector<std::string>{"--model", "7B", "--mode", "finetune", "--tokens", "1B"}}) {
    const auto piped = test::run(args);
    setenv("COLUMNS", "80", 1);
    const auto narrow = test::run(args);
    unsetenv("COLUMNS");
    REQUIRE(narrow.code == 0);
    std::istringstream lines(narrow.out);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("    ", 0) != 0)  // launch hints stay whole, to be copied
        CHECK(std::count_if(line.begin(), line.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }) <= 80);
    if (args.front() == "--help") CHECK(words_of(narrow.out) == words_of(piped.out));  // the same words, none broken
  }
}
