#include "mirror/runs/checkpoint.h"

#include <fmt/format.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "mirror/util/error.h"

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
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  try {
    a.save_to(tmp);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) throw RunError(fmt::format("cannot write checkpoint {}: {}", path, ec.message()));
  } catch (const c10::Error& e) {
    fs::remove(tmp);
    throw RunError(fmt::format("cannot write checkpoint {}: {}", path, e.what_without_backtrace()));
  }
}

Checkpoint read_checkpoint(const std::string& path) {
  if (!fs::exists(path)) throw DataError(fmt::format("{}: no such checkpoint", path));
  Checkpoint c;
  try {
    torch::serialize::InputArchive a;
    a.load_from(path);
    c10::IValue v;
    a.read("format", v);
    if (v.toInt() != kFormat) throw DataError(fmt::format("{}: checkpoint format {} is not supported", path, v.toInt()));
    a.read("params", c.state.params);
    a.read("optimizer_iterations", v);
    c.state.optimizer_iterations = v.toInt();
    a.read("steps", v);
    c.state.steps = v.toInt();
    a.read("slot_count", v);
    const int64_t slots = v.toInt();
    for (int64_t i = 0; i < slots; ++i) {
      a.read(fmt::format("slot_name_{}", i), v);
      torch::Tensor t;
      a.read(fmt::format("slot_{}", i), t);
      c.state.optimizer_slots.emplace_back(v.toStringRef(), t);
    }
    a.read("replicas", v);
    const int64_t replicas = v.toInt();
    for (int64_t r = 0; r < replicas; ++r) {
      torch::Tensor t;
      a.read(fmt::format("dropout_rng_{}", r), t);
      c.state.dropout_rng.push_back(t);
    }
    auto fields = position_fields(c.position);
    std::vector<double> values;
    for (const auto& [name, unused] : fields) {
      a.read("position_" + name, v);
      values.push_back(v.toDouble());
    }
    auto& p = c.position;
    p.epoch = static_cast<int>(values[0]);
    p.step_in_epoch = static_cast<int64_t>(values[1]);
    p.global_step = static_cast<int64_t>(values[2]);
    p.epoch_sums.loss_sum = values[3];
    p.epoch_sums.samples = static_cast<int64_t>(values[4]);
    p.epoch_sums.correct = static_cast<int64_t>(values[5]);
    p.epoch_sums.top_k_correct = static_cast<int64_t>(values[6]);
    p.epoch_seconds = values[7];
    p.train_seconds = values[8];
    p.train_samples = static_cast<int64_t>(values[9]);
    p.best_val_accuracy = values[10];
    for (const auto& [name, value] : callback_fields(p.callbacks))
      if (a.try_read("callback_" + name, v)) *value = v.toDouble();
    for (const auto& [name, value] : callback_counters(p.callbacks))
      if (a.try_read("callback_" + name, v)) *value = static_cast<int>(v.toInt());
    torch::Tensor best;
    if (a.try_read("best_params", best)) c.best_params = best;
  } catch (const c10::Error& e) {
    throw DataError(fmt::format("{}: not a readable checkpoint ({})", path, e.what_without_backtrace()));
  }
  return c;
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
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw RunError(fmt::format("cannot create the checkpoint folder {}: {}", dir_, ec.message()));
  write_checkpoint((fs::path(dir_) / fmt::format("ckpt-{}.pt", c.position.global_step)).string(), c);
  prune_checkpoints(dir_, keep_last_);
  if (best) write_checkpoint((fs::path(dir_) / "best.pt").string(), c);
}

}  // namespace mirror
