// The command line: owns files, streams, colour, logging and exit codes; everything else is the library.
#include "app.hpp"
#include "ascii_out.hpp"
#include "commands.hpp"
#include "support.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/ranking.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/probe.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

namespace {

std::string suggest_flag(const std::string& msg, const CLI::App& app) {
  // "The following arguments were not expected: 2 --bacth" -> did you mean '--batch'?
  std::istringstream words(msg);
  std::string word;
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) names.push_back("--" + n);
  std::vector<std::string> subcommands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) subcommands.push_back(sub->get_name());
  // Only CLI11's "The following argument(s) was/were not expected: ..." lists the words a user typed.
  const bool unexpected = msg.find("not expected") != std::string::npos;
  const auto colon = msg.find(": ");
  if (colon != std::string::npos) words.str(msg.substr(colon + 2));
  while (words >> word) {
    // A misspelt subcommand comes first among the unexpected words: "estimat" -> did you mean 'estimate'?
    if (word.rfind("-", 0) != 0 && !subcommands.empty() && unexpected) {
      const std::string hint = did_you_mean(word, subcommands);
      if (!hint.empty()) return hint;
      continue;
    }
    if (word.rfind("--", 0) != 0 || word.size() < 3) continue;
    if (const auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    std::string hint = did_you_mean(word, names);
    // Far in spelling but a part of a longer name: --checkpointing -> --gradient-checkpointing.
    for (const auto& n : names)
      if (hint.empty() && word.size() >= 5 && n.find(word.substr(2)) != std::string::npos) hint = "did you mean '" + n + "'?";
    return hint;
  }
  return "";
}

// CLI11's "The following arguments were not expected: x --bogus" in the project's words: the first word of the
// command line it lists, as typed, a flag or a stray value.
std::string unexpected_words(const std::string& msg, int argc, const char* const* argv) {
  std::vector<std::string> listed;
  if (const auto colon = msg.find(": "); colon != std::string::npos) {
    std::istringstream words(msg.substr(colon + 2));
    for (std::string w; words >> w;) listed.push_back(w);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (std::find(listed.begin(), listed.end(), a) == listed.end()) continue;
    if (a.rfind("--", 0) == 0) return "unknown flag " + quote_input(a.substr(0, a.find('=')));
    return "unexpected argument " + quote_input(a) + (i > 1 && std::string_view(argv[i - 1]).rfind("-", 0) == 0 ? " after " + quote_input(argv[i - 1]) : "");
  }
  return msg;
}

const char* k_examples = R"(
Examples:
  gpuadvise --model 7B --precision bf16 --mode finetune
  gpuadvise --model llama-3.1-8b --mode lora --precision bf16 --tokens 100M
  gpuadvise --model llama-3.1-8b --mode inference --requests 1M --input-tokens 512 --output-tokens 256 --format json
  gpuadvise estimate --model llama-2-7b --mode inference --seq-len 4096 --gpu h100-sxm-80gb --explain
  gpuadvise estimate --model mixtral-8x7b --mode inference --engine vllm --gpus 2 --tp 2 --gpu h100-sxm-80gb
  gpuadvise gpus                 gpuadvise gpus h100-sxm-80gb          gpuadvise models

Exit status: 0 ok (also when nothing fits: the output says so), 1 a check failed, 2 bad input, 3 the output could not be written
(a full disk or a closed pipe) or an internal error.

Environment: COLUMNS (table width), NO_COLOR, CLICOLOR_FORCE, TERM=dumb, LC_ALL/LC_CTYPE/LANG (not UTF-8: ASCII text),
GPUADVISE_CONFIG (defaults), GPUADVISE_CATALOG (your GPUs), GPUADVISE_CALIBRATION (measured corrections), XDG_CONFIG_HOME/HOME (where they are looked for).
Details: gpuadvise manpage, docs/cli.md.
)";

// Each subcommand's options are registered only when that subcommand is run (CLI11 calls its pre-parse
// callback before it reads the subcommand's arguments), or for the commands that describe them all (completions,
// the man page and the CLI reference): registering every subcommand's options cost about 1.5 ms a start.
class LazyOptions {
 public:
  void defer(CLI::App* sub, std::function<void()> add) {
    entries_.push_back({sub, std::move(add), false});
    sub->preparse_callback([this, i = entries_.size() - 1](std::size_t) { realise(i); });
  }
  void realise_all() {
    for (std::size_t i = 0; i < entries_.size(); ++i) realise(i);
  }

