// Shell completions, the man page and the CLI reference (docs/cli.md), generated from the option definitions so
// they cannot drift from the flags.
#include "support.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "gpuadvise/error.hpp"
#include "gpuadvise/escape.hpp"
#include "gpuadvise/report.hpp"

namespace gpuadvise::cli {

namespace {
// Every environment variable the tool reads, for the man page, docs/cli.md and --help.
const std::vector<std::pair<std::string, std::string>>& environment_variables() {
  static const std::vector<std::pair<std::string, std::string>> vars{
      {"COLUMNS", "the width tables fit on a terminal (else the terminal's own); pipes and --wide get every column"},
      {"NO_COLOR", "no colour in tables"},
      {"CLICOLOR_FORCE", "colour even when stdout is not a terminal (any value but 0)"},
      {"TERM", "dumb: no colour"},
      {"LC_ALL, LC_CTYPE, LANG", "a locale that is not UTF-8 gets ASCII text (JSON stays UTF-8)"},
      {"GPUADVISE_CATALOG", "your own GPUs, merged over the bundled catalogue (else $XDG_CONFIG_HOME/gpuadvise/gpus.json, else ~/.config/gpuadvise/gpus.json)"},
      {"GPUADVISE_CONFIG", "the defaults file: provider, price_policy, units, color, min_headroom, max_gpus, prices (GPU id -> USD per GPU-hour); a flag "
                           "given beats it (else $XDG_CONFIG_HOME/gpuadvise/config.json, else ~/.config/gpuadvise/config.json)"},
      {"GPUADVISE_CALIBRATION", "the calibration file (else $XDG_CONFIG_HOME/gpuadvise/calibration.json, else ~/.config/gpuadvise/calibration.json)"},
      {"XDG_CONFIG_HOME, HOME", "where the three files above are looked for"}};
  return vars;
}

// The exit statuses, for the man page and docs/cli.md (`check` is set in bold in the one, as code in the other).
std::string exit_status_text(const std::string& check) {
  return "0 success (also when nothing fits: the output says so); 1 a " + check + " assertion failed; 2 bad input (one line on stderr naming "
         "the flag or field and what it accepts); 3 the output could not be written (a full disk or a closed pipe) or an internal error.";
}

const char* k_tables_text =
    "On a terminal narrower than the ranking, the layout is first shortened to 26 columns (ending in '…'), then the "
    "least needed columns go: the card's usable memory, the headroom, the hourly price, vLLM's pool, the memory bar; then "
    "the layout to 16 columns; then the GPU count (the layout starts with it), the peak, the job time, the layout, the "
    "throughput; the value or the job cost goes last. GPU ids are never cut. Pipes and --wide get every column in full.";

struct CommandInfo {
  std::string name, description;
  std::vector<const CLI::Option*> options;
};

std::vector<const CLI::Option*> named_options(const CLI::App& a) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : a.get_options())
    if (o->nonpositional()) out.push_back(o);
  return out;
}

std::vector<CommandInfo> command_infos(CLI::App& app) {
  std::vector<CommandInfo> out;
  out.push_back(CommandInfo{"", app.get_description(), named_options(app)});
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    out.push_back(CommandInfo{sub->get_name(), sub->get_description(), named_options(*sub)});
  return out;
}

std::string option_words(const std::vector<const CLI::Option*>& opts) {
  std::string w;
  for (const auto* o : opts) {
    for (const auto& l : o->get_lnames()) {
      if (!w.empty()) w.push_back(' ');
      w.append("--").append(l);
    }
    for (const auto& sn : o->get_snames()) {
      if (!w.empty()) w.push_back(' ');
      w.append("-").append(sn);
    }
  }
  return w;
}

}  // namespace

