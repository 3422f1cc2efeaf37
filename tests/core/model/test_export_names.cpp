// Layer and model names we did not write, on their way into exported code: model.py holds them
// only as escaped literals and checked identifiers, model.pt's keys and ONNX's names use the
// identifiers, and names LibTorch cannot take are refused when the model is analysed.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <sstream>

#include "mirror/model/builder.h"
#include "mirror/model/export.h"
#include "mirror/util/python_literal.h"
#include "test_helpers.h"
#include "named_weights.h"
#include "util/python_runner.h"

using namespace mirror;
using mirror::testing::python_has;
using mirror::testing::run_python;
using mirror::testing::TempDir;
using mirror::testing::hex_bytes;
using mirror::testing::weights_of;

namespace {
const InputSpec kHostileInput{{12}, true, 50, 3};

LayerSpec named_layer(LayerKind kind, std::string name) {
  LayerSpec l;
  l.kind = kind;
  l.name = std::move(name);
  return l;
}

// Every kind of hostile name on a model that fits kHostileInput; none holds a '.', which analyze()
// refuses (test HostileNamesWithDotsStillBecomeLiterals gives the generator those directly).
ModelSpec hostile_model() {
  ModelSpec m;
  auto add = [&](LayerKind kind, std::string name) -> LayerSpec& { return m.layers.emplace_back(named_layer(kind, std::move(name))); };
  auto& emb = add(LayerKind::kEmbedding, "emb\nimport os; open('pwned_embedding', 'w')\n#");
  emb.input_dim = kFromDataset;
  emb.output_dim = 4;
  auto& conv = add(LayerKind::kConv1D, "\"); open(\"pwned_quote\", \"w\") #");
  conv.units = 4;
  conv.kernel = {3};
  conv.activation = Activation::kRelu;
  add(LayerKind::kMaxPool1D, "class").pool = {2};
  add(LayerKind::kDropout, "forward").rate = 0.1;
  auto& conv2 = add(LayerKind::kConv1D, "__class__");
  conv2.units = 4;
  conv2.kernel = {2};
  add(LayerKind::kGlobalMaxPool1D, "_modules\n# a comment no more");
  auto& dense = add(LayerKind::kDense, "training");
  dense.units = 8;
  dense.activation = Activation::kRelu;
  add(LayerKind::kActivation, "\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 \xe2\x80\x8f\xe2\x80\xa8").activation = Activation::kGelu;
  add(LayerKind::kDense, "a b").units = 5;
  add(LayerKind::kDense, "a_b").units = 5;
  add(LayerKind::kDropout, "eval").rate = 0.1;
  add(LayerKind::kActivation, std::string("nul\0esc\x1b[31m", 12)).activation = Activation::kTanh;
  add(LayerKind::kDropout, "lambda").rate = 0.0;
  add(LayerKind::kActivation, "def\r").activation = Activation::kTanh;
  auto& out = add(LayerKind::kDense, std::string(5000, 'z') + "\nimport os\n" + std::string(5000, 'z'));
  out.units = kFromDataset;
  out.activation = Activation::kSoftmax;
  return m;
}

// Checks model.py in `dir` the way Python parses it: only imports of torch, the TITLE and
// LAYER_NAMES constants and class Model at the top; inside, no names but the ones the template
// uses and no strings but "same"; every self.X assigned is a key of LAYER_NAMES. Prints each
// LAYER_NAMES entry as "identifier hex_bytes(name)", then TITLE in hex.
constexpr const char* kCheckSource = R"(import ast
src = open('model.py', encoding='ascii').read()
assert all(c == '\n' or ' ' <= c <= '~' for c in src), 'not printable ASCII'
tree = ast.parse(src)
consts = {}
for node in tree.body:
    if isinstance(node, ast.Import):
        assert [a.name for a in node.names] in (['torch'], ['torch.nn.functional']), ast.dump(node)
    elif isinstance(node, ast.ImportFrom):
        assert node.module == 'torch' and [a.name for a in node.names] == ['nn'], ast.dump(node)
    elif isinstance(node, ast.Assign):
        target = node.targets[0].id
        assert target in ('TITLE', 'LAYER_NAMES'), target
        consts[target] = ast.literal_eval(node.value)
    else:
        assert isinstance(node, ast.ClassDef) and node.name == 'Model', ast.dump(node)
        model = node
names = {n.id for n in ast.walk(model) if isinstance(n, ast.Name)}
assert names <= {'nn', 'torch', 'F', 'self', 'x', 'super'}, names
strings = {n.value for n in ast.walk(model) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
assert strings <= {'same'}, strings
assigned = {t.attr for n in ast.walk(model) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Attribute)}
assert assigned <= set(consts['LAYER_NAMES']), assigned - set(consts['LAYER_NAMES'])
for k, v in consts['LAYER_NAMES'].items():
    print(k, v.encode('utf-8', 'surrogateescape').hex())
print(consts['TITLE'].encode('utf-8', 'surrogateescape').hex())
)";