 private:
  struct Entry {
    CLI::App* sub;
    std::function<void()> add;
    bool done;
  };
  void realise(std::size_t i) {
    if (entries_[i].done) return;
    entries_[i].done = true;
    entries_[i].add();
    name_placeholders(*entries_[i].sub);
  }
  std::vector<Entry> entries_;
};

// Every command's flags, filled by CLI11 as it parses, and the subcommands they belong to.
struct Commands {
  RankFlags rank;
  OutputFlags rank_of;
  CLI::App *est = nullptr, *chk = nullptr, *fitc = nullptr, *gpus = nullptr, *prb = nullptr, *cal = nullptr, *swp = nullptr,
           *comp = nullptr, *manp = nullptr, *models = nullptr;
  EstimateFlags est_flags;
  CheckFlags chk_flags;
  FitFlags fit_flags;
  GpusFlags gpus_flags;
  ProbeFlags prb_flags;
  CalibrateFlags cal_flags;
  SweepFlags swp_flags;
  ModelsFlags models_flags;
  std::string comp_shell;
  OutputFlags est_of, chk_of, fit_of, gpus_of, prb_of, cal_of, swp_of, manp_of, models_of;

  // Every command registers only the options the command line gives (GivenNames).
  void register_only(const GivenNames& given) {
    for (WorkloadFlags* wf : {&rank.wf, &est_flags.wf, &chk_flags.chk_wf, &fit_flags.fit_wf, &prb_flags.prb_wf, &swp_flags.swp_wf}) wf->given = &given;
    for (CostFlags* cf : {&rank.cf, &est_flags.cf, &chk_flags.chk_cf, &swp_flags.swp_cf}) cf->given = &given;
    for (OutputFlags* of : {&rank_of, &est_of, &chk_of, &fit_of, &gpus_of, &prb_of, &cal_of, &swp_of, &manp_of, &models_of}) of->given = &given;
  }

  // The subcommand that was run (its parse errors get its own flags' suggestions), or nullptr for the ranking.
  CLI::App* parsed() const {
    for (CLI::App* a : {est, chk, fitc, gpus, models, prb, cal, swp, comp, manp})
      if (a && a->parsed()) return a;
    return nullptr;
  }
  // The output flags of the command that was run.
  OutputFlags& output() {
    const CLI::App* a = parsed();
    if (!a) return rank_of;  // the ranking (the subcommands may not even exist)
    return a == est ? est_of : a == chk ? chk_of : a == fitc ? fit_of : a == gpus ? gpus_of : a == models ? models_of : a == prb ? prb_of
         : a == cal ? cal_of : a == manp ? manp_of : a == swp ? swp_of : rank_of;
  }
};

// The default command: the ranking's flags on the main app (registered at every start: it has no subcommand).
void register_ranking(CLI::App& app, Commands& c) {
  RankFlags& r = c.rank;
  add_job_flags(&app, r.wf, r.cf, c.rank_of, false);
  const GivenNames* g = r.wf.given;
  if (wanted(g, "--rank-by"))
    app.add_option("--rank-by", r.rank_by, "value | cost | time | gpus | headroom [value: cost per job, or per unit of work]")->group("Ranking");
  if (wanted(g, "--only,--gpu"))
    app.add_option("--only,--gpu", r.only, "rank only these GPU ids (repeatable or comma-separated; nvidia-smi and SkyPilot names work: H100, A100-80GB)")
        ->delimiter(',')
        ->group("Ranking");
  if (wanted(g, "--deadline"))
    app.add_option("--deadline", r.deadline, "scale out until the job finishes within it, keep the cheapest such plan: 90m, 36h, 2d")->group("Ranking");
  if (wanted(g, "--budget")) app.add_option("--budget", r.budget, "keep the fastest plan within this job cost (USD); drop GPUs over it")->group("Ranking");
  if (wanted(g, "--min-headroom"))
    app.add_option("--min-headroom", r.min_headroom, "free memory per GPU a plan must keep, in % of capacity [5]; less is 'tight'")->group("Ranking");
  if (wanted(g, "--max-gpus")) app.add_option("--max-gpus", r.max_gpus, "most GPUs a plan may use [64; with a job size 32,768, except --rank-by time]")->group("Ranking");
}