namespace {
// What a flag's value completes to: its choices (choices.cpp), catalogue ids, vendors, providers and families.
struct Completions {
  std::vector<std::pair<std::string, std::string>> values;  // "--mode" -> "train finetune ..."
  std::string gpu_ids, model_ids, subs;
};

std::string words(const std::vector<std::string>& v) { return join(v, " "); }

void add_unique(std::vector<std::string>& v, std::string s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(std::move(s));
}

Completions completion_values(const std::vector<CommandInfo>& cmds, const GpuCatalog& gpus, const ModelCatalog& models) {
  Completions c;
  for (const auto& ci : cmds)
    if (!ci.name.empty()) c.subs += (c.subs.empty() ? "" : " ") + ci.name;
  std::vector<std::string> ids, vendors, providers, families, model_ids;
  for (const auto& g : gpus.gpus) {
    ids.push_back(g.id);
    add_unique(vendors, lower(g.vendor));
    // A provider is matched by any part of its name (RunPod (secure): runpod); its first word completes.
    for (const auto& p : g.prices) add_unique(providers, lower(p.provider.substr(0, p.provider.find_first_of(" ("))));
  }
  for (const auto& m : models.models) {
    model_ids.push_back(m.id);
    add_unique(families, lower(m.family));
  }
  c.gpu_ids = words(ids);
  c.model_ids = words(model_ids);
  for (const auto& [flag, v] : flag_choices())
    if (flag.rfind("--", 0) == 0) c.values.emplace_back(flag, words(v));
  c.values.emplace_back("--vendor", words(vendors));
  c.values.emplace_back("--provider", words(providers));
  c.values.emplace_back("--family", words(families));
  return c;
}

std::string bash_script(const std::vector<CommandInfo>& cmds, const Completions& c) {
  std::string pattern = c.subs;
  std::replace(pattern.begin(), pattern.end(), ' ', '|');
  std::string out = "# bash completion for gpuadvise (generated by `gpuadvise completions bash` from its option definitions)\n";
  out += "_gpuadvise() {\n  local cur prev sub opts\n  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n";
  out += "  sub=\"\"\n  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do case \"$w\" in " + pattern + ") sub=\"$w\"; break;; esac; done\n";
  out += "  if [[ $sub == manpage && $prev == --format ]]; then COMPREPLY=( $(compgen -W \"" + words(choices_of("manpage --format")) +
         "\" -- \"$cur\") ); return; fi\n";
  out += "  case \"$prev\" in\n    --gpu|--only) COMPREPLY=( $(compgen -W \"" + c.gpu_ids + "\" -- \"$cur\") ); return;;\n";
  out += "    --model) COMPREPLY=( $(compgen -W \"" + c.model_ids + "\" -- \"$cur\") $(compgen -f -- \"$cur\") ); return;;\n";
  out += "    --workload|--catalog|--prices) COMPREPLY=( $(compgen -f -- \"$cur\") ); return;;\n";
  for (const auto& [flag, v] : c.values) out += "    " + flag + ") COMPREPLY=( $(compgen -W \"" + v + "\" -- \"$cur\") ); return;;\n";
  out += "  esac\n";
  // Positionals: a GPU id for `gpus`, a shell for `completions`, the probe's result file for `calibrate`.
  out += "  if [[ $cur != -* ]]; then\n    case \"$sub\" in\n      gpus) COMPREPLY=( $(compgen -W \"" + c.gpu_ids + "\" -- \"$cur\") ); return;;\n";
  out += "      completions) COMPREPLY=( $(compgen -W \"" + words(choices_of("shell")) + "\" -- \"$cur\") ); return;;\n";
  out += "      calibrate) COMPREPLY=( $(compgen -f -- \"$cur\") ); return;;\n    esac\n  fi\n";
  out += "  case \"$sub\" in\n";
  for (const auto& ci : cmds)
    if (!ci.name.empty()) out += "    " + ci.name + ") opts=\"" + option_words(ci.options) + "\";;\n";
  out += "    *) opts=\"" + c.subs + " " + option_words(cmds.front().options) + "\";;\n  esac\n";
  return out + "  COMPREPLY=( $(compgen -W \"$opts\" -- \"$cur\") )\n}\ncomplete -F _gpuadvise gpuadvise\n";
}

// The zsh action after an option's description: what its value completes to.
std::string zsh_action(const std::string& command, const std::string& flag, const Completions& c) {
  if (flag == "--gpu" || flag == "--only") return ":GPU:($gpus)";
  if (flag == "--model") return ":model:($models)";
  if (flag == "--workload" || flag == "--catalog" || flag == "--prices") return ":file:_files";
  if (command == "manpage" && flag == "--format") return ":format:(" + words(choices_of("manpage --format")) + ")";
  for (const auto& [f, v] : c.values)
    if (f == flag) return ":value:(" + v + ")";
  return ":value:";
}

std::string zsh_script(const std::vector<CommandInfo>& cmds, const Completions& c) {
  std::string out = "#compdef gpuadvise\n# zsh completion for gpuadvise (generated by `gpuadvise completions zsh` from its option definitions)\n";
  out += "_gpuadvise() {\n  local -a subcommands\n  subcommands=(\n";
  for (const auto& ci : cmds)
    if (!ci.name.empty()) out += "    " + shell_word(ci.name + ":" + ci.description) + "\n";
  out += "  )\n  local -a gpus models\n  gpus=(" + c.gpu_ids + ")\n  models=(" + c.model_ids + ")\n";
  out += "  if (( CURRENT == 2 )) && [[ $words[2] != -* ]]; then _describe 'command' subcommands; return; fi\n";
  out += "  local sub=${words[2]}\n  case $sub in\n";
  for (const auto& ci : cmds) {
    // A subcommand's own words start after its name, so its first positional is 1.
    out += "    " + (ci.name.empty() ? std::string("*") : ci.name) + ")\n      " + (ci.name.empty() ? "" : "shift words; (( CURRENT-- )); ") + "_arguments -s";
    for (const auto* o : ci.options)
      for (const auto& l : o->get_lnames()) {
        std::string desc = o->get_description();
        for (char& ch : desc)
          if (ch == '[' || ch == ']' || ch == ':') ch = ' ';
        out += " \\\n        " + shell_word("--" + l + "[" + desc + "]" + (o->get_expected_min() > 0 ? zsh_action(ci.name, "--" + l, c) : ""));
      }
    if (ci.name == "gpus") out += " \\\n        '1:GPU:($gpus)'";
    if (ci.name == "completions") out += " \\\n        '1:shell:(" + words(choices_of("shell")) + ")'";
    if (ci.name == "calibrate") out += " \\\n        '1:probe result:_files'";
    out += " ;;\n";
  }
  return out + "  esac\n}\n_gpuadvise \"$@\"\n";
}

std::string fish_script(const std::vector<CommandInfo>& cmds, const Completions& c) {
  std::string out = "# fish completion for gpuadvise (generated by `gpuadvise completions fish` from its option definitions)\n";
  out += "complete -c gpuadvise -f\n";
  for (const auto& ci : cmds)
    if (!ci.name.empty()) out += "complete -c gpuadvise -n __fish_use_subcommand -a " + ci.name + " -d " + shell_word(ci.description) + "\n";
  for (const auto& ci : cmds)
    for (const auto* o : ci.options)
      for (const auto& l : o->get_lnames()) {
        const std::string flag = "--" + l;
        const std::string cond = ci.name.empty() ? "__fish_use_subcommand" : "'__fish_seen_subcommand_from " + ci.name + "'";
        out += "complete -c gpuadvise -n " + cond + " -l " + l + (o->get_expected_min() > 0 ? " -r" : "") + " -d " + shell_word(o->get_description());
        if (flag == "--gpu" || flag == "--only") out += " -a " + shell_word(c.gpu_ids);
        else if (flag == "--model") out += " -a " + shell_word(c.model_ids);
        else if (flag == "--workload" || flag == "--catalog" || flag == "--prices") out += " -F";
        else if (ci.name == "manpage" && flag == "--format") out += " -a " + shell_word(words(choices_of("manpage --format")));
        else if (o->get_expected_min() > 0)
          for (const auto& [f, v] : c.values)
            if (f == flag) out += " -a " + shell_word(v);
        out += "\n";
      }
  out += "complete -c gpuadvise -n '__fish_seen_subcommand_from gpus' -a " + shell_word(c.gpu_ids) + "\n";
  out += "complete -c gpuadvise -n '__fish_seen_subcommand_from completions' -a " + shell_word(words(choices_of("shell"))) + "\n";
  return out + "complete -c gpuadvise -n '__fish_seen_subcommand_from calibrate' -F\n";
}
}  // namespace

