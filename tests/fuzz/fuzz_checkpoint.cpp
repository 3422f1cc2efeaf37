// libFuzzer target: a checkpoint's fields as read_checkpoint reads them. The fuzzer does not
// write the archive's bytes (that is LibTorch's zip and pickle reader, not ours): it chooses, for
// every field a checkpoint holds, whether it is there, its type and its value, and the archive is
// written with LibTorch. Input that runs out gives a valid checkpoint, so every byte the fuzzer
// adds is a way of damaging one. Anything but a DataError escaping, a crash, a leak, a hang or a
// checkpoint accepted with values a resumed run could not use is a bug.
#include <fuzzer/FuzzedDataProvider.h>
#include <torch/torch.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mirror/runs/checkpoint.h"
#include "mirror/util/error.h"
#include "scratch_file.h"

namespace {
class Writer {
 public:
  explicit Writer(FuzzedDataProvider& in) : in_(in) {}

  // The field's form: 0 the right type (most of the time), else missing or another type.
  void integer(const std::string& key, int64_t good) { field(key, c10::IValue(value(good))); }
  void real(const std::string& key, double good) {
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: return put(key, c10::IValue(good));
      case 1: return put(key, c10::IValue(in_.ConsumeFloatingPoint<double>()));
      case 2: return put(key, c10::IValue(special()));
      default: return other(key);
    }
  }
  void text(const std::string& key, const std::string& good) {
    if (in_.ConsumeBool()) return other(key);
    put(key, c10::IValue(in_.ConsumeBool() ? in_.ConsumeRandomLengthString(16) : good));
  }
  void tensor(const std::string& key, const torch::Tensor& good) {
    switch (in_.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: return archive_.write(key, good);
      case 1: return archive_.write(key, random_tensor());
      default: return other(key);
    }
  }
  torch::serialize::OutputArchive& archive() { return archive_; }

 private:
  int64_t value(int64_t good) {
    switch (in_.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: return good;
      case 1: return in_.ConsumeIntegral<int64_t>();
      case 2: return in_.ConsumeIntegralInRange<int64_t>(-2, 70);
      default: return in_.PickValueInArray({std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                                             int64_t{1} << 53, (int64_t{1} << 31) - 1, int64_t{1} << 31});
    }
  }
  double special() {
    return in_.PickValueInArray({std::nan(""), HUGE_VAL, -HUGE_VAL, 1e300, -1e300, 9007199254740993.0, 0.5, -1.0, 2.0,
                                 2147483648.0, -0.0});
  }
  torch::Tensor random_tensor() {
    const auto dtype = in_.PickValueInArray({torch::kFloat32, torch::kFloat64, torch::kUInt8, torch::kInt64, torch::kBool});
    std::vector<int64_t> shape(in_.ConsumeIntegralInRange<size_t>(0, 3));
    for (auto& d : shape) d = in_.ConsumeIntegralInRange<int64_t>(0, 5);
    return torch::zeros(shape, dtype);
  }
  // Missing, or a value of another type.
  void other(const std::string& key) {
    switch (in_.ConsumeIntegralInRange<int>(0, 4)) {
      case 0: return;
      case 1: return put(key, c10::IValue(std::string("x")));
      case 2: return put(key, c10::IValue(1.5));
      case 3: return put(key, c10::IValue(int64_t{3}));
      default: return archive_.write(key, random_tensor());
    }
  }
  void field(const std::string& key, const c10::IValue& v) {
    if (in_.ConsumeIntegralInRange<int>(0, 7) == 7) return other(key);
    put(key, v);
  }
  void put(const std::string& key, const c10::IValue& v) { archive_.write(key, v); }

  FuzzedDataProvider& in_;
  torch::serialize::OutputArchive archive_;
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Writer w(in);
  constexpr int64_t kParams = 6;
  w.integer("format", 1);
  w.tensor("params", torch::arange(kParams, torch::kFloat32));
  w.integer("optimizer_iterations", 12);
  w.integer("steps", 12);
  const int64_t slots = in.ConsumeIntegralInRange<int64_t>(0, 3);
  w.integer("slot_count", slots);
  for (int64_t i = 0; i < slots; ++i) {
    w.text("slot_name_" + std::to_string(i), i == 0 ? "m" : "v");
    w.tensor("slot_" + std::to_string(i), torch::zeros({kParams}));
  }
  const int64_t replicas = in.ConsumeIntegralInRange<int64_t>(1, 3);
  w.integer("replicas", replicas);
  for (int64_t r = 0; r < replicas; ++r) w.tensor("dropout_rng_" + std::to_string(r), torch::zeros({5056}, torch::kUInt8));
  for (const auto& [name, good] : std::vector<std::pair<const char*, double>>{
           {"epoch", 2}, {"step_in_epoch", 2}, {"global_step", 12}, {"epoch_loss_sum", 3.5}, {"epoch_samples", 64},
           {"epoch_correct", 40}, {"epoch_top_k_correct", 60}, {"epoch_seconds", 0.25}, {"train_seconds", 1.5},
           {"train_samples", 384}, {"best_val_accuracy", 0.75}})
    w.real(std::string("position_") + name, good);
  for (const char* name : {"plateau_scale", "plateau_best", "stop_best"})
    if (in.ConsumeBool()) w.real(std::string("callback_") + name, 1.0);
  for (const char* name : {"plateau_wait", "plateau_cooldown", "stop_wait", "stop_best_epoch"})
    if (in.ConsumeBool()) w.integer(std::string("callback_") + name, 1);
  if (in.ConsumeBool()) w.tensor("best_params", torch::ones({kParams}));

  const std::string path = mirror::fuzz::scratch().dir() + "/ckpt-12.pt";
  w.archive().save_to(path);
  try {
    const mirror::Checkpoint c = mirror::read_checkpoint(path);
    // Accepted: every value is one a resumed run can use.
    const auto& p = c.position;
    if (!c.state.params.defined() || c.state.params.dim() != 1 || c.state.dropout_rng.empty()) __builtin_trap();
    if (p.epoch < 1 || p.global_step < 0 || p.step_in_epoch < 0 || p.step_in_epoch > p.global_step) __builtin_trap();
    if (p.epoch_sums.samples < 0 || p.epoch_sums.correct > p.epoch_sums.samples || p.train_samples < 0) __builtin_trap();
    if (!std::isfinite(p.epoch_sums.loss_sum) || !(p.train_seconds >= 0) || !(p.epoch_seconds >= 0)) __builtin_trap();
    if (c.best_params.defined() && c.best_params.sizes() != c.state.params.sizes()) __builtin_trap();
  } catch (const mirror::DataError&) {
  }
  return 0;
}
