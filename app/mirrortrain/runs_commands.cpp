// mirrortrain runs list | show | compare: reading recorded runs back.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "commands.h"
#include "mirror/runs/compare.h"
#include "mirror/runs/export_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"
#include "tables.h"

namespace mirror::cli {

std::string resolve_run(const std::string& root, const std::string& dir) {
  if (std::filesystem::exists(std::filesystem::path(dir) / "run.json")) return dir;
  const auto under_root = std::filesystem::path(root.empty() ? default_runs_root() : root) / dir;
  if (std::filesystem::exists(under_root / "run.json")) return under_root.string();
  throw ConfigError(fmt::format("{}: no run here (no run.json), nor under {}", dir, under_root.parent_path().string()));
}

namespace {

std::string best(const RunRecord& r) { return r.best_val_accuracy < 0 ? "-" : fmt::format("{:.4f}", r.best_val_accuracy); }

void print_warnings(const RunRecord& r) {
  for (const auto& w : r.warnings)
    fmt::print(stderr, "mirrortrain: warning: {}: {}\n", terminal_text(r.name), terminal_text(w, LineBreaks::kKeep));
}
}  // namespace

int run_runs_list(const RunsArgs& a) {
  const std::string root = a.root.empty() ? default_runs_root() : a.root;
  const auto runs = list_runs(root);
  if (a.csv) fmt::print("name,dataset,model,replicas,status,best_val_accuracy,steps,seconds,dir\n");
  else fmt::print("{:<36} {:<15} {:<26} {:>3} {:<10} {:>8} {:>7} {:>8}\n", "run", "dataset", "model", "rep", "status",
                  "best val", "steps", "time");
  for (const auto& r : runs) {
    const size_t replicas = r.run.contains("devices") ? r.run["devices"].size() : 0;
    const int64_t steps = r.steps.empty() ? 0 : r.steps.back().global_step;
    if (a.csv)
      fmt::print("{},{},{},{},{},{},{},{:.1f},{}\n", csv_cell(r.display_name()), csv_cell(run_dataset_label(r)), csv_cell(run_model_label(r)),
                 replicas, csv_cell(r.status), best(r), steps, r.duration_seconds, csv_cell(r.dir));
    else
      fmt::print("{:<36} {:<15} {:<26} {:>3} {:<10} {:>8} {:>7} {:>7.1f}s\n", terminal_text(r.name),
                 terminal_text(run_dataset_label(r)), terminal_text(run_model_label(r)), replicas, terminal_text(r.status),
                 best(r), steps, r.duration_seconds);
    print_warnings(r);
  }
  if (runs.empty() && !a.csv) fmt::print("(no runs under {})\n", terminal_text(root));
  return kExitOk;
}

int run_runs_show(const RunsArgs& a) {
  try {
    const RunRecord r = read_run(resolve_run(a.root, a.dirs.at(0)));
    if (!a.csv) {
      fmt::print("{} ({}), {} on {}, {}\n", terminal_text(r.name), terminal_text(r.status), terminal_text(run_model_label(r)),
                 terminal_text(run_dataset_label(r)), counted(replica_count(r), "replica"));
      if (const std::string message = r.message(); !message.empty())
        fmt::print("message: {}\n", terminal_text(message, LineBreaks::kKeep));
      if (!r.meta.name.empty() || !r.meta.tags.empty())
        fmt::print("name: {}{}\n", terminal_text(r.display_name()),
                   r.meta.tags.empty() ? "" : terminal_text(fmt::format(" (tags: {})", fmt::join(r.meta.tags, ", "))));
      if (!r.meta.notes.empty()) fmt::print("notes: {}\n", terminal_text(r.meta.notes, LineBreaks::kKeep));
      if (!r.steps.empty())
        fmt::print("steps recorded: {} (last loss {:.4f}, {} samples seen)\n", r.steps.back().global_step,
                   r.steps.back().loss, r.steps.back().samples_seen);
      fmt::print("{:>5} {:>8} {:>10} {:>10} {:>10} {:>10} {:>8}\n", "epoch", "step", "loss", "accuracy", "val_loss",
                 "val_acc", "time");
    } else {
      fmt::print("epoch,global_step,loss,accuracy,top_k_accuracy,val_loss,val_accuracy,val_top_k_accuracy,seconds\n");
    }
    for (const auto& e : r.epochs) {
      if (a.csv)
        fmt::print("{},{},{},{},{},{},{},{},{}\n", e.epoch, e.global_step, e.loss, e.accuracy, e.top_k_accuracy,
                   e.has_validation ? fmt::format("{}", e.val_loss) : "", e.has_validation ? fmt::format("{}", e.val_accuracy) : "",
                   e.has_validation ? fmt::format("{}", e.val_top_k_accuracy) : "", e.seconds);
      else
        fmt::print("{:>5} {:>8} {:>10.4f} {:>10.4f} {:>10} {:>10} {:>7.1f}s\n", e.epoch, e.global_step, e.loss, e.accuracy,
                   e.has_validation ? fmt::format("{:.4f}", e.val_loss) : "-",
                   e.has_validation ? fmt::format("{:.4f}", e.val_accuracy) : "-", e.seconds);
    }
    print_warnings(r);
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

int run_runs_compare(const RunsArgs& a) {
  try {
    std::vector<RunRecord> runs;
    for (const auto& d : a.dirs) runs.push_back(read_run(resolve_run(a.root, d)));
    for (const auto& r : runs) print_warnings(r);
    print_comparison(runs, a.csv);
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}


int run_export(const ExportArgs& a) {
  try {
    ExportOptions options;
    options.format = a.format;
    options.out_dir = a.out_dir;
    options.checkpoint = a.checkpoint;
    options.sample_size = a.sample;
    const ExportResult r = export_run(resolve_run(a.root, a.run), options);
    fmt::print("exported the weights of {} (step {}):\n", terminal_text(r.checkpoint), r.global_step);
    for (const auto& f : r.files) fmt::print("  {}\n", terminal_text(f));
    return kExitOk;
  } catch (const RunError& e) {
    fmt::print(stderr, "mirrortrain: error: {}\n", terminal_text(describe_exception(e), LineBreaks::kKeep));
    return kExitRunFailed;
  } catch (const std::exception& e) {
    return config_error(e);
  }
}

}  // namespace mirror::cli
