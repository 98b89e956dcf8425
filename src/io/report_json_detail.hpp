#pragma once
// JSON helpers shared by the JSON renderers (report_json.cpp, report_lists.cpp); internal to the io layer.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "gpuadvise/note.hpp"
#include "gpuadvise/launch_hints.hpp"
#include "gpuadvise/planning.hpp"

namespace gpuadvise {

// A note is written as its text (found by nlohmann/json through the argument's namespace).
template <typename Json>
void to_json(Json& j, const Note& n) {
  j = n.text();
}

}  // namespace gpuadvise

namespace gpuadvise::detail {

using ojson = nlohmann::ordered_json;

// A known value or null (unknown stays null in every output).
inline ojson opt(const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); }
inline ojson opt(const std::optional<std::string>& v) { return v ? ojson(*v) : ojson(nullptr); }

// The keys every command's JSON opens with: schema_version, tool_version, command; as a tree, or written (with the
// catalogue's version before the command where the answer depends on it).
ojson command_header(const char* command);
class JsonWriter;
void write_command_header(JsonWriter& o, const char* command, const std::string* catalog_version = nullptr);

// A DeepSpeed config as ds_config.json holds it (the launch hints' JSON), and on one line with a space after each
// colon and comma (the table's launch hints).
ojson deepspeed_json(const DeepSpeedConfig& ds);
std::string one_line(const ojson& j);

}  // namespace gpuadvise::detail
