// Tested by tests/core/runs/test_recorded_run.cpp and tests/core/train/test_trainer.cpp.
#include "mirror/runs/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
constexpr int64_t kFormat = 1;

// Position fields as (name, double) pairs; integers up to 2^53 survive the round trip exactly.
std::vector<std::pair<std::string, double>> position_fields(const TrainPosition& p) {
  return {{"epoch", p.epoch},
          {"step_in_epoch", static_cast<double>(p.step_in_epoch)},
          {"global_step", static_cast<double>(p.global_step)},
          {"epoch_loss_sum", p.epoch_sums.loss_sum},
          {"epoch_samples", static_cast<double>(p.epoch_sums.samples)},
          {"epoch_correct", static_cast<double>(p.epoch_sums.correct)},
          {"epoch_top_k_correct", static_cast<double>(p.epoch_sums.top_k_correct)},
          {"epoch_seconds", p.epoch_seconds},
          {"train_seconds", p.train_seconds},
          {"train_samples", static_cast<double>(p.train_samples)},
          {"best_val_accuracy", p.best_val_accuracy}};
}

// Plateau and early-stopping state: written by every checkpoint, absent from older ones (which
// then resume with the defaults).
std::vector<std::pair<std::string, double*>> callback_fields(CallbackState& s) {
  return {{"plateau_scale", &s.plateau_scale}, {"plateau_best", &s.plateau_best}, {"stop_best", &s.stop_best}};
}
std::vector<std::pair<std::string, int*>> callback_counters(CallbackState& s) {
  return {{"plateau_wait", &s.plateau_wait},
          {"plateau_cooldown", &s.plateau_cooldown},
          {"stop_wait", &s.stop_wait},
          {"stop_best_epoch", &s.stop_best_epoch}};
}
}  // namespace

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  torch::serialize::OutputArchive a;
  a.write("format", c10::IValue(kFormat));
  a.write("params", c.state.params);
  a.write("optimizer_iterations", c10::IValue(c.state.optimizer_iterations));
  a.write("steps", c10::IValue(c.state.steps));
  a.write("slot_count", c10::IValue(static_cast<int64_t>(c.state.optimizer_slots.size())));
  for (size_t i = 0; i < c.state.optimizer_slots.size(); ++i) {
    a.write(fmt::format("slot_name_{}", i), c10::IValue(c.state.optimizer_slots[i].first));
    a.write(fmt::format("slot_{}", i), c.state.optimizer_slots[i].second);
  }
  a.write("replicas", c10::IValue(static_cast<int64_t>(c.state.dropout_rng.size())));
  for (size_t r = 0; r < c.state.dropout_rng.size(); ++r) a.write(fmt::format("dropout_rng_{}", r), c.state.dropout_rng[r]);
  for (const auto& [name, value] : position_fields(c.position)) a.write("position_" + name, c10::IValue(value));
  CallbackState callbacks = c.position.callbacks;
  for (const auto& [name, value] : callback_fields(callbacks)) a.write("callback_" + name, c10::IValue(*value));
  for (const auto& [name, value] : callback_counters(callbacks))
    a.write("callback_" + name, c10::IValue(static_cast<int64_t>(*value)));
  if (c.best_params.defined()) a.write("best_params", c.best_params);
  // Serialised in memory first, then written by us: LibTorch's file writer, when the disk fills
  // under it, throws from its destructor as well and takes the process down (seen as SIGABRT,
  // "unexpected pos 64 vs 0", with a 4 MiB disk filling mid-checkpoint).
  std::string bytes;
  try {
    a.save_to([&bytes](const void* data, size_t size) {
      bytes.append(static_cast<const char*>(data), size);
      return size;
    });
  } catch (const c10::Error& e) {
    throw RunError(fmt::format("cannot write checkpoint {}: {}", path, e.what_without_backtrace()));
  }
  try {
    write_file_atomically(path, bytes);
  } catch (const std::system_error& e) {
    throw RunError(fmt::format("cannot write checkpoint {}: {}{}; the checkpoints before it are kept", path,
                               e.code().message(), disk_full_hint(path)));
  }
}

namespace {
// What a checkpoint's fields may hold. Anything else means the file is damaged or was not written
// by us: read_checkpoint then says which field and why, instead of training from nonsense.
constexpr int64_t kMaxSlots = 64;
constexpr int64_t kMaxReplicas = 1 << 16;
constexpr double kMaxExactCount = 9007199254740992.0;  // 2^53: counts stored as doubles stay exact

// One named field of the archive, read as the type it must have.
class Fields {
 public:
  Fields(torch::serialize::InputArchive& a, const std::string& path) : a_(a), path_(path) {}