std::string completion_script(const std::string& shell, CLI::App& app, const GpuCatalog& gpus, const ModelCatalog& models) {
  const auto cmds = command_infos(app);
  const Completions c = completion_values(cmds, gpus, models);
  if (shell == "bash") return bash_script(cmds, c);
  if (shell == "zsh") return zsh_script(cmds, c);
  if (shell == "fish") return fish_script(cmds, c);
  throw UserError{2, "completions: unknown shell '" + shell + "' (valid: " + choices_text("shell") + ")"};
}

namespace {
std::string roff(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\') out.append("\\e");
    else if (ch == '-') out.append("\\-");
    else out.push_back(ch);
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) {
    std::string guarded = "\\&";
    guarded.append(out);
    return guarded;
  }
  return out;
}
}  // namespace

std::string man_page(CLI::App& app) {
  const auto cmds = command_infos(app);
  std::string out = ".\\\" gpuadvise(1), generated by `gpuadvise manpage` from its option definitions\n";
  out += ".TH GPUADVISE 1 \"\" \"gpuadvise " + std::string(tool_version()) + "\" \"User Commands\"\n";
  out += ".SH NAME\ngpuadvise \\- " + roff("rank GPUs for a deep-learning job: fit, memory, GPUs needed, time and the cost of the completed job") + "\n";
  out += ".SH SYNOPSIS\n.B gpuadvise\n[\\fIOPTIONS\\fR]\n.br\n.B gpuadvise\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff(app.get_description()) + "\n";
  for (const auto& c : cmds) {
    out += c.name.empty() ? ".SH OPTIONS (the ranking)\n" : ".SH COMMAND: " + roff(c.name) + "\n" + roff(c.description) + "\n";
    for (const auto* o : c.options) {
      std::string names;
      auto add_name = [&](const std::string& dashes, const std::string& n) {
        if (!names.empty()) names.append(", ");
        names.append("\\fB").append(dashes).append(roff(n)).append("\\fR");
      };
      for (const auto& s : o->get_snames()) add_name("\\-", s);
      for (const auto& l : o->get_lnames()) add_name("\\-\\-", l);
      if (o->get_expected_min() > 0) {
        const std::string type = o->get_type_name();
        names.append(" \\fI").append(roff(type.empty() || type == "TEXT" ? "VALUE" : type)).append("\\fR");
      }
      out += ".TP\n" + names + "\n" + roff(o->get_description()) + "\n";
    }
  }
  out += ".SH EXIT STATUS\n" + exit_status_text("\\fBcheck\\fR") + "\n";
  out += ".SH ENVIRONMENT\n";
  for (const auto& [name, what] : environment_variables()) out += ".TP\n.B " + name + "\n" + roff(what) + "\n";
  out += ".SH TABLES\n" + roff(k_tables_text) + "\n";
  out += ".SH SEE ALSO\nREADME.md, docs/method.md (every formula with its source), docs/cli.md.\n";
  return out;
}

