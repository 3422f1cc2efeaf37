#pragma once
// Taking a trained model out of a run folder, into the formats other programs read.

#include <cstdint>
#include <string>
#include <vector>

namespace at {
class Tensor;
}

namespace mirror {

class Dataset;
struct ModelAnalysis;

struct ExportOptions {
  std::string format = "pt";   // "pt": model.pt (a PyTorch state dict) + model.py; "onnx": model.onnx;
                               // "keras": model.keras (Keras 3: keras.models.load_model)
  std::string out_dir;         // empty: <run>/export
  std::string checkpoint = "last";  // "last" (the newest readable), "best" (best.pt), or a file
  // Also writes sample_input.npy and sample_output.npy: the first this many validation examples
  // and what our model makes of them, so the export can be checked where it lands. 0: none.
  int64_t sample_size = 16;
};

struct ExportResult {
  std::vector<std::string> files;  // written, in order
  std::string checkpoint;          // the checkpoint the weights came from
  int64_t global_step = 0;         // its step
};

// Writes run `run_dir`'s model with the weights of the chosen checkpoint. Loads the run's dataset
// (its shapes decide the model; the sample comes from it). Throws ConfigError for a folder with no
// run or no checkpoint, an unknown format, or a model that cannot take that form (naming the
// layer and why); DataError for a checkpoint or dataset that cannot be read; RunError when a file
// cannot be written. Works on a run that is still training (its newest finished checkpoint).
ExportResult export_run(const std::string& run_dir, const ExportOptions& options = {});

// sample_input.npy and sample_output.npy in `out_dir` (created if missing), as export_run writes
// them: the first `n` validation examples of `data` (training ones when it has none) and what
// `analysis`' model as written computes from them with `params` (flat, float32, CPU, as a
// checkpoint holds them). Returns the files written. Throws DataError when `params` does not fit
// the model, RunError when a file cannot be written.
std::vector<std::string> write_model_sample(const ModelAnalysis& analysis, const at::Tensor& params,
                                            const Dataset& data, int64_t n, const std::string& out_dir);

}  // namespace mirror
