// The command line: owns files, streams, colour, logging and exit codes; everything else is the library.
#include "app.hpp"
#include "commands.hpp"
#include "support.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuadvise/catalog.hpp"
#include "gpuadvise/error.hpp"
#include "gpuadvise/ranking.hpp"
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
    return did_you_mean(word, names);
  }
  return "";
}

const char* k_examples = R"(
Examples:
  gpuadvise --model 7B --precision bf16 --mode finetune
  gpuadvise --model llama-3.1-8b --mode lora --precision bf16 --tokens 100M
  gpuadvise --model llama-3.1-8b --mode inference --requests 1M --input-tokens 512 --output-tokens 256 --format json
  gpuadvise estimate --model llama-2-7b --mode inference --seq-len 4096 --gpu h100-sxm-80gb --explain
  gpuadvise estimate --model mixtral-8x7b --mode inference --engine vllm --gpus 2 --tp 2 --gpu h100-sxm-80gb
  gpuadvise gpus                 gpuadvise gpus h100-sxm-80gb          gpuadvise models

Exit status: 0 ok (also when nothing fits: the output says so), 1 a check failed, 2 bad input.
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

}  // namespace

int run(int argc, const char* const* argv, std::istream& in, std::ostream& out_stream, std::ostream& err) {
  std::ostream* out_ptr = &out_stream;  // -q swaps it for a sink once the flags are parsed
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(err);
  auto logger = std::make_shared<spdlog::logger>("gpuadvise", sink);
  logger->set_pattern("gpuadvise: %l: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);

  CLI::App app{"gpuadvise: ranks GPUs for a deep-learning job: will it fit, how much memory each part takes, how many GPUs, "
               "how long it runs and what the completed job costs.",
               "gpuadvise"};
  app.footer(k_examples);
  app.set_version_flag("--version", std::string("gpuadvise ") + tool_version() + " (schema " + std::to_string(k_schema_version) + ")");
  app.require_subcommand(0, 1);

  WorkloadFlags rank_wf;
  OutputFlags rank_of;
  std::string rank_by;
  std::vector<std::string> only;
  CostFlags rank_cf;
  std::string deadline, budget;
  add_workload_flags(&app, rank_wf);
  add_cost_flags(&app, rank_cf);
  add_output_flags(&app, rank_of, false);
  app.add_option("--rank-by", rank_by, "value | cost | time | gpus | headroom [value: cost per job, or per unit of work]")->group("Ranking");
  app.add_option("--only,--gpu", only, "rank only these GPU ids (repeatable; nvidia-smi and SkyPilot names work: H100, A100-80GB)")->group("Ranking");
  app.add_option("--deadline", deadline, "scale out until the job finishes within it, keep the cheapest such plan: 90m, 36h, 2d")->group("Ranking");
  app.add_option("--budget", budget, "keep the fastest plan within this job cost (USD); drop GPUs over it")->group("Ranking");
  std::string rank_min_headroom, rank_max_gpus;
  app.add_option("--min-headroom", rank_min_headroom, "free memory per GPU a plan must keep, in % of capacity [5]; less is 'tight'")->group("Ranking");
  app.add_option("--max-gpus", rank_max_gpus, "most GPUs a plan may use [64]")->group("Ranking");

  LazyOptions lazy;
  CLI::App* est = app.add_subcommand("estimate", "memory (and, with --gpu, time) of one workload");
  WorkloadFlags est_wf;
  OutputFlags est_of;
  std::string est_gpu;
  CostFlags est_cf;
  lazy.defer(est, [&] {
    add_workload_flags(est, est_wf);
    add_cost_flags(est, est_cf);
    add_output_flags(est, est_of, true);
    est->add_option("--gpu", est_gpu, "estimate on this GPU: verdict, capacity, time")->group("Workload");
    est->footer(k_examples);
  });

  CLI::App* chk = app.add_subcommand("check", "CI gate: assert that workloads fit GPUs within headroom, cost, time and GPU limits (exit 1 when not)");
  CheckFlags chk_flags;
  OutputFlags chk_of;
  lazy.defer(chk, [&] {
    add_workload_flags(chk, chk_flags.chk_wf);
    add_cost_flags(chk, chk_flags.chk_cf);
    add_output_flags(chk, chk_of, false);
    chk->add_option("--gpu", chk_flags.chk_gpus, "a GPU id to check on (repeatable)")->group("Assertions");
    chk->add_option("--min-headroom", chk_flags.min_headroom, "free memory per GPU at the peak, in % of capacity")->group("Assertions");
    chk->add_option("--max-cost", chk_flags.max_cost, "cost of the job in USD")->group("Assertions");
    chk->add_option("--max-hours", chk_flags.max_hours, "billed hours of the job")->group("Assertions");
    chk->add_option("--max-gpus", chk_flags.max_gpus, "GPUs the plan may use [as the workload says]")->group("Assertions");
    chk->footer("\nExample:\n  gpuadvise check --workload plans.json --gpu rtx-4090-24gb --min-headroom 10 --max-cost 200\n"
                "Exit status: 0 every assertion holds, 1 one failed (each failure is one line), 2 bad input.\n");
  });

  CLI::App* fitc = app.add_subcommand("fit", "the largest batch, sequence length or concurrency that fits a GPU");
  FitFlags fit_flags;
  OutputFlags fit_of;
  lazy.defer(fitc, [&] {
    add_workload_flags(fitc, fit_flags.fit_wf);
    add_output_flags(fitc, fit_of, false);
    fitc->add_option("--gpu", fit_flags.fit_gpu, "the GPU id")->group("Fit");
    fitc->add_option("--maximize", fit_flags.maximize, "batch | seq-len | concurrency [batch]")->group("Fit");
    fitc->footer("\nExample:\n  gpuadvise fit --gpu rtx-4090-24gb --model llama-3.1-8b --mode qlora --precision bf16 --seq-len 2048 --maximize batch\n");
  });

  CLI::App* gpus = app.add_subcommand("gpus", "list the GPU catalogue; 'gpus ID' shows one entry with its sources");
  OutputFlags gpus_of;
  GpusFlags gpus_flags;
  lazy.defer(gpus, [&] {
    gpus->add_option("id", gpus_flags.gpu_id, "a GPU id");
    gpus->add_option("--vendor", gpus_flags.gpus_vendor, "only this vendor's GPUs: nvidia, amd, intel")->group("Filter");
    gpus->add_option("--min-memory", gpus_flags.gpus_min_memory, "only GPUs with at least this much memory, in GB")->group("Filter");
    gpus->add_option("--provider", gpus_flags.gpus_provider, "only GPUs this provider offers (a catalogue price)")->group("Filter");
    gpus->add_option("--sort", gpus_flags.gpus_sort, "memory | bandwidth | bf16 | price | id [catalogue order]")->group("Filter");
    gpus->footer("\nExamples:\n  gpuadvise gpus --vendor amd --sort memory\n  gpuadvise gpus --min-memory 80 --provider lambda --sort price\n");
    add_output_flags(gpus, gpus_of, false);
  });

  CLI::App* prb = app.add_subcommand("probe", "print a short PyTorch script that measures this workload's peak memory and speed on a real GPU");
  ProbeFlags prb_flags;
  OutputFlags prb_of;
  lazy.defer(prb, [&] {
    add_workload_flags(prb, prb_flags.prb_wf);
    add_output_flags(prb, prb_of, false);
    prb->add_option("--probe-steps", prb_flags.prb_steps, "timed steps after one warm-up [5]")->group("Probe");
    prb->footer("\nExample:\n  gpuadvise probe --model llama-3.1-8b --mode lora --batch 2 --seq-len 2048 > probe.py\n"
                "  python probe.py probe_result.json && gpuadvise calibrate probe_result.json\n");
  });

  CLI::App* cal = app.add_subcommand("calibrate", "compare a probe's measurement with the estimate; --save keeps the correction for later answers");
  OutputFlags cal_of;
  CalibrateFlags cal_flags;
  lazy.defer(cal, [&] {
    cal->add_option("result", cal_flags.cal_file, "the JSON a probe script wrote (probe_result.json)");
    cal->add_option("--gpu", cal_flags.cal_gpu, "the GPU id it ran on [from the name the script recorded]")->group("Calibrate");
    cal->add_flag("--save", cal_flags.cal_save, "store the correction for this GPU, framework and kind of work")->group("Calibrate");
    cal->add_flag("--reset", cal_flags.cal_reset, "remove every stored correction")->group("Calibrate");
    add_output_flags(cal, cal_of, false);
    cal->footer("\nExamples:\n  gpuadvise calibrate probe_result.json            # measured beside estimated, and the correction\n"
                "  gpuadvise calibrate probe_result.json --save     # later answers on that GPU and framework use it\n\n"
                "The corrections live in $GPUADVISE_CALIBRATION, else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else\n"
                "~/.config/gpuadvise/calibration.json; every answer they change says so.\n");
  });

  CLI::App* swp = app.add_subcommand("sweep", "vary one setting over a range and draw memory, throughput or cost against it, per GPU");
  SweepFlags swp_flags;
  OutputFlags swp_of;
  lazy.defer(swp, [&] {
    add_workload_flags(swp, swp_flags.swp_wf);
    add_cost_flags(swp, swp_flags.swp_cf);
    add_output_flags(swp, swp_of, false);
    swp->add_option("--vary", swp_flags.swp_vary, "seq-len | batch | concurrency | lora-rank | gpus | image-size")->group("Sweep");
    swp->add_option("--from", swp_flags.swp_from, "first value")->group("Sweep");
    swp->add_option("--to", swp_flags.swp_to, "last value")->group("Sweep");
    swp->add_option("--points", swp_flags.swp_points, "values from --from to --to, evenly spaced on a log scale (whole numbers) [8]")->group("Sweep");
    swp->add_option("--metric", swp_flags.swp_metric, "memory | time | cost [memory]")->group("Sweep");
    swp->add_option("--gpu", swp_flags.swp_gpus, "a GPU to draw (repeatable) [h100-sxm-80gb]")->group("Sweep");
    swp->footer("\nExample:\n  gpuadvise sweep --model llama-3.1-8b --mode lora --vary seq-len --from 1024 --to 32768 --gpu rtx-4090-24gb --gpu h100-sxm-80gb\n");
  });

  CLI::App* comp = app.add_subcommand("completions", "print a shell completion script: bash, zsh or fish");
  std::string comp_shell;
  lazy.defer(comp, [&] {
    comp->add_option("shell", comp_shell, "bash | zsh | fish")->required();
    comp->footer("\nExample:\n  gpuadvise completions bash > /etc/bash_completion.d/gpuadvise\n");
  });
  CLI::App* manp = app.add_subcommand("manpage", "print the man page (roff), or with --format markdown the CLI reference (docs/cli.md)");
  OutputFlags manp_of;
  lazy.defer(manp, [&] {
    manp->add_option("--format", manp_of.format, "roff | markdown [roff]")->group("Output");
  });

  CLI::App* models = app.add_subcommand("models", "list the bundled model presets");
  OutputFlags models_of;
  ModelsFlags models_flags;
  lazy.defer(models, [&] {
    models->add_option("--kind", models_flags.models_kind, "only language | vision | generation models")->group("Filter");
    models->add_option("--family", models_flags.models_family, "only this family (llama, qwen2, mixtral, resnet, yolo, ...)")->group("Filter");
    add_output_flags(models, models_of, false);
  });
  name_placeholders(app);

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out_stream << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out_stream << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::CallForVersion& e) {
      out_stream << e.what() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      std::string msg = e.what();
      CLI::App* ctx = est->parsed() ? est : chk->parsed() ? chk : fitc->parsed() ? fitc : gpus->parsed() ? gpus : models->parsed() ? models
                      : prb->parsed() ? prb : cal->parsed() ? cal : swp->parsed() ? swp : &app;
      std::string hint = suggest_flag(msg, *ctx);
      err << "gpuadvise: error: " << msg << (hint.empty() ? "" : "; " + hint) << " (see --help)\n";
      return 2;
    }

    // A value given empty is a typo or an unset variable, never "use the default": one line naming the flag.
    for (CLI::App* a : {&app, est, chk, fitc, gpus, models, prb, cal, swp, comp, manp}) {
      if (a != &app && !a->parsed()) continue;
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
    OutputFlags& of = est->parsed() ? est_of : chk->parsed() ? chk_of : fitc->parsed() ? fit_of : gpus->parsed() ? gpus_of
                      : models->parsed() ? models_of : prb->parsed() ? prb_of : cal->parsed() ? cal_of : manp->parsed() ? manp_of : swp->parsed() ? swp_of : rank_of;
    // Enumerated output values take any case (CSV, GiB, Markdown).
    for (std::string* v : {&of.format, &of.units})
      for (auto& ch : *v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (of.verbose >= 2) logger->set_level(spdlog::level::debug);
    else if (of.verbose == 1) logger->set_level(spdlog::level::info);
    const bool color = use_color(of.color);
    const int columns = terminal_width();
    if (of.units != "gb" && of.units != "gib")
      throw UserError{2, "--units: unknown value '" + of.units + "' (valid: gb, gib)"};
    Style style{color, of.explain, of.hints, !of.wide && columns > 0 && columns < 160, of.units == "gib" ? MemUnits::gib : MemUnits::gb};
    // -q: the answer is the exit status; nothing reaches stdout.
    std::ostringstream quiet_sink;
    if (of.quiet) out_ptr = &quiet_sink;
    const CommandContext ctx{in, out_ptr, of, style};
    const bool md = ctx.md();

    if (gpus->parsed()) {
      return run_gpus(gpus_flags, ctx);
    }
    if (models->parsed()) {
      return run_models(models_flags, ctx);
    }

    if (swp->parsed()) {
      return run_sweep(swp_flags, ctx);
    }

    if (comp->parsed()) {
      lazy.realise_all();
      (*out_ptr) << completion_script(comp_shell, app, load_gpus(OutputFlags{}, in), load_models());
      return 0;
    }
    if (manp->parsed()) {
      lazy.realise_all();
      (*out_ptr) << (of.format == "markdown" || of.format == "md" ? cli_reference(app) : man_page(app));
      return 0;
    }

    if (cal->parsed()) {
      return run_calibrate(cal_flags, ctx);
    }

    if (prb->parsed()) {
      return run_probe(prb_flags, ctx);
    }

    if (chk->parsed()) {
      return run_check(chk_flags, ctx);
    }

    if (fitc->parsed()) {
      return run_fit(fit_flags, ctx);
    }

    const bool estimate = est->parsed();
    WorkloadFlags& wf = estimate ? est_wf : rank_wf;
    check_format(of.format);
    auto raws = collect_workloads(wf, in);
    if (raws.size() > 1) throw UserError{2, "--workload: the file holds " + std::to_string(raws.size()) + " workloads; this command takes one"};
    if (estimate && (!est_gpu.empty() || est->count("--gpu") > 0)) raws[0]["gpu"] = RawValue{est_gpu, "--gpu"};  // "" is an error there
    Workload w = build_workload(raws[0]);
    const ModelSpec model = model_for(w, in);
    const GpuCatalog cat = load_gpus(of, in);
    spdlog::info("model {}: {} layers, hidden {}, {} heads ({} KV)", model.id, model.layers, model.hidden, model.heads, model.kv_heads);

    if (estimate) {
      std::optional<Candidate> cand;
      MemoryEstimate mem;
      if (w.gpu) {
        cand = evaluate(w, model, gpu_for(*w.gpu, cat), cost_options(est_cf, cat, in));
        cand->fits_single = cand->fits;
        mem = cand->memory;
      } else {
        mem = estimate_memory(w, model, nullptr);
      }
      (*out_ptr) << (of.format == "json" ? estimate_json(w, model, cand ? &*cand : nullptr, mem, cat.version)
              : of.format == "csv"  ? estimate_csv(w, model, cand ? &*cand : nullptr, mem)
              : md                  ? estimate_markdown(w, model, cand ? &*cand : nullptr, mem, style)
                                    : estimate_table(w, model, cand ? &*cand : nullptr, mem, style));
      return 0;
    }

    RankOptions ro;
    if (!rank_by.empty()) {
      if (rank_by == "value") ro.rank_by = RankBy::value;
      else if (rank_by == "cost") ro.rank_by = RankBy::cost;
      else if (rank_by == "time") ro.rank_by = RankBy::time;
      else if (rank_by == "gpus" || rank_by == "fit") ro.rank_by = RankBy::gpus;
      else if (rank_by == "headroom") ro.rank_by = RankBy::headroom;
      else throw UserError{2, "--rank-by: unknown value '" + rank_by + "' (valid: value, cost, time, gpus, headroom)"};
    }
    ro.cost = cost_options(rank_cf, cat, in);
    if (!deadline.empty()) ro.deadline_seconds = parse_duration(deadline, "--deadline");
    if (!budget.empty()) {
      ro.budget_usd = flag_number(budget, "--budget", "a USD amount above 0 up to 1e12", 0, 1e12, false, true);
    }
    if (!rank_min_headroom.empty()) {
      ro.min_headroom_pct = flag_number(rank_min_headroom, "--min-headroom", "a percentage from 0 to below 100", 0, 100, false, false, true);
    }
    if (!rank_max_gpus.empty()) {
      ro.max_gpus = static_cast<std::int64_t>(flag_number(rank_max_gpus, "--max-gpus", "an integer from 1 to 4,096", 1, 4096, true));
    }
    for (const auto& id : only) ro.only_gpus.push_back(gpu_for(id, cat, "--only/--gpu").id);
    if (w.gpu) ro.only_gpus.push_back(gpu_for(*w.gpu, cat).id);
    const Ranking r = rank_gpus(w, model, cat, ro);
    if (of.format == "json") (*out_ptr) << ranking_json(w, model, r, cat.version);
    else if (of.format == "csv") (*out_ptr) << ranking_csv(r);
    else if (md) (*out_ptr) << ranking_markdown(w, model, r, style);
    else (*out_ptr) << ranking_table(w, model, r, style);
    return 0;
  } catch (const UserError& e) {
    err << "gpuadvise: error: " << e.message << "\n";
    return e.code;
  } catch (const InputError& e) {
    err << "gpuadvise: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "gpuadvise: internal error: " << e.what() << " (please report this)\n";
    return 3;
  }
}

}  // namespace gpuadvise::cli