// `source` as Python reads it (kCheckSource), or skips the test where there is no python3.
void expect_python_reads(const std::string& source, const ModelAnalysis& a, const std::string& title) {
  if (!python_has()) GTEST_SKIP() << "no python3 here";
  TempDir dir;
  mirror::testing::write_file(dir.path() / "model.py", source);
  const auto out = run_python(dir.path(), kCheckSource);
  ASSERT_TRUE(out.has_value()) << source;
  const auto ids = python_layer_names(a);
  std::string want;
  for (const auto& r : a.layers) want += ids.at(r.name) + " " + hex_bytes(r.name) + "\n";
  EXPECT_EQ(*out, want + hex_bytes(title) + "\n");
}
}  // namespace

TEST(ExportNames, HostileNamesReachModelPyOnlyAsLiteralsAndCheckedIdentifiers) {
  const auto a = analyze(hostile_model(), kHostileInput);
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  const std::string title = "Model 'm\nimport os; open(\"pwned_title\", \"w\")\n#' of run x";
  const std::string src = pytorch_model_source(a, kHostileInput, title);
  for (char c : src) ASSERT_TRUE(c == '\n' || (c >= 0x20 && c <= 0x7e)) << "byte " << int(c) << " in\n" << src;
  // A name is nowhere but in its literal, except one that is its own identifier ("a_b").
  std::string outside_literals = src;
  for (const auto& r : a.layers)
    for (size_t at; (at = outside_literals.find(python_string_literal(r.name))) != std::string::npos;)
      outside_literals.erase(at, python_string_literal(r.name).size());
  for (const auto& r : a.layers)
    if (!is_python_identifier(r.name)) {
      EXPECT_EQ(outside_literals.find(r.name), std::string::npos) << "raw name " << r.name << " in\n" << src;
    }
  EXPECT_EQ(src.find(title), std::string::npos);
  for (const auto& line : {"self.forward", "self.eval", "self.training", "self._modules", "self.__class__", "self.class ="})
    EXPECT_EQ(src.find(line), std::string::npos) << line << " in\n" << src;
  const auto ids = python_layer_names(a);
  std::set<std::string> distinct;
  for (const auto& [name, id] : ids) {
    EXPECT_TRUE(is_python_identifier(id) && (!is_python_keyword(id) || is_python_soft_keyword(id)) && id[0] != '_' &&
                id.size() <= kMaxKeptPythonIdentifier)
        << id;
    EXPECT_FALSE(std::binary_search(torch_module_attributes().begin(), torch_module_attributes().end(), id)) << id;
    EXPECT_TRUE(distinct.insert(id).second) << id;
  }
  EXPECT_EQ(ids.at("a_b"), "a_b");  // an ordinary name keeps its spelling; "a b" gets a suffix
  EXPECT_EQ(ids.at("a b"), "a_b_1");
  EXPECT_EQ(ids.at("training"), "dense");
  expect_python_reads(src, a, title);
}

