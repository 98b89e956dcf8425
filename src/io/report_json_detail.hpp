#pragma once
// JSON helpers shared by the JSON renderers (report_json.cpp, report_lists.cpp); internal to the io layer.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpuadvise/note.hpp"
#include "gpuadvise/launch_hints.hpp"
#include "gpuadvise/planning.hpp"
#include "gpuadvise/ranking.hpp"

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
// A GPU's cost-time frontier, and a serving plan's front of tokens per second per GPU against per user
// (report_json_fronts.cpp): each an array.
void write_frontier(JsonWriter& o, const std::vector<FrontierPoint>& frontier);
// A plan's memory (report_json_memory.cpp): the peak, its components, the engine's pool, what llama.cpp keeps in host
// memory, and with `explain` each component's formula.
void write_memory(JsonWriter& o, const MemoryEstimate& mem, bool explain);
void write_serving_front(JsonWriter& o, const std::vector<ServingPoint>& front);

}  // namespace gpuadvise::detail