// The subcommands that take a workload: estimate, check, fit. Their options are registered only when run.
void register_workload_commands(CLI::App& app, Commands& c, LazyOptions& lazy) {
  c.est = app.add_subcommand("estimate", "memory (and, with --gpu, time) of one workload");
  lazy.defer(c.est, [&] {
    add_job_flags(c.est, c.est_flags.wf, c.est_flags.cf, c.est_of, true);
    c.est->add_option("--gpu", c.est_flags.gpu, "estimate on this GPU: verdict, capacity, time")->group("Workload");
    c.est->footer(k_examples);
  });

  c.chk = app.add_subcommand("check", "CI gate: assert that workloads fit GPUs within headroom, cost, time and GPU limits (exit 1 when not)");
  lazy.defer(c.chk, [&] {
    add_job_flags(c.chk, c.chk_flags.chk_wf, c.chk_flags.chk_cf, c.chk_of, false);
    c.chk->add_option("--gpu", c.chk_flags.chk_gpus, "a GPU id to check on (repeatable or comma-separated)")->delimiter(',')->group("Assertions");
    c.chk->add_option("--min-headroom", c.chk_flags.min_headroom, "free memory per GPU at the peak, in % of capacity")->group("Assertions");
    c.chk->add_option("--max-cost", c.chk_flags.max_cost, "cost of the job in USD")->group("Assertions");
    c.chk->add_option("--max-hours", c.chk_flags.max_hours, "billed time of the job: hours, or 90m, 1d, 1h30m")->group("Assertions");
    c.chk->add_option("--max-gpus", c.chk_flags.max_gpus, "GPUs the plan may use [as the workload says]")->group("Assertions");
    c.chk->footer("\nExample:\n  gpuadvise check --workload plans.json --gpu rtx-4090-24gb --min-headroom 10 --max-cost 200\n"
                "Exit status: 0 every assertion holds, 1 one failed (each failure is one line), 2 bad input, 3 the output could not be written.\n");
  });

  c.fitc = app.add_subcommand("fit", "the largest batch, sequence length or concurrency that fits a GPU");
  lazy.defer(c.fitc, [&] {
    add_workload_flags(c.fitc, c.fit_flags.fit_wf);
    add_output_flags(c.fitc, c.fit_of, false);
    c.fitc->add_option("--gpu", c.fit_flags.fit_gpu, "the GPU id")->group("Fit");
    c.fitc->add_option("--maximize", c.fit_flags.maximize, "batch | seq-len | concurrency [batch]")->group("Fit");
    c.fitc->add_option("--min-headroom", c.fit_flags.min_headroom, "keep at least this % of the card free, as the ranking does [5]")->group("Fit");
    c.fitc->footer("\nExample:\n  gpuadvise fit --gpu rtx-4090-24gb --model llama-3.1-8b --mode qlora --precision bf16 --seq-len 2048 --maximize batch\n");
  });
}

