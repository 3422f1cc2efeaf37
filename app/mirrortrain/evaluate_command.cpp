// mirrortrain evaluate: the validation split's loss and accuracies under a model's starting
// weights, a .keras file's above all: what Keras' model.evaluate says of the same file and data.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "mirror/data/registry.h"
#include "mirror/model/shape.h"
#include "mirror/runs/export_run.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "training.h"

namespace mirror::cli {

int run_evaluate(const ModelArgs& args, const EvaluateArgs& e) {
  try {
    TrainConfig c = base_config(args);
    if (e.batch > 0) c.eval_batch_size = e.batch;
    const auto data = load_dataset(c.dataset);
    if (data->size(Split::kValidation) == 0)
      throw ConfigError(fmt::format("dataset '{}' has no validation examples to evaluate on (give --validation-split "
                                    "or --val-size)", data->info().name));
    Trainer trainer(c, data);
    const MetricSums m = trainer.validate();
    const int k = c.strategy.top_k;
    std::vector<std::string> files;
    if (!e.sample_out.empty()) {
      ModelAnalysis analysis = analyze(c.model, input_spec(*data));
      files = write_model_sample(analysis, trainer.strategy().state().params, *data, e.sample, e.sample_out);
    }
    if (e.json) {
      fmt::print("{}\n", nlohmann::json({{"type", "evaluation"}, {"dataset", data->info().name},
                                         {"examples", m.samples}, {"loss", m.loss()}, {"accuracy", m.accuracy()},
                                         {"top_k", k}, {"top_k_accuracy", m.top_k_accuracy()},
                                         {"initial_weights", c.initial_weights.empty() ? nlohmann::json()
                                                                                       : nlohmann::json(c.initial_weights)},
                                         {"seed", c.seed}, {"files", files}})
                             .dump());
    } else {
      fmt::print("{} validation examples of {}: loss {:.4f}, accuracy {:.4f}, top-{} accuracy {:.4f}\n", m.samples,
                 terminal_text(data->info().name), m.loss(), m.accuracy(), k, m.top_k_accuracy());
      fmt::print("weights: {}\n", c.initial_weights.empty() ? fmt::format("new, drawn from seed {}", c.seed)
                                                            : terminal_text(c.initial_weights));
      for (const auto& f : files) fmt::print("wrote {}\n", terminal_text(f));
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

}  // namespace mirror::cli