  [[noreturn]] void bad(const std::string& key, const std::string& why) const {
    throw DataError(fmt::format("{}: not a valid checkpoint: '{}' {}", path_, key, why));
  }
  c10::IValue value(const std::string& key) {
    c10::IValue v;
    if (!a_.try_read(key, v)) bad(key, "is missing");
    return v;
  }
  int64_t integer(const std::string& key, int64_t lo, int64_t hi) {
    const auto v = value(key);
    if (!v.isInt()) bad(key, fmt::format("is a {}, not an integer", v.tagKind()));
    const int64_t i = v.toInt();
    if (i < lo || i > hi) bad(key, fmt::format("is {}, outside {}..{}", i, lo, hi));
    return i;
  }
  double real(const std::string& key) {
    const auto v = value(key);
    if (!v.isDouble()) bad(key, fmt::format("is a {}, not a number", v.tagKind()));
    return v.toDouble();
  }
  std::string text(const std::string& key) {
    const auto v = value(key);
    if (!v.isString()) bad(key, fmt::format("is a {}, not text", v.tagKind()));
    return v.toStringRef();
  }
  torch::Tensor tensor(const std::string& key) {
    torch::Tensor t;
    if (!a_.try_read(key, t) || !t.defined()) bad(key, "is missing or not a tensor");
    return t;
  }
  // A count stored as a double: a whole number in 0..2^53.
  int64_t count(const std::string& key, double value) const {
    if (!(value >= 0 && value <= kMaxExactCount) || value != std::floor(value))
      bad(key, fmt::format("is {}, not a count", value));
    return static_cast<int64_t>(value);
  }

 private:
  torch::serialize::InputArchive& a_;
  const std::string& path_;
};

Checkpoint read_fields(torch::serialize::InputArchive& a, const std::string& path) {
  Fields f(a, path);
  Checkpoint c;
  const int64_t format = f.integer("format", INT64_MIN, INT64_MAX);
  if (format != kFormat) throw DataError(fmt::format("{}: checkpoint format {} is not supported", path, format));
  auto& s = c.state;
  s.params = f.tensor("params");
  if (s.params.dim() != 1 || s.params.scalar_type() != torch::kFloat32 || s.params.numel() == 0)
    f.bad("params", fmt::format("is a {} tensor of shape {}, not the flat float32 parameters",
                                c10::toString(s.params.scalar_type()), fmt::join(s.params.sizes(), "x")));
  s.optimizer_iterations = f.integer("optimizer_iterations", 0, INT64_MAX);
  s.steps = f.integer("steps", 0, INT64_MAX);
  const int64_t slots = f.integer("slot_count", 0, kMaxSlots);
  for (int64_t i = 0; i < slots; ++i) {
    const auto key = fmt::format("slot_{}", i);
    auto t = f.tensor(key);
    if (!t.is_floating_point()) f.bad(key, fmt::format("holds {}, not floating-point values", c10::toString(t.scalar_type())));
    s.optimizer_slots.emplace_back(f.text(fmt::format("slot_name_{}", i)), t);
  }
  const int64_t replicas = f.integer("replicas", 1, kMaxReplicas);
  for (int64_t r = 0; r < replicas; ++r) {
    const auto key = fmt::format("dropout_rng_{}", r);
    auto t = f.tensor(key);
    if (t.dim() != 1 || t.scalar_type() != torch::kUInt8) f.bad(key, "is not a generator state (bytes)");
    s.dropout_rng.push_back(t);
  }
  auto& p = c.position;
  std::vector<double> values;
  for (const auto& [name, unused] : position_fields(p)) values.push_back(f.real("position_" + name));
  p.epoch = static_cast<int>(f.count("position_epoch", values[0]));
  if (p.epoch < 1 || values[0] > INT_MAX) f.bad("position_epoch", fmt::format("is {}, not an epoch", values[0]));
  p.step_in_epoch = f.count("position_step_in_epoch", values[1]);
  p.global_step = f.count("position_global_step", values[2]);
  p.epoch_sums.loss_sum = values[3];
  p.epoch_sums.samples = f.count("position_epoch_samples", values[4]);
  p.epoch_sums.correct = f.count("position_epoch_correct", values[5]);
  p.epoch_sums.top_k_correct = f.count("position_epoch_top_k_correct", values[6]);
  p.epoch_seconds = values[7];
  p.train_seconds = values[8];
  p.train_samples = f.count("position_train_samples", values[9]);
  p.best_val_accuracy = values[10];
  if (p.step_in_epoch > p.global_step)
    f.bad("position_step_in_epoch", fmt::format("is {}, past the run's {} steps", p.step_in_epoch, p.global_step));
  if (!std::isfinite(p.epoch_sums.loss_sum)) f.bad("position_epoch_loss_sum", "is not finite");
  if (p.epoch_sums.correct > p.epoch_sums.samples || p.epoch_sums.top_k_correct > p.epoch_sums.samples)
    f.bad("position_epoch_correct", "counts more hits than samples");
  for (const auto& [key, v] : {std::pair{"position_epoch_seconds", p.epoch_seconds}, std::pair{"position_train_seconds", p.train_seconds}})
    if (!(v >= 0 && std::isfinite(v))) f.bad(key, fmt::format("is {}, not a duration", v));
  if (!(p.best_val_accuracy == -1 || (p.best_val_accuracy >= 0 && p.best_val_accuracy <= 1)))
    f.bad("position_best_val_accuracy", fmt::format("is {}, not an accuracy", p.best_val_accuracy));
  // Older checkpoints lack the callbacks' state: they resume with the defaults.
  c10::IValue v;
  for (const auto& [name, value] : callback_fields(p.callbacks))
    if (a.try_read("callback_" + name, v)) *value = f.real("callback_" + name);
  for (const auto& [name, value] : callback_counters(p.callbacks))
    if (a.try_read("callback_" + name, v)) *value = static_cast<int>(f.integer("callback_" + name, 0, INT_MAX));
  torch::Tensor best;
  if (a.try_read("best_params", best) && best.defined()) {
    if (best.sizes() != s.params.sizes() || best.scalar_type() != s.params.scalar_type())
      f.bad("best_params", "does not match the parameters' shape");
    c.best_params = best;
  }
  return c;
}
}  // namespace