// The other subcommands: the catalogue, probe and calibration, sweep, completions, the man page, the presets.
void register_other_commands(CLI::App& app, Commands& c, LazyOptions& lazy) {
  c.gpus = app.add_subcommand("gpus", "list the GPU catalogue; 'gpus ID' shows one entry with its sources");
  lazy.defer(c.gpus, [&] {
    c.gpus->add_option("id", c.gpus_flags.gpu_id, "a GPU id (its entry and sources), or the start of several (h100, a100, rtx): those GPUs as a list");
    c.gpus->add_option("--vendor", c.gpus_flags.gpus_vendor, "only this vendor's GPUs: nvidia, amd, intel")->group("Filter");
    c.gpus->add_option("--min-memory", c.gpus_flags.gpus_min_memory, "only GPUs with at least this much memory, in GB")->group("Filter");
    c.gpus->add_option("--provider", c.gpus_flags.gpus_provider, "only GPUs this provider offers (a catalogue price)")->group("Filter");
    c.gpus->add_option("--sort", c.gpus_flags.gpus_sort, "memory | bandwidth | bf16 | price | id [catalogue order]")->group("Filter");
    c.gpus->footer("\nExamples:\n  gpuadvise gpus --vendor amd --sort memory\n  gpuadvise gpus --min-memory 80 --provider lambda --sort price\n");
    add_output_flags(c.gpus, c.gpus_of, false);
  });

  c.prb = app.add_subcommand("probe", "print a short PyTorch script that measures this workload's peak memory and speed on a real GPU");
  lazy.defer(c.prb, [&] {
    add_workload_flags(c.prb, c.prb_flags.prb_wf);
    add_output_flags(c.prb, c.prb_of, false);
    c.prb->add_option("--probe-steps", c.prb_flags.prb_steps, "timed steps after one warm-up [5]")->group("Probe");
    c.prb->footer("\nExample:\n  gpuadvise probe --model llama-3.1-8b --mode lora --batch 2 --seq-len 2048 > probe.py\n"
                "  python probe.py probe_result.json && gpuadvise calibrate probe_result.json\n");
  });

  c.cal = app.add_subcommand("calibrate", "compare a probe's measurement with the estimate; --save keeps the correction for later answers");
  lazy.defer(c.cal, [&] {
    c.cal->add_option("result", c.cal_flags.cal_file, "the JSON a probe script wrote (probe_result.json)");
    c.cal->add_option("--gpu", c.cal_flags.cal_gpu, "the GPU id it ran on [from the name the script recorded]")->group("Calibrate");
    c.cal->add_flag("--save", c.cal_flags.cal_save, "store the correction for this GPU, framework and kind of work")->group("Calibrate");
    c.cal->add_flag("--reset", c.cal_flags.cal_reset, "remove every stored correction")->group("Calibrate");
    add_output_flags(c.cal, c.cal_of, false);
    c.cal->footer("\nExamples:\n  gpuadvise calibrate probe_result.json            # measured beside estimated, and the correction\n"
                "  gpuadvise calibrate probe_result.json --save     # later answers like it on that GPU use it\n\n"
                "The corrections live in $GPUADVISE_CALIBRATION, else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else\n"
                "~/.config/gpuadvise/calibration.json; every answer they change says so.\n");
  });

  c.swp = app.add_subcommand("sweep", "vary one setting over a range and draw memory, throughput or cost against it, per GPU");
  lazy.defer(c.swp, [&] {
    add_job_flags(c.swp, c.swp_flags.swp_wf, c.swp_flags.swp_cf, c.swp_of, false);
    c.swp->add_option("--vary", c.swp_flags.swp_vary, "seq-len | batch | concurrency | lora-rank | gpus | image-size")->group("Sweep");
    c.swp->add_option("--from", c.swp_flags.swp_from, "first value")->group("Sweep");
    c.swp->add_option("--to", c.swp_flags.swp_to, "last value")->group("Sweep");
    c.swp->add_option("--points", c.swp_flags.swp_points, "values from --from to --to, evenly spaced on a log scale (whole numbers; --vary gpus: powers of two and --to) [8]")->group("Sweep");
    c.swp->add_option("--metric", c.swp_flags.swp_metric, "memory | time | cost [memory]")->group("Sweep");
    c.swp->add_option("--gpu", c.swp_flags.swp_gpus, "a GPU to draw (repeatable or comma-separated) [h100-sxm-80gb]")->delimiter(',')->group("Sweep");
    c.swp->footer("\nExample:\n  gpuadvise sweep --model llama-3.1-8b --mode lora --vary seq-len --from 1024 --to 32768 --gpu rtx-4090-24gb --gpu h100-sxm-80gb\n");
  });

  c.comp = app.add_subcommand("completions", "print a shell completion script: bash, zsh or fish");
  lazy.defer(c.comp, [&] {
    c.comp->add_option("shell", c.comp_shell, "bash | zsh | fish")->required();
    c.comp->footer("\nExample:\n  gpuadvise completions bash > /etc/bash_completion.d/gpuadvise\n");
  });
  c.manp = app.add_subcommand("manpage", "print the man page (roff), or with --format markdown the CLI reference (docs/cli.md)");
  lazy.defer(c.manp, [&] {
    c.manp_of.format = "roff";
    c.manp->add_option("--format", c.manp_of.format, "roff | markdown [roff]")->group("Output");
  });

  c.models = app.add_subcommand("models", "list the bundled model presets");
  lazy.defer(c.models, [&] {
    c.models->add_option("--kind", c.models_flags.models_kind, "only language | vision | generation models")->group("Filter");
    c.models->add_option("--family", c.models_flags.models_family, "only this family (llama, qwen2, mixtral, resnet, yolo, ...)")->group("Filter");
    add_output_flags(c.models, c.models_of, false);
  });
}

// What a run registers. A first pass registers only what the command line names: the subcommands when a word
// names one, the options it gives (GivenNames); help, completions and the man page describe them all.
struct Registration {
  bool subcommands = true;
  bool every_option = true;
  bool complete() const { return subcommands && every_option; }
};

// Parses the command line; an exit status when the run ends there (help, version, a parse error).
// k_retry: the command line did not parse with a partial registration; parse it again with everything (for the
// names in the error and its suggestion).
constexpr int k_retry = -1;