// docs/cli.md: the same definitions as markdown (a test keeps the committed file equal to this output).
std::string cli_reference(CLI::App& app) {
  std::string out = "# gpuadvise command-line reference\n\n";
  out += "Generated by `gpuadvise manpage --format markdown` from the option definitions; a test fails when this file and\n"
         "the binary disagree. Every formula behind the numbers is in [method.md](method.md).\n";
  for (const auto& c : command_infos(app)) {
    out += c.name.empty() ? "\n## gpuadvise [OPTIONS]: the ranking\n\n" : "\n## gpuadvise " + c.name + "\n\n";
    out += c.description + "\n\n| option | value | what it does |\n|---|---|---|\n";
    for (const auto* o : c.options) {
      std::string names;
      for (const auto& sn : o->get_snames()) names.append(names.empty() ? "" : ", ").append("`-").append(sn).append("`");
      for (const auto& l : o->get_lnames()) names.append(names.empty() ? "" : ", ").append("`--").append(l).append("`");
      const std::string cell = markdown_cell(o->get_description());
      const std::string type = o->get_type_name();
      out += "| " + names + " | " + (o->get_expected_min() > 0 ? (type.empty() || type == "TEXT" ? std::string("VALUE") : type) : "") + " | " + cell + " |\n";
    }
  }
  out += "\n## Tables\n\n" + std::string(k_tables_text) + "\n\n## Environment\n\n| variable | what it does |\n|---|---|\n";
  for (const auto& [name, what] : environment_variables()) out += "| `" + name + "` | " + markdown_cell(what) + " |\n";
  out += "\n## Exit status\n\n" + exit_status_text("`check`") + "\n";
  return out;
}

}  // namespace gpuadvise::cli