TEST(ExportNames, HostileNamesWithDotsStillBecomeLiterals) {
  // analyze() refuses a '.' in a name; the generator must be safe without that.
  auto a = analyze(hostile_model(), kHostileInput);
  a.layers[1].name = "\"); import os; os.system(\"touch /tmp/pwned\") #";
  a.layers[5].name = "x.y\n__import__('os').system('touch /tmp/pwned')";
  const std::string src = pytorch_model_source(a, kHostileInput, "t");
  EXPECT_EQ(src.find(a.layers[1].name), std::string::npos) << src;
  EXPECT_EQ(src.find(a.layers[5].name), std::string::npos) << src;
  expect_python_reads(src, a, "t");
}

TEST(ExportNames, OrdinaryNamesKeepTodaysSource) {
  ModelSpec m;
  m.layers = {named_layer(LayerKind::kDense, ""), named_layer(LayerKind::kFlatten, ""), named_layer(LayerKind::kDense, "")};
  m.layers[0].units = 4;
  m.layers[2].units = kFromDataset;
  const InputSpec in{{2}, false, 0, 3};
  const auto a = analyze(m, in);
  const std::string src = pytorch_model_source(a, in, "Model 'sequential' of run r");
  EXPECT_NE(src.find("        self.dense = nn.Linear(2, 4, bias=True)\n"), std::string::npos) << src;
  EXPECT_NE(src.find("        self.dense_1 = nn.Linear(4, 3, bias=True)\n"), std::string::npos) << src;
  EXPECT_NE(src.find("        x = torch.flatten(x, 1)  # flatten\n"), std::string::npos) << src;
  EXPECT_NE(src.find("LAYER_NAMES = {\n    \"dense\": \"dense\",\n    \"flatten\": \"flatten\",\n"), std::string::npos) << src;
  EXPECT_NE(src.find("TITLE = \"Model 'sequential' of run r\"\n"), std::string::npos) << src;
}

TEST(ExportNames, StateDictKeysAreTheIdentifiersModelPyDeclares) {
  const auto a = analyze(hostile_model(), kHostileInput);
  auto model = build_model(a);
  const auto ids = python_layer_names(a);
  const std::string src = pytorch_model_source(a, kHostileInput, "t");
  size_t keys = 0;
  for (const auto& p : model->named_parameters()) {
    const std::string key = exported_parameter_name(ids, p.key());
    const std::string attribute = key.substr(0, key.find('.'));
    EXPECT_NE(src.find("        self." + attribute + " = nn."), std::string::npos) << key << " in\n" << src;
    ++keys;
  }
  EXPECT_EQ(keys, 13u);  // weight and bias of 2 convolutions and 4 Dense layers; the Embedding's table
  EXPECT_THROW(exported_parameter_name(ids, "no_such_layer.weight"), ConfigError);
}

TEST(ExportNames, OnnxNamesAreIdentifiersAndTheNamesAreData) {
  const auto a = analyze(hostile_model(), kHostileInput);
  auto model = build_model(a);
  const std::string bytes = onnx_model(a, kHostileInput, weights_of(model), "t");
  for (const auto& r : a.layers)
    if (r.name.find_first_of("\n\r\"\x1b\xc3\xe2") != std::string::npos) {
      EXPECT_EQ(bytes.find(r.name), std::string::npos) << hex_bytes(r.name);
    }
  const auto ids = python_layer_names(a);
  for (const char* layer_name : {"training", "a b", "__class__"})
    EXPECT_NE(bytes.find(ids.at(layer_name) + ".weight"), std::string::npos) << layer_name;
  EXPECT_NE(bytes.find("mirror.layer_names"), std::string::npos);
  if (!python_has("onnx")) GTEST_SKIP() << "no python3 with onnx here";
  TempDir dir;
  mirror::testing::write_file(dir.path() / "model.onnx", bytes);
  const auto out = run_python(dir.path(), R"(import json, re, onnx
m = onnx.load('model.onnx')
onnx.checker.check_model(m)
ok = re.compile(r'^[A-Za-z0-9_./]+$')
names = [n.name for n in m.graph.node] + [o for n in m.graph.node for o in n.output] + [t.name for t in m.graph.initializer]
assert all(ok.match(n) for n in names), [n for n in names if not ok.match(n)]
meta = {p.key: p.value for p in m.metadata_props}
for k, v in json.loads(meta['mirror.layer_names']).items():
    print(k, v.encode('utf-8', 'surrogateescape').hex())
)");
  ASSERT_TRUE(out.has_value());
  std::string want;
  for (const auto& r : a.layers) want += ids.at(r.name) + " " + hex_bytes(r.name) + "\n";
  EXPECT_EQ(*out, want);
}