std::optional<int> parse_command_line(CLI::App& app, const Commands& c, int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                                      Registration reg) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << wrap_text(app.help(), terminal_width());  // at spaces, each option's text under its column
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << wrap_text(app.help("", CLI::AppFormatMode::All), terminal_width());
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    if (!reg.complete()) return k_retry;
    std::string msg = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
      const CLI::App* ctx = c.parsed() ? c.parsed() : &app;
      const std::string hint = suggest_flag(msg, *ctx);
      err << "gpuadvise: error: " << unexpected_words(msg, argc, argv) << (hint.empty() ? "" : "; " + hint) << " (see --help)\n";
      return 2;
    }
    const CLI::App* ctx = c.parsed() ? c.parsed() : &app;
    std::string hint = suggest_flag(msg, *ctx);
    err << "gpuadvise: error: " << msg << (hint.empty() ? "" : "; " + hint) << " (see --help)\n";
    return 2;
  }
  return std::nullopt;
}

// A value given empty is a typo or an unset variable, never "use the default": one line naming the flag.
void reject_empty_values(const CLI::App& app, const Commands& c) {
  for (const CLI::App* a : {&app, static_cast<const CLI::App*>(c.parsed())}) {
    if (!a) continue;
    for (const CLI::Option* o : a->get_options()) {
      if (o->count() == 0 || o->get_expected_min() == 0) continue;
      for (const auto& v : o->results())
        if (v.find_first_not_of(" \t") == std::string::npos) {
          const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
          std::string what = o->get_description();
          if (const auto bracket = what.rfind(" ["); bracket != std::string::npos && what.back() == ']') what.resize(bracket);
          throw UserError{2, name + ": expected " + (o->get_type_name().empty() ? std::string("a value") : o->get_type_name()) + " (" + what +
                                 "), got '" + v + "'"};
        }
    }
  }
}

// Runs the command that was parsed.
int dispatch(Commands& c, CLI::App& app, LazyOptions& lazy, const CommandContext& ctx) {
  const CLI::App* a = c.parsed();
  if (!a) return run_rank(c.rank, ctx);  // the default command (the subcommands may not even exist)
  if (a == c.gpus) return run_gpus(c.gpus_flags, ctx);
  if (a == c.models) return run_models(c.models_flags, ctx);
  if (a == c.swp) return run_sweep(c.swp_flags, ctx);
  if (a == c.comp || a == c.manp) {
    lazy.realise_all();  // every command's options, to describe them all
    if (a == c.comp) (*ctx.out_ptr) << completion_script(c.comp_shell, app, load_gpus(OutputFlags{}, ctx.in), load_models());
    else if (!ctx.md() && !is_choice("manpage --format", ctx.of.format))
      throw UserError{2, "--format: unknown value '" + ctx.of.format + "' for manpage (valid: " + choices_text("manpage --format") + ")"};
    else (*ctx.out_ptr) << (ctx.md() ? cli_reference(app) : man_page(app));
    return 0;
  }
  if (a == c.cal) return run_calibrate(c.cal_flags, ctx);
  if (a == c.prb) return run_probe(c.prb_flags, ctx);
  if (a == c.chk) return run_check(c.chk_flags, ctx);
  if (a == c.fitc) return run_fit(c.fit_flags, ctx);
  if (a == c.est) {
    c.est_flags.gpu_given = c.est->count("--gpu") > 0;
    return run_estimate(c.est_flags, ctx);
  }
  throw std::logic_error("a subcommand without a dispatch line: " + a->get_name());
}

// Whether the subcommands must exist to parse this command line: a word names one (a subcommand can come after
// the ranking's flags), or help is asked for (it lists them). The default command, the ranking, runs without
// building them (ten CLI::App objects and their options). A name missing here costs only the retry below.
bool names_any(int argc, const char* const* argv, std::initializer_list<std::string_view> names) {
  for (int i = 1; i < argc; ++i)
    for (std::string_view n : names)
      if (argv[i] == n) return true;
  return false;
}

bool needs_subcommands(int argc, const char* const* argv) {
  return names_any(argc, argv, {"estimate", "check", "fit", "gpus", "probe", "calibrate", "sweep", "completions", "manpage", "models", "-h", "--help",
                                "--help-all"});
}

// Whether the run describes options (help, completions, the man page): then it registers every one.
bool describes_options(int argc, const char* const* argv) {
  return names_any(argc, argv, {"completions", "manpage", "-h", "--help", "--help-all"});
}

int run_parsed(int argc, const char* const* argv, std::istream& in, std::ostream& out_stream, std::ostream& err, Registration reg);

}  // namespace

