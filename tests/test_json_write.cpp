// The JSON writer (src/io/json_write.hpp) lays out what it writes as nlohmann/json's dump(2) does, byte for byte:
// the ranking's and estimate's JSON changed from a tree to direct writing with no change in their output.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "json_write.hpp"

using gpuadvise::detail::JsonWriter;
using ojson = nlohmann::ordered_json;

namespace {
std::string written(const ojson& j) {
  std::string out;
  JsonWriter w(out);
  w.tree(j);
  return out;
}
}  // namespace

TEST_CASE("json writer: every kind of value laid out as nlohmann/json's dump(2)", "[json]") {
  ojson j;
  j["int"] = -42;
  j["unsigned"] = std::uint64_t{18446744073709551615ULL};
  j["floats"] = {0.1, 100.0, 1e20, 1.5e-7, -0.0, 0.0, 2.0 / 3.0, 85520809984.0, std::numeric_limits<double>::quiet_NaN(),
                 std::numeric_limits<double>::infinity()};
  j["bools"] = {true, false};
  j["null"] = nullptr;
  j["empty_object"] = ojson::object();
  j["empty_array"] = ojson::array();
  j["text"] = {"plain", "quote \" backslash \\ tab \t newline \n", "control \x01 \x1f", "UTF-8: – § ü", ""};
  j["nested"] = {{"a", {{"b", ojson::array({ojson::object(), ojson::array({1, 2})})}}}, {"c", "d"}};
  CHECK(written(j) == j.dump(2));
  CHECK(written(ojson(3.25)) == "3.25");
  CHECK(written(ojson::array()) == "[]");
}

TEST_CASE("json writer: written member by member, the same text as the tree", "[json]") {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.member("name", std::string("H100"));
  w.member("gpus", 8);
  w.member("share", 0.5);
  w.member("unknown", std::optional<double>{});
  w.member("known", std::optional<double>{2.5});
  w.text_or_null("empty", "");
  w.key("list");
  w.value(std::vector<std::string>{"a", "b"});
  w.key("nothing");
  w.begin_array();
  w.end_array();
  w.end_object();
  const ojson j = {{"name", "H100"}, {"gpus", 8}, {"share", 0.5}, {"unknown", nullptr}, {"known", 2.5}, {"empty", nullptr},
                   {"list", {"a", "b"}}, {"nothing", ojson::array()}};
  CHECK(out == j.dump(2));
}

TEST_CASE("json writer: text nlohmann/json refuses (invalid UTF-8) fails as it fails", "[json]") {
  std::string out;
  JsonWriter w(out);
  CHECK_THROWS_AS(w.string("bad \xff\xfe"), nlohmann::json::type_error);
}
