#pragma once
// Optimizers with Keras' semantics, applied to one flat parameter vector per replica.
//
// Every replica owns one Optimizer and its slots (moments, velocities); after the all-reduce the
// gradients are identical everywhere, so every replica's update is identical too.

#include <torch/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mirror/optim/optimizer_config.h"

namespace mirror {

// One step of an optimizer as the fused update applies it: which formula, and the step's numbers,
// computed on the host in double precision and rounded to float (core/src/optim/fused_update.h
// says what each number is for each formula). A captured CUDA graph reads them from device
// memory (DeviceUpdate), so that a schedule's new rate and the bias corrections reach every replay.
struct UpdateScalars {
  int32_t kind = 0;
  std::array<float, 8> values{};
};

class Optimizer {
 public:
  explicit Optimizer(double learning_rate) : lr_(learning_rate) {}
  virtual ~Optimizer() = default;
  // The rate the next step() uses (schedules change it between steps).
  double learning_rate() const { return lr_; }
  void set_learning_rate(double learning_rate) { lr_ = learning_rate; }
  // Applies one update to `params` in place from `grads` (same shape and device, float32).
  // Contiguous buffers on a GPU, and Adam, AdamW and Nadam on the CPU, take the fused update
  // (one pass, next_update()'s numbers); anything else runs as LibTorch operations.
  // Not thread-safe: each replica owns its optimizer.
  virtual void step(torch::Tensor& params, const torch::Tensor& grads);
  // Advances the step count and returns this step's formula and numbers for the fused update:
  // what step() applies there, and what DeviceUpdate hands a captured step.
  virtual UpdateScalars next_update() = 0;
  // The slot tensors the fused update reads and writes, in its order (undefined where the
  // formula has fewer).
  virtual std::array<torch::Tensor, 2> update_slots() const = 0;
  // Number of steps applied so far (Keras' `iterations`).
  int64_t iterations() const { return iterations_; }
  // Named slot tensors and scalars, for checkpoints and tests.
  virtual std::vector<std::pair<std::string, torch::Tensor>> slots() const = 0;
  // Restores slots saved from an optimizer of the same kind and size, and the step count.
  // Throws DataError naming a missing or mis-shaped slot.
  virtual void load_slots(const std::vector<std::pair<std::string, torch::Tensor>>& saved, int64_t iterations);

 protected:
  double lr_;
  int64_t iterations_ = 0;
};

// The fused update of `update` on `params` (contiguous float32, on the CPU or a CUDA GPU) from
// `grads`, with `slots` as update_slots() gives them, in one pass; on a GPU it is enqueued on the
// current stream. `device_values`: when defined, 8 float32 on the params' device from which the
// kernel reads the numbers when it runs (a captured graph), instead of update.values.
// Throws RunError when the kernel cannot be launched, std::invalid_argument on other buffers.
void apply_update(const UpdateScalars& update, torch::Tensor& params, const torch::Tensor& grads,
                  const std::array<torch::Tensor, 2>& slots, const torch::Tensor& device_values = {});

// Clips a flat gradient vector in place as `config` says (clipnorm per segment, then
// global_clipnorm, then clipvalue); `segments` are the sizes of the weights in it, in order.
void clip_gradients(const OptimizerConfig& config, torch::Tensor& grads, const std::vector<int64_t>& segments);

// Creates the optimizer `config` names with slots shaped like `params`. Validates the config.
std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config, const torch::Tensor& params);

}  // namespace mirror
