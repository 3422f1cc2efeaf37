// ConfigOverrides: what the command line's flags become. An unset override keeps the base's value
// (a preset's, or a default changed in core), a set one changes its setting and nothing else.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mirror/model/presets.h"
#include "mirror/train/overrides.h"
#include "mirror/util/error.h"

namespace mirror {
namespace {

// A base whose every setting the front ends used to restate differs from TrainConfig's default.
TrainConfig unusual_base() {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.seed = 7;
  c.dataset.seed = 9;
  c.dataset.data_dir = "/data/points";
  c.optimizer.name = "sgd";
  c.optimizer.momentum = 0.9;
  c.optimizer.nesterov = true;
  c.optimizer.clipvalue = 0.5;
  c.devices.memory_limit_mib = 512;
  c.max_steps = 77;
  c.checkpoints.every_steps = 20;
  c.strategy.communicator = "shared-memory";
  c.strategy.sync_check_every = 9;
  c.strategy.intra_op_threads = 1;
  c.strategy.deterministic = true;
  c.strategy.cuda_graphs = "off";
  c.strategy.top_k = 3;
  return c;
}

// The dotted keys where two configs' documents differ.
void differences(const nlohmann::json& a, const nlohmann::json& b, const std::string& at, std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [k, v] : a.items()) differences(v, b.value(k, nlohmann::json()), at.empty() ? k : at + "." + k, out);
    for (const auto& [k, v] : b.items())
      if (!a.contains(k)) out.push_back(at.empty() ? k : at + "." + k);
  } else if (a != b) {
    out.push_back(at);
  }
}
std::vector<std::string> changed(const TrainConfig& before, const TrainConfig& after) {
  std::vector<std::string> out;
  differences(to_json(before), to_json(after), "", out);
  return out;
}

TEST(ConfigOverrides, NoneGivenKeepsEverySettingOfTheBase) {
  const TrainConfig base = unusual_base();
  EXPECT_EQ(changed(base, apply(ConfigOverrides{}, base)), std::vector<std::string>{});
  for (const auto& p : presets()) {
    const TrainConfig preset = config_from_preset(p.name);
    EXPECT_EQ(changed(preset, apply(ConfigOverrides{}, preset)), std::vector<std::string>{}) << p.name;
  }
}

TEST(ConfigOverrides, EachChangesItsOwnSettingOnly) {
  const TrainConfig base = unusual_base();
  using Keys = std::vector<std::string>;
  const auto one = [&](auto field, auto value) {
    ConfigOverrides o;
    o.*field = value;
    return changed(base, apply(o, base));
  };
  EXPECT_EQ(one(&ConfigOverrides::epochs, 3), Keys{"epochs"});
  EXPECT_EQ(one(&ConfigOverrides::batch_size, int64_t{48}), Keys{"batch_size"});
  EXPECT_EQ(one(&ConfigOverrides::lr, 0.5), Keys{"optimizer.learning_rate"});
  EXPECT_EQ(one(&ConfigOverrides::nesterov, false), Keys{"optimizer.nesterov"});
  EXPECT_EQ(one(&ConfigOverrides::top_k, 2), Keys{"top_k"});
  EXPECT_EQ(one(&ConfigOverrides::precision, std::string("mixed-bf16")), Keys{"precision"});
  EXPECT_EQ(one(&ConfigOverrides::sync_every, 0), Keys{"sync_check_every"});
  EXPECT_EQ(one(&ConfigOverrides::communicator, std::string("auto")), Keys{"communicator"});
  EXPECT_EQ(one(&ConfigOverrides::memory_limit_mib, int64_t{0}), Keys{"devices.memory_limit_mib"});
  EXPECT_EQ(one(&ConfigOverrides::checkpoint_every, int64_t{0}), Keys{"checkpoint_every_steps"});
  EXPECT_EQ(one(&ConfigOverrides::data_dir, std::string("/elsewhere")), Keys{"dataset.data_dir"});
  EXPECT_EQ(one(&ConfigOverrides::image_size, std::string("24x32")), (Keys{"dataset.image_height", "dataset.image_width"}));
  // --seed is the run's seed and its data's, as the command line always meant it.
  EXPECT_EQ(one(&ConfigOverrides::seed, uint64_t{5}), (Keys{"dataset.seed", "seed"}));
}

TEST(ConfigOverrides, AnotherOptimizerStartsFromItsOwnDefaults) {
  const TrainConfig base = unusual_base();
  ConfigOverrides o;
  o.optimizer = "adam";
  o.lr = 0.002;
  const TrainConfig c = apply(o, base);
  EXPECT_EQ(c.optimizer.name, "adam");
  EXPECT_DOUBLE_EQ(c.optimizer.learning_rate, 0.002);
  EXPECT_FALSE(c.optimizer.nesterov);            // sgd's setting, not adam's
  EXPECT_EQ(c.optimizer.clipvalue, OptimizerConfig{}.clipvalue);
  o.optimizer = "sgd";  // the same optimizer keeps the base's settings
  EXPECT_TRUE(apply(o, base).optimizer.nesterov);
}

TEST(ConfigOverrides, ImpossibleValuesAreRefusedSayingWhich) {
  const TrainConfig base = unusual_base();
  const auto message = [&](const ConfigOverrides& o) {
    try {
      apply(o, base);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  ConfigOverrides lr;
  lr.lr = 0;
  EXPECT_NE(message(lr).find("learning rate"), std::string::npos) << message(lr);
  ConfigOverrides comm;
  comm.communicator = "carrier-pigeon";
  EXPECT_NE(message(comm).find("carrier-pigeon"), std::string::npos) << message(comm);
  ConfigOverrides size;
  size.image_size = "64x0";
  EXPECT_NE(message(size).find("HEIGHTxWIDTH"), std::string::npos) << message(size);
  ConfigOverrides precision;
  precision.precision = "fp16";
  EXPECT_NE(message(precision).find("'fp16' is not known: use float32 or mixed-bf16"), std::string::npos)
      << message(precision);
  ConfigOverrides batch;
  batch.batch_size = 0;
  EXPECT_NE(message(batch), "accepted");
  ConfigOverrides schedule;
  schedule.lr_schedule = "cosine:decay_steps=-4";
  EXPECT_NE(message(schedule), "accepted");
}

TEST(ConfigOverrides, TheLinkIsTheWhatIfNotAMeasuredOne) {
  ConfigOverrides o;
  o.link = "10gbe";
  const TrainConfig c = apply(o, unusual_base());
  ASSERT_TRUE(c.strategy.link.has_value());
  EXPECT_TRUE(c.strategy.link->simulated);
}

}  // namespace
}  // namespace mirror
