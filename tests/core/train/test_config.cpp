// The run configuration: presets in, JSON out and back, impossible values refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mirror/train/config.h"
#include "mirror/util/error.h"

using namespace mirror;

TEST(TrainConfig, JsonRoundTripKeepsEverythingARunNeeds) {
  TrainConfig c = config_from_preset("seed-reuters");
  c.dataset.name = "synthetic-text";
  c.dataset.train_size = 123;
  c.dataset.val_size = 45;
  c.dataset.num_words = 1000;
  c.optimizer.name = "sgd";
  c.optimizer.momentum = 0.5;
  c.optimizer.nesterov = true;
  c.devices.logical = 3;
  c.seed = 77;
  c.max_steps = 9;
  c.strategy.deterministic = true;
  c.strategy.intra_op_threads = 1;
  const TrainConfig back = config_from_json(nlohmann::json::parse(to_json(c).dump()));
  EXPECT_EQ(to_json(back), to_json(c));
  EXPECT_EQ(back.dataset.train_size, 123);
  EXPECT_EQ(back.model.initializer, "keras");
  EXPECT_THROW(config_from_json(nlohmann::json::parse(R"({"model": {}})")), ConfigError);
}

TEST(TrainConfig, AnUnknownCommunicatorIsRefusedWithTheChoices) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.strategy.communicator = "carrier-pigeon";
  try {
    c.validate();
    FAIL() << "an unknown communicator must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown communicator 'carrier-pigeon' (choose auto, none, reduce-to-one"),
              std::string::npos) << e.what();
  }
  nlohmann::json j = to_json(config_from_preset("spirals-mlp"));
  j["communicator"] = 3;  // a damaged record
  EXPECT_THROW(config_from_json(j), ConfigError);
}
