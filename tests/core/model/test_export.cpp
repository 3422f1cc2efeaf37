// Lowering a model to operations, and the ONNX and PyTorch forms written from them.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "mirror/data/npy.h"
#include "mirror/model/builder.h"
#include "mirror/model/export.h"
#include "mirror/model/lowering.h"
#include "mirror/model/presets.h"
#include "mirror/util/error.h"
#include "model_inputs.h"
#include "named_weights.h"

using namespace mirror;
using mirror::testing::image_input;
using mirror::testing::text_input;
using mirror::testing::weights_of;

namespace {
std::vector<OpKind> kinds(const std::vector<Op>& ops) {
  std::vector<OpKind> out;
  for (const auto& op : ops) out.push_back(op.kind);
  return out;
}
}  // namespace

TEST(Lowering, TheTutorialsModelChangesLayoutOnceBeforeItsConvolutions) {
  const auto ops = lower(analyze(find_preset("seed-reuters-as-published").model, text_input()));
  EXPECT_EQ(kinds(ops), (std::vector<OpKind>{OpKind::kEmbedding, OpKind::kPermute, OpKind::kConv, OpKind::kActivation,
                                             OpKind::kMaxPool, OpKind::kConv, OpKind::kActivation, OpKind::kMaxPool,
                                             OpKind::kFlatten, OpKind::kLinear, OpKind::kActivation}));
  EXPECT_EQ(ops[1].perm, (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(ops[2].name, "conv1d");
  EXPECT_EQ(ops[2].in_channels, 7);
  EXPECT_EQ(ops[5].in_channels, 64);
  EXPECT_EQ(ops[9].in_channels, 32 * 73);
  EXPECT_EQ(ops[9].in_rank, 1u);
  EXPECT_TRUE(ops[3].name.empty());  // a layer's own activation is not a layer
}

TEST(Lowering, SamePaddingPadsAsLibTorchDoesAndDenseOnSequencesGoesBackToChannelsLast) {
  const auto j = nlohmann::json::parse(R"({"layers": [{"type": "Embedding", "input_dim": "vocab", "output_dim": 4},
      {"type": "Conv1D", "filters": 3, "kernel_size": 4, "padding": "same"}, {"type": "Dense", "units": 5},
      {"type": "GlobalMaxPooling1D"}, {"type": "Dense", "units": "classes"}]})");
  const auto ops = lower(analyze(model_from_json(j), InputSpec{{10}, true, 50, 3}));
  ASSERT_EQ(kinds(ops), (std::vector<OpKind>{OpKind::kEmbedding, OpKind::kPermute, OpKind::kConv, OpKind::kPermute,
                                             OpKind::kLinear, OpKind::kReduceMax, OpKind::kLinear}));
  EXPECT_EQ(ops[2].pad_begin, (std::vector<int64_t>{1}));  // kernel 4: 3 zeros, the odd one after
  EXPECT_EQ(ops[2].pad_end, (std::vector<int64_t>{2}));
  EXPECT_EQ(ops[4].in_rank, 2u);
  EXPECT_EQ(ops[5].dim, 1);  // steps axis of (B, steps, channels)
}

TEST(Lowering, RefusesAModelThatDoesNotFit) {
  EXPECT_THROW(lower(analyze(find_preset("fashion-cnn").model, text_input())), ConfigError);
}

TEST(OnnxExport, NamesAMissingOrMisshapenParameter) {
  const auto a = analyze(find_preset("spirals-mlp").model, InputSpec{{2}, false, 0, 3});
  auto model = build_model(a);
  auto weights = weights_of(model);
  EXPECT_FALSE(onnx_model(a, InputSpec{{2}, false, 0, 3}, weights, "t").empty());
  auto missing = weights;
  const std::string gone = missing.back().name;
  missing.pop_back();
  try {
    onnx_model(a, InputSpec{{2}, false, 0, 3}, missing, "t");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(gone), std::string::npos) << e.what();
  }
  auto misshapen = weights;
  misshapen.front().shape = {1, 1};
  EXPECT_THROW(onnx_model(a, InputSpec{{2}, false, 0, 3}, misshapen, "t"), ConfigError);
}

TEST(OnnxExport, HoldsEveryParameterAndTheOperatorsOfTheModel) {
  const auto a = analyze(find_preset("fashion-cnn").model, image_input());
  auto model = build_model(a);
  const std::string bytes = onnx_model(a, image_input(), weights_of(model), "0.0");
  for (const char* op : {"Transpose", "Conv", "MaxPool", "Flatten", "Gemm", "Relu", "Identity"})
    EXPECT_NE(bytes.find(op), std::string::npos) << op;
  size_t stored = 0;
  for (const auto& p : model->parameters()) stored += static_cast<size_t>(p.numel()) * sizeof(float);
  EXPECT_GT(bytes.size(), stored);  // every weight is in the file, raw
  // The first trained value appears verbatim (raw little-endian float32).
  const auto first = model->parameters().front().detach().contiguous();
  EXPECT_NE(bytes.find(std::string(static_cast<const char*>(first.data_ptr()), 4 * sizeof(float))), std::string::npos);
}

TEST(PyTorchSource, DeclaresOneModulePerLayerWithParametersUnderTheSameNames) {
  const std::string src = pytorch_model_source(analyze(find_preset("seed-reuters").model, text_input()), text_input(), "t");
  EXPECT_NE(src.find("self.embedding = nn.Embedding(30982, 7)"), std::string::npos) << src;
  EXPECT_NE(src.find("self.conv1d = nn.Conv1d(7, 64, kernel_size=5, stride=1, padding=0, bias=True)"), std::string::npos) << src;
  EXPECT_NE(src.find("self.max_pooling1d = nn.MaxPool1d(kernel_size=2, stride=2, ceil_mode=False)"), std::string::npos) << src;
  EXPECT_NE(src.find("self.dense = nn.Linear(2336, 46, bias=True)"), std::string::npos) << src;
  EXPECT_NE(src.find("x = x.permute(0, 2, 1)"), std::string::npos) << src;
  EXPECT_NE(src.find("int64 token ids"), std::string::npos) << src;
}

TEST(Npy, WrittenArraysReadBackAndKeepTheDataAligned) {
  const std::vector<int64_t> values = {1, -2, 3, 4, 5, 6};
  const std::string bytes = npy_bytes("<i8", {2, 3}, values.data(), values.size() * sizeof(int64_t));
  EXPECT_EQ((bytes.size() - values.size() * sizeof(int64_t)) % 64, 0u);
  const NpyArray a = parse_npy(bytes, "test");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.integers, values);
  EXPECT_EQ(parse_npy(npy_bytes("<i8", {6}, values.data(), 48), "one axis").shape, (std::vector<int64_t>{6}));
  EXPECT_THROW(npy_bytes("<f4", {2, 3}, values.data(), 8), std::invalid_argument);
}