namespace {
// A checkpoint larger than this is refused unread: the weights and optimizer slots of a model far
// larger than the workbench trains.
constexpr uint64_t kMaxCheckpointBytes = uint64_t{16} << 30;
}  // namespace

Checkpoint read_checkpoint(const std::string& path) {
  if (!fs::exists(path)) throw DataError(fmt::format("{}: no such checkpoint", path));
  check_before_opening(path, kMaxCheckpointBytes, "a checkpoint");  // LibTorch opens the path itself
  try {
    torch::serialize::InputArchive a;
    a.load_from(path);
    return read_fields(a, path);
  } catch (const c10::Error& e) {
    throw DataError(fmt::format("{}: not a readable checkpoint ({})", path, e.what_without_backtrace()));
  } catch (const DataError&) {
    throw;
  } catch (const std::exception& e) {  // LibTorch's archive reader throws more than c10::Error
    throw DataError(fmt::format("{}: not a readable checkpoint ({})", path, e.what()));
  }
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto name = e.path().filename().string();
    if (name.rfind("ckpt-", 0) == 0 && e.path().extension() == ".pt")
      found.emplace_back(std::atoll(name.c_str() + 5), e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

void prune_checkpoints(const std::string& dir, int keep) {
  auto all = list_checkpoints(dir);
  for (size_t i = 0; i + static_cast<size_t>(std::max(keep, 1)) < all.size(); ++i) fs::remove(all[i]);
}

void CheckpointFolder::save(const Checkpoint& c, bool best) {
  // The folder above (the run's) is made with the run; making it again here would bring back a
  // run folder someone deleted during training, as an empty folder holding only checkpoints.
  const fs::path above = fs::path(dir_).parent_path();
  const auto run_folder_gone = [&above] {
    std::error_code ec;
    return !above.empty() && !fs::is_directory(above, ec);
  };
  const auto deleted = [&above] {
    return RunError(fmt::format("cannot save a checkpoint: the run folder {} was deleted or moved while the run "
                                "trained; training stops", above.string()));
  };
  if (run_folder_gone()) throw deleted();
  try {
    std::error_code ec;
    fs::create_directory(dir_, ec);
    if (ec) throw RunError(fmt::format("cannot create the checkpoint folder {}: {}", dir_, ec.message()));
    write_checkpoint((fs::path(dir_) / fmt::format("ckpt-{}.pt", c.position.global_step)).string(), c);
    prune_checkpoints(dir_, keep_last_);
    if (best) write_checkpoint((fs::path(dir_) / "best.pt").string(), c);
  } catch (const std::exception&) {
    // Deleted while this checkpoint was written ("No such file or directory"): say what happened.
    if (run_folder_gone()) throw deleted();
    throw;
  }
}

}  // namespace mirror
