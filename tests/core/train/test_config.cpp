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
  c.strategy.precision = Precision::kMixedBf16;
  const TrainConfig back = config_from_json(nlohmann::json::parse(to_json(c).dump()));
  EXPECT_EQ(to_json(back), to_json(c));
  EXPECT_EQ(back.dataset.train_size, 123);
  EXPECT_EQ(back.strategy.precision, Precision::kMixedBf16);
  nlohmann::json before_precision = to_json(c);  // a run recorded before --precision: float32
  before_precision.erase("precision");
  EXPECT_EQ(config_from_json(before_precision).strategy.precision, Precision::kFloat32);
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

TEST(TrainConfig, AWholeNumberThatDoesNotFitItsFieldIsRefusedNamingTheField) {
  const auto error = [](const char* pointer, nlohmann::json value) {
    nlohmann::json j = to_json(config_from_preset("spirals-mlp"));
    j[nlohmann::json::json_pointer(pointer)] = std::move(value);
    try {
      config_from_json(j);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // get<int>() wrapped 2^32 + 1 to 1 epoch, 2^64 - 1 to a batch of -1, -1 to seed 2^64 - 1.
  EXPECT_EQ(error("/epochs", (int64_t{1} << 32) + 1), "'epochs' is 4294967297, out of range [-2147483648, 2147483647]");
  EXPECT_NE(error("/batch_size", UINT64_MAX).find("'batch_size' is 18446744073709551615, out of range"), std::string::npos);
  EXPECT_NE(error("/seed", -1).find("'seed' is -1, out of range [0, "), std::string::npos);
  EXPECT_NE(error("/devices/logical", int64_t{1} << 31).find("'devices.logical' is 2147483648"), std::string::npos);
  EXPECT_NE(error("/dataset/seed", -5).find("'dataset.seed' is -5"), std::string::npos);
  EXPECT_NE(error("/checkpoint_keep_last", 1e10).find("'checkpoint_keep_last' is 10000000000.0, out of range"),
            std::string::npos);
  EXPECT_NE(error("/epochs", 2.5).find("'epochs' is 2.5, not a whole number"), std::string::npos);
  EXPECT_EQ(error("/epochs", 5.0), "accepted");  // a whole number written as 5.0, as a hand or a script may write it
  EXPECT_NE(error("/epochs", "many").find("'epochs' is string, not a whole number"), std::string::npos);
  EXPECT_NE(error("/reduce_lr_on_plateau/patience", int64_t{1} << 32).find("'reduce_lr_on_plateau.patience' is 4294967296"),
            std::string::npos);
  EXPECT_NE(error("/early_stopping/start_from_epoch", -(int64_t{1} << 40)).find("'early_stopping.start_from_epoch'"),
            std::string::npos);
  EXPECT_EQ(error("/epochs", 3), "accepted");
}
