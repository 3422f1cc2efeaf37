// The commands that describe rather than train: summary, inspect, presets, devices, datasets.
#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "commands.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/keras_npz_write.h"
#include "mirror/runs/run_writer.h"
#include "mirror/data/preview.h"
#include "mirror/data/registry.h"
#include "mirror/model/cpu_gemm.h"
#include "mirror/model/presets.h"
#include "mirror/model/shape.h"
#include "mirror/model/summary.h"
#include "mirror/strategy/built_in.h"
#include "mirror/strategy/communicator_registry.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/device.h"
#include "mirror/util/error.h"
#include "mirror/util/threads.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"
#include "training.h"

namespace mirror::cli {

int run_summary(const ModelArgs& args) {
  try {
    const TrainConfig c = base_config(args);
    const auto data = load_dataset(c.dataset);
    const ModelAnalysis a = analyze(c.model, input_spec(*data));
    fmt::print("{}", terminal_text(format_summary(c.model.name, a), LineBreaks::kKeep));
    if (!a.ok()) {
      fmt::print(stderr, "mirrortrain: error: model does not fit dataset '{}': {}\n", terminal_text(data->info().name),
                 terminal_text(a.describe_errors(), LineBreaks::kKeep));
      return kExitBadConfig;
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

int run_inspect(const ModelArgs& args, int samples, const std::string& write_keras_npz) {
  try {
    const TrainConfig c = base_config(args);
    const auto data = load_dataset(c.dataset);
    const auto& info = data->info();
    if (!write_keras_npz.empty()) {  // what cannot be written is said before the summary, not after
      const auto folder = std::filesystem::absolute(write_keras_npz).parent_path();
      std::error_code ec;
      if (!std::filesystem::is_directory(folder, ec))
        throw ConfigError(fmt::format("--write-keras-npz {}: the folder {} does not exist; create it or name another",
                                      terminal_text(write_keras_npz), terminal_text(folder.string())));
      if (info.kind != InputKind::kTokens)
        throw ConfigError(fmt::format("--write-keras-npz: {} is not a text dataset (token ids); Keras' text layout holds only those",
                                      terminal_text(info.name)));
    }
    fmt::print("{} from {}\n", terminal_text(info.name), terminal_text(info.source));
    fmt::print("train {} / validation {} examples, input {}{}\n", data->size(Split::kTrain),
               data->size(Split::kValidation), format_shape(info.input_shape),
               info.kind == InputKind::kTokens ? fmt::format(", token ids below {}", info.vocab_size) : "");
    const auto train_counts = data->class_counts(Split::kTrain);
    const auto val_counts = data->class_counts(Split::kValidation);
    fmt::print("{} classes (train / validation examples):\n", info.num_classes);
    for (int64_t k = 0; k < info.num_classes; ++k)
      fmt::print("  {:>3} {:<16} {:>6} / {}\n", k,
                 k < static_cast<int64_t>(info.class_names.size()) ? terminal_text(info.class_names[static_cast<size_t>(k)]) : "",
                 train_counts[static_cast<size_t>(k)], val_counts[static_cast<size_t>(k)]);
    for (const auto& p : preview_examples(*data, Split::kTrain, samples)) {
      std::string text = p.text;
      if (text.empty())  // dense inputs: the first few values
        for (size_t k = 0; k < std::min<size_t>(p.values.size(), 8); ++k) text += fmt::format("{:.3g} ", p.values[k]);
      if (text.size() > 600) {
        text.resize(600);
        text += " ...";
      }
      fmt::print("example {} label {} {}: {}\n", p.index, p.label, terminal_text(p.label_name), terminal_text(text));
    }
    if (!write_keras_npz.empty()) {
      std::vector<std::vector<int64_t>> sequences;
      std::vector<int64_t> labels;
      text_examples(*data, sequences, labels);
      write_file_atomically(write_keras_npz, keras_text_npz(sequences, labels));
      fmt::print("wrote {} examples to {} (Keras' text layout: x word ranks, y labels)\n", labels.size(),
                 terminal_text(write_keras_npz));
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  } catch (const std::system_error& e) {  // the archive could not be written
    fmt::print(stderr, "mirrortrain: error: {}\n", terminal_text(e.what()));
    return kExitRunFailed;
  }
}

int run_presets() {
  for (const auto& p : presets())
    fmt::print("{:<14} dataset {:<15} {} x{} batch {}, {}, {}\n    {}\n", p.name, p.dataset, p.optimizer,
               p.learning_rate, p.batch_size, counted(p.epochs, "epoch"), counted(p.logical_devices, "logical device"),
               p.description);
  return kExitOk;
}

int run_devices() {
  for (const auto& d : list_physical_devices()) fmt::print("{:<8} {}\n", d.name, d.model);
  const CudaReport& cuda = cuda_report();
  fmt::print("LibTorch {}, BLAS: {}, CPU layers' GEMM: {}\n", TORCH_VERSION, blas_vendor(), cpu_gemm::library());
  if (!cuda.runtime_version.empty())
    fmt::print("CUDA runtime {}, driver {}\n", cuda.runtime_version,
               cuda.driver_version.empty() ? "none" : cuda.driver_version);
  if (!cuda.unavailable.empty()) {
    fmt::print("GPUs: none usable: {}\n", cuda.unavailable);
    for (const auto& g : cuda.gpus)
      fmt::print("         seen: {} ({} MiB, compute capability {}.{})\n", g.name, g.memory_mib, g.compute_major,
                 g.compute_minor);
  }
  fmt::print("\nBuilt in:\n");
  for (const auto& part : built_in_parts()) fmt::print("  {:<14} {}\n", part.name, describe(part));
  // Each backend, judged for two replicas on CPU and (when there is one) on the first GPU.
  std::vector<std::pair<std::string, std::vector<LogicalDevice>>> cases;
  cases.emplace_back("cpu", resolve_devices(DeviceRequest{"cpu", 2, 0}, list_physical_devices()));
  for (const auto& d : list_physical_devices())
    if (d.type == DeviceType::kCuda) {
      cases.emplace_back(d.name, resolve_devices(DeviceRequest{d.name, 2, 0}, list_physical_devices()));
      break;
    }
  fmt::print("\nAll-reduce backends (--communicator), for 2 replicas on each device kind:\n");
  for (const auto& b : CommunicatorRegistry::instance().backends()) {
    fmt::print("  {:<14} {}\n", b.name, b.summary);
    if (!b.not_in_build.empty()) {
      fmt::print("  {:<14}   not in this build: {}\n", "", b.not_in_build);
      continue;
    }
    for (const auto& [kind, devices] : cases) {
      const std::string why = b.unavailable(devices);
      fmt::print("  {:<14}   {}: {}\n", "", kind, why.empty() ? "available" : "not available: " + why);
    }
  }
  return kExitOk;
}

int run_datasets() {
  for (const auto& d : dataset_entries())
    fmt::print("{:<15} {}{}\n", d.name, d.summary, d.default_dir.empty() ? "" : fmt::format(" [{}]", d.default_dir));
  return kExitOk;
}

}  // namespace mirror::cli