TEST(ExportNames, OnnxConstantsOfALayerNamedLikeAnUnnamedActivationStayDistinct) {
  ModelSpec m;
  m.layers = {named_layer(LayerKind::kDense, ""), named_layer(LayerKind::kActivation, "activation0"),
              named_layer(LayerKind::kDense, "")};
  m.layers[0].units = 4;
  m.layers[0].activation = Activation::kGelu;  // an unnamed activation: its constants are "activation0.*"
  m.layers[1].activation = Activation::kGelu;
  m.layers[2].units = kFromDataset;
  const InputSpec in{{2}, false, 0, 3};
  const auto a = analyze(m, in);
  auto model = build_model(a);
  const std::string bytes = onnx_model(a, in, weights_of(model), "t");
  EXPECT_NE(bytes.find("activation0.sqrt2"), std::string::npos);
  EXPECT_NE(bytes.find("activation0.sqrt2_1"), std::string::npos);  // the second set, renamed
}

TEST(ExportNames, TorchModuleAttributesCoverPythonsOwn) {
  const auto& ours = torch_module_attributes();
  EXPECT_TRUE(std::is_sorted(ours.begin(), ours.end()));
  if (!python_has("torch")) GTEST_SKIP() << "no python3 with torch here";
  TempDir dir;
  const auto out = run_python(dir.path(), "import torch\nprint(' '.join(dir(torch.nn.Module())))\n");
  ASSERT_TRUE(out.has_value());
  std::istringstream words(*out);
  for (std::string name; words >> name;) {
    if (name[0] == '_') continue;  // refused by their leading underscore
    EXPECT_TRUE(std::binary_search(ours.begin(), ours.end(), name)) << name << " is missing";
  }
}

TEST(ExportNames, DuplicateLayerNamesAreRefusedNamingBothLayers) {
  ModelSpec m;
  m.layers = {named_layer(LayerKind::kDense, "hidden"), named_layer(LayerKind::kDropout, "hidden"), named_layer(LayerKind::kDense, "")};
  m.layers[0].units = 4;
  m.layers[2].units = kFromDataset;
  const auto a = analyze(m, InputSpec{{2}, false, 0, 3});
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(a.layers[0].error.empty());
  EXPECT_NE(a.describe_errors().find("layer 2 hidden (Dropout): layer 1 (Dense) has the same name, \"hidden\""),
            std::string::npos)
      << a.describe_errors();
  EXPECT_THROW(build_model(a), ConfigError);
}

TEST(ExportNames, NamesLibTorchCannotRegisterAreRefused) {
  for (const char* bad : {"block.dense", "3"}) {
    ModelSpec m;
    m.layers = {named_layer(LayerKind::kDense, bad)};
    m.layers[0].units = kFromDataset;
    const auto a = analyze(m, InputSpec{{2}, false, 0, 3});
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_NE(a.layers[0].error.find(fmt::format("the name \"{}\"", bad)), std::string::npos) << a.layers[0].error;
  }
}

TEST(ExportNames, AutomaticNamesKeepClearOfGivenNames) {
  ModelSpec m;
  m.layers = {named_layer(LayerKind::kDense, ""), named_layer(LayerKind::kDense, "dense"), named_layer(LayerKind::kDense, "")};
  m.layers[0].units = 4;
  m.layers[1].units = 4;
  m.layers[2].units = kFromDataset;
  const auto a = analyze(m, InputSpec{{2}, false, 0, 3});
  ASSERT_TRUE(a.ok()) << a.describe_errors();
  EXPECT_EQ(a.layers[0].name, "dense_1");
  EXPECT_EQ(a.layers[2].name, "dense_2");
  EXPECT_NO_THROW(build_model(a));
}