int run(int argc, const char* const* argv, std::istream& in, std::ostream& out_stream, std::ostream& err) {
  // Bare `gpuadvise` ranks no implicit job: it says how to ask (exit 0), as git and gh do.
  if (argc <= 1) {
    out_stream << "Usage: gpuadvise --model MODEL [--mode MODE] [--tokens N | --requests N ...] [OPTIONS]   rank every GPU for a job\n"
                  "       gpuadvise estimate|check|fit|sweep|probe|calibrate|gpus|models [OPTIONS]\n"
               << k_examples << "Run 'gpuadvise --help' for every option.\n";
    return 0;
  }
  const int status = run_parsed(argc, argv, in, out_stream, err, {needs_subcommands(argc, argv), describes_options(argc, argv)});
  return status == k_retry ? run_parsed(argc, argv, in, out_stream, err, {}) : status;
}

namespace {

int run_parsed(int argc, const char* const* argv, std::istream& in, std::ostream& out_stream, std::ostream& err, Registration reg) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
  auto logger = std::make_shared<spdlog::logger>("gpuadvise", sink);
  logger->set_pattern("gpuadvise: %l: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);

  CLI::App app{"gpuadvise: ranks GPUs for a deep-learning job: will it fit, how much memory each part takes, how many GPUs, "
               "how long it runs and what the completed job costs.",
               "gpuadvise"};
  app.footer(k_examples);
  app.set_version_flag("-V,--version", std::string("gpuadvise ") + tool_version() + " (schema " + std::to_string(k_schema_version) + ")");
  // A flag given twice: the last one wins, as in rg and fd (repeatable flags such as --gpu collect every value).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.require_subcommand(0, 1);
  Commands c;
  const GivenNames given(argc, argv);
  if (!reg.every_option) c.register_only(given);
  LazyOptions lazy;
  register_ranking(app, c);
  if (reg.subcommands) {
    register_workload_commands(app, c, lazy);
    register_other_commands(app, c, lazy);
  }
  name_placeholders(app);

  try {
    if (const auto status = parse_command_line(app, c, argc, argv, out_stream, err, reg)) return *status;
    reject_empty_values(app, c);
    OutputFlags& of = c.output();
    const CLI::App* run = c.parsed() ? c.parsed() : &app;
    apply_defaults({{&c.rank.cf, &c.est_flags.cf, &c.chk_flags.chk_cf, &c.swp_flags.swp_cf}, &c.rank, &c.fit_flags, &of}, [&](const char* name) {
      const CLI::Option* o = run->get_option_no_throw(name);
      return o && o->count() > 0;
    });
    // Enumerated output values take any case (CSV, GiB, Markdown).
    for (std::string* v : {&of.format, &of.units})
      for (auto& ch : *v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (of.verbose >= 2) logger->set_level(spdlog::level::debug);
    else if (of.verbose == 1) logger->set_level(spdlog::level::info);
    const bool color = use_color(of.color);
    const int columns = terminal_width();
    if (!is_choice("--units", of.units)) throw UserError{2, "--units: unknown value '" + of.units + "' (valid: " + choices_text("--units") + ")"};
    Style style{color, of.explain, of.hints, of.wide ? 0 : columns, of.units == "gib" ? MemUnits::gib : MemUnits::gb};
    // -q: the answer is the exit status; nothing reaches stdout. The sink is made only then: a string stream's first
    // construction sets up its locale, about 0.05 ms of a cold start (docs/performance.md).
    std::optional<std::ostringstream> quiet_sink;
    if (of.quiet) quiet_sink.emplace();
    // A locale that is not UTF-8 gets ASCII text (JSON stays UTF-8).
    std::optional<AsciiBuf> ascii_buf;
    std::optional<std::ostream> ascii_out;
    if (!of.quiet && of.format != "json" && ascii_locale()) {
      ascii_buf.emplace(out_stream.rdbuf());
      ascii_out.emplace(&*ascii_buf);
    }
    const CommandContext ctx{in, of.quiet ? &*quiet_sink : ascii_out ? &*ascii_out : &out_stream, of, style};
    return dispatch(c, app, lazy, ctx);
  } catch (const UserError& e) {
    err << "gpuadvise: error: " << printable(e.message) << "\n";  // one line, whatever the input held
    return e.code;
  } catch (const InputError& e) {
    err << "gpuadvise: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "gpuadvise: internal error: " << e.what() << " (please report this)\n";
    return 3;
  }
}

}  // namespace

}  // namespace gpuadvise::cli
