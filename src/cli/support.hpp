#pragma once
// The CLI's shared plumbing (support.cpp) and its generated documentation (docs.cpp), used by app.cpp's commands.
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Only pointers and references to CLI11's types here: including CLI11 constructs its validator objects in
// every file that does, at every start (app.cpp, support.cpp and docs.cpp include it).
namespace CLI {
class App;
class Option;
}  // namespace CLI

#include "bundled.hpp"
#include "gpuadvise/catalog.hpp"
#include "gpuadvise/cost.hpp"
#include "gpuadvise/gpu.hpp"
#include "gpuadvise/model.hpp"
#include "gpuadvise/workload.hpp"

namespace gpuadvise::cli {

struct UserError {
  int code;
  std::string message;
};

// One workload flag: its snake_case key (workload files use the same), the flag text and its value.
struct Flag {
  std::string key;
  std::string name;
  std::string value;
  CLI::Option* opt = nullptr;
  bool is_switch = false;        // a flag without value
  std::string switch_value;      // value a switch stands for
};

// The long options a command line gives ("--model" of "--model=7B"). Registering only those skips most of
// CLI11's work per option (each new option's names are checked against every earlier one's); a command line
// that does not parse is parsed again with every option, for its message and suggestions.
class GivenNames {
 public:
  GivenNames(int argc, const char* const* argv);
  // Whether any of an option's names ("--framework,--engine") is given.
  bool any_of(std::string_view names) const;

 private:
  std::vector<std::string_view> names_;
};

struct WorkloadFlags {
  const GivenNames* given = nullptr;  // register only the settings given (null: all of them)
  std::vector<std::unique_ptr<Flag>> flags;
  std::string workload_file;
  CLI::Option* workload_opt = nullptr;
};

// Whether to register an option: always when every option is registered (no GivenNames), else when the command
// line names it.
inline bool wanted(const GivenNames* given, std::string_view names) { return !given || given->any_of(names); }

struct CostFlags {
  const GivenNames* given = nullptr;  // register only the options given (null: all of them)
  std::vector<std::string> prices;     // ID=USD
  std::vector<std::string> purchases;  // ID=USD
  std::string prices_file;
  std::string provider;
  std::string price_policy;  // --price-policy: cheapest (default) or median
  std::vector<std::pair<std::string, double>> default_prices;  // the defaults file's, below --prices and --price
};

struct OutputFlags {
  const GivenNames* given = nullptr;  // register only the options given, and -q and -v (null: all of them)
  std::string format = "table";
  std::string color = "auto";
  bool explain = false;
  bool hints = false;
  std::string catalog;
  int verbose = 0;
  bool quiet = false;
  bool wide = false;
  std::string units = "gb";
};

// Flags, registered once per command that takes them.
void add_workload_flags(CLI::App* app, WorkloadFlags& wf);
void add_cost_flags(CLI::App* app, CostFlags& cf);
void add_output_flags(CLI::App* app, OutputFlags& of, bool with_explain);
// A job's command (the ranking, estimate, check, sweep): the workload, cost and output flags, in that order.
void add_job_flags(CLI::App* app, WorkloadFlags& wf, CostFlags& cf, OutputFlags& of, bool with_explain);
// Every option's --help placeholder says what kind of value it takes (N, ID, FILE, USD, ...), never TEXT.
void name_placeholders(CLI::App& app);

// A file's text ("-" reads the stream; a folder: its config.json); nothing when it cannot be read.
// `flag` names where the path came from in the errors (a device or FIFO, a file over the cap of bounds.hpp).
std::optional<std::string> read_file(const std::string& path, std::istream& in, const std::string& flag);
int terminal_width();
// The values each enumerated flag takes (choices.cpp): the checks below and the completions read the same lists.
const std::vector<std::pair<std::string, std::vector<std::string>>>& flag_choices();
const std::vector<std::string>& choices_of(std::string_view flag);
bool is_choice(std::string_view flag, const std::string& value);
std::string choices_text(std::string_view flag);  // "a, b, c"
std::string lower(std::string s);                // ASCII lower case: vendors, families and ids match in any case
bool use_color(const std::string& mode);
void check_format(const std::string& f);
// The workloads of --workload (or one empty), with the command line's flags over each.
std::vector<RawWorkload> collect_workloads(const WorkloadFlags& wf, std::istream& in);
// The one workload of a command that takes one (`command` names it in the error when a file holds several).
RawWorkload one_workload(const WorkloadFlags& wf, std::istream& in, const std::string& command);
// The same one at a time, each handed to `each` as it is read (check streams a file of thousands); the count.
// With `check_all`, every workload goes through it before the first goes to `each` (the file is read once):
// bad input stops the command before anything is written.
std::size_t for_each_given_workload(const WorkloadFlags& wf, std::istream& in, const std::function<void(RawWorkload&&)>& each,
                                    const std::function<void(RawWorkload&&)>& check_all = {});
// A user file: $ENV, else $XDG_CONFIG_HOME/gpuadvise/NAME, else ~/.config/gpuadvise/NAME ("" without a home).
std::string config_path(const char* env, const std::string& name);
// The defaults file's path (defaults.cpp).
std::string defaults_path();
// A file an environment variable names must exist: bad input naming the variable otherwise (the default paths
// under ~/.config may be absent).
void require_named_file(const char* env, const std::string& path, const std::string& what);
std::optional<std::string> read_config_file(const std::string& path, const std::string& what, const std::string& remedy);

// The GPU catalogue (bundled, --catalog, and the user's additions) and the bundled model presets.
GpuCatalog load_gpus(const OutputFlags& of, std::istream& in, Provenance provenance = Provenance::left_out);
const ModelCatalog& load_models();
ModelSpec model_for(const Workload& w, std::istream& in);
std::string local_gpu_name(const std::string& flag);
// The CPU instances offered beside the GPUs (data/cpus.json, method.md §16), parsed once.
const GpuCatalog& cpu_instances();
const GpuSpec& gpu_for(const std::string& id_in, const GpuCatalog& cat, const std::string& flag = "--gpu");
double flag_number(const std::string& text, const std::string& flag, const std::string& what, double lo, double hi, bool integer = false,
                   bool lo_open = false, bool hi_open = false);
std::pair<std::string, double> parse_id_usd(const std::string& text, const std::string& flag, const GpuCatalog& cat);
std::string calibration_path();
std::vector<LocalCorrection> load_corrections(const std::string& path);
void check_provider(const std::string& provider, const GpuCatalog& cat);
CostOptions cost_options(const CostFlags& cf, const GpuCatalog& cat, std::istream& in);
std::string sweep_value_text(double v);

// Generated from the option definitions (docs.cpp).
std::string completion_script(const std::string& shell, CLI::App& app, const GpuCatalog& gpus, const ModelCatalog& models);
std::string man_page(CLI::App& app);
std::string cli_reference(CLI::App& app);

}  // namespace gpuadvise::cli
