#include "mirror/runs/export_run.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <ctime>
#include <filesystem>
#include <system_error>

#include "mirror/data/batch.h"
#include "mirror/data/npy.h"
#include "mirror/data/registry.h"
#include "mirror/model/builder.h"
#include "mirror/model/export.h"
#include "mirror/model/keras_file.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/config.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/version.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
// The checkpoint `which` names in `dir`: the newest readable one ("last"), best.pt ("best"), or a file.
std::pair<std::string, Checkpoint> choose_checkpoint(const std::string& dir, const std::string& which) {
  const std::string folder = (fs::path(dir) / "checkpoints").string();
  if (which == "best") {
    const std::string best = (fs::path(folder) / "best.pt").string();
    if (!fs::exists(best))
      throw ConfigError(fmt::format("{}: no best.pt (written when validation accuracy improves); use --checkpoint last", dir));
    return {best, read_checkpoint(best)};
  }
  if (which != "last") return {which, read_checkpoint(which)};
  const auto all = list_checkpoints(folder);
  if (all.empty()) throw ConfigError(fmt::format("{}: no checkpoint to export (checkpoints/ is empty or missing)", dir));
  std::string newest_error;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    try {
      return {*it, read_checkpoint(*it)};
    } catch (const DataError& e) {
      if (newest_error.empty()) newest_error = e.what();
    }
  }
  throw DataError(fmt::format("{}: none of its {} checkpoints can be read; the newest: {}", dir, all.size(), newest_error));
}

void write(const fs::path& path, const std::string& bytes, std::vector<std::string>& written) {
  try {
    write_file_atomically(path.string(), bytes);
  } catch (const std::system_error& e) {
    throw RunError(fmt::format("{}{}", e.what(), disk_full_hint(path.string())));
  }
  written.push_back(path.string());
}

// metadata.json's date_saved, as Keras writes it: "2026-12-07@03:06:52", local time.
std::string keras_date_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d@%H:%M:%S", &local);
  return text;
}

std::string npy_of(const torch::Tensor& t) {
  const auto c = t.contiguous();
  const std::string descr = c.scalar_type() == torch::kLong ? "<i8" : "<f4";
  return npy_bytes(descr, c.sizes().vec(), c.data_ptr(), static_cast<size_t>(c.numel()) * c.element_size());
}
// `analysis`' model as the model file says it: a final softmax gives probabilities (training on
// probabilities takes its log, an extra the exported model does not carry), with the weights of
// `flat` (as a checkpoint holds them: the parameters in the model's order, one after another).
torch::nn::Sequential written_model(const ModelAnalysis& analysis, const torch::Tensor& flat, const std::string& what) {
  ModelAnalysis as_written = analysis;
  as_written.train_on_probabilities = false;
  torch::nn::Sequential model = build_model(as_written);
  torch::NoGradGuard no_grad;
  int64_t total = 0;
  for (const auto& p : model->parameters()) total += p.numel();
  if (!flat.defined() || flat.numel() != total)
    throw DataError(fmt::format("{}: holds {} parameters, the model has {}", what, flat.defined() ? flat.numel() : 0, total));
  int64_t offset = 0;
  for (auto& p : model->parameters()) {
    p.copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
  model->eval();
  return model;
}

// sample_input.npy and sample_output.npy: the first `n` validation examples (training ones when
// there are none) and what `model` makes of them.
void write_sample(torch::nn::Sequential& model, const Dataset& dataset, int64_t n, const fs::path& out,
                  std::vector<std::string>& files) {
  const Split split = dataset.size(Split::kValidation) > 0 ? Split::kValidation : Split::kTrain;
  const Batch batch = dataset.slice(split, 0, std::min(n, dataset.size(split)));
  torch::NoGradGuard no_grad;
  const torch::Tensor outputs = model->forward(batch.x);
  write(out / "sample_input.npy", npy_of(batch.x), files);
  write(out / "sample_output.npy", npy_of(outputs.to(torch::kFloat32)), files);
}

fs::path made_folder(const fs::path& out) {
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw RunError(fmt::format("{}: cannot create the folder: {}", out.string(), ec.message()));
  return out;
}
}  // namespace

std::vector<std::string> write_model_sample(const ModelAnalysis& analysis, const torch::Tensor& params,
                                            const Dataset& data, int64_t n, const std::string& out_dir) {
  torch::nn::Sequential model = written_model(analysis, params, "the weights");
  std::vector<std::string> files;
  write_sample(model, data, n, made_folder(out_dir), files);
  return files;
}

ExportResult export_run(const std::string& run_dir, const ExportOptions& options) {
  if (options.format != "pt" && options.format != "onnx" && options.format != "keras")
    throw ConfigError(fmt::format("unknown export format '{}' (known: pt, onnx, keras)", options.format));
  if (options.sample_size < 0) throw ConfigError(fmt::format("sample size must be >= 0, got {}", options.sample_size));
  const nlohmann::json run = RunWriter::read_run_json(run_dir);
  if (!run.is_object() || !run.contains("config"))
    throw ConfigError(fmt::format("{}: run.json holds no config; is this a run folder?", run_dir));
  const TrainConfig config = config_from_json(run.at("config"));
  auto [checkpoint_path, checkpoint] = choose_checkpoint(run_dir, options.checkpoint);

  const auto dataset = load_dataset(config.dataset);
  const InputSpec input = input_spec(*dataset);
  const ModelAnalysis analysis = analyze(config.model, input);
  if (!analysis.ok())
    throw ConfigError(fmt::format("{}: the recorded model does not fit its dataset any more: {}", run_dir,
                                  analysis.describe_errors()));
  torch::nn::Sequential model = written_model(analysis, checkpoint.state.params, checkpoint_path);

  ExportResult result;
  result.checkpoint = checkpoint_path;
  result.global_step = checkpoint.position.global_step;
  const fs::path out = made_folder(options.out_dir.empty() ? fs::path(run_dir) / "export" : fs::path(options.out_dir));

  const std::string title = fmt::format("Model '{}' of run {}, trained {} steps on {}", config.model.name,
                                        fs::path(run_dir).filename().string(), result.global_step, dataset->info().name);
  if (options.format == "pt") {
    // Keyed as model.py's attributes are named: "<layer identifier>.weight".
    const auto ids = python_layer_names(analysis);
    c10::Dict<std::string, torch::Tensor> state;
    for (const auto& p : model->named_parameters())
      state.insert(exported_parameter_name(ids, p.key()), p.value().detach().clone());
    const std::vector<char> bytes = torch::pickle_save(c10::IValue(state));
    write(out / "model.pt", std::string(bytes.begin(), bytes.end()), result.files);
    write(out / "model.py", pytorch_model_source(analysis, input, title), result.files);
  } else {
    std::vector<NamedWeights> weights;
    for (const auto& p : model->named_parameters()) {
      const auto t = p.value().detach().contiguous();
      weights.push_back({p.key(), t.sizes().vec(), std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel())});
    }
    if (options.format == "onnx")
      write(out / "model.onnx", onnx_model(analysis, input, weights, kVersion), result.files);
    else
      write(out / "model.keras", keras_model_file(analysis, input, weights, config.model.name, keras_date_now()), result.files);
  }

  if (options.sample_size > 0) write_sample(model, *dataset, options.sample_size, out, result.files);
  return result;
}

}  // namespace mirror
