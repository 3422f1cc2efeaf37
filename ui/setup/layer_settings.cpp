// Tested by tests/ui/setup/test_setup_panels.cpp.
#include "ui/setup/layer_settings.h"

#include <iterator>

#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror::ui {

const QStringList& layer_types() {
  static const QStringList types = {"Embedding",    "CategoryEncoding", "Conv1D",
                                    "Conv2D",       "MaxPooling1D",     "MaxPooling2D",
                                    "GlobalMaxPooling1D", "GlobalAveragePooling1D", "Flatten",
                                    "Dense",        "Dropout",          "Activation"};
  return types;
}

namespace {
const LayerHelp kHelp[] = {
    {"Embedding", "input_dim=vocab, output_dim=64",
     "input_dim: vocabulary size (vocab: the dataset's); output_dim: the length of each token's vector"},
    {"CategoryEncoding", "num_tokens=vocab, output_mode=multi_hot",
     "num_tokens: vocabulary size (vocab: the dataset's); output_mode: multi_hot (default) or count"},
    {"Conv1D", "filters=32, kernel_size=3, padding=valid, activation=relu",
     "filters and kernel_size (required); strides (default 1); padding: valid (default) or same; activation "
     "(default linear); use_bias (default true)"},
    {"Conv2D", "filters=32, kernel_size=3, padding=valid, activation=relu",
     "filters and kernel_size (required; 3 or [3,3]); strides (default 1); padding: valid (default) or same; "
     "activation (default linear); use_bias (default true)"},
    {"MaxPooling1D", "pool_size=2", "pool_size (default 2); strides (default: pool_size); padding: valid or same"},
    {"MaxPooling2D", "pool_size=2", "pool_size (default 2 or [2,2]); strides (default: pool_size); padding: valid or same"},
    {"GlobalMaxPooling1D", "", "no settings: the largest value of each channel over the sequence"},
    {"GlobalAveragePooling1D", "", "no settings: the mean of each channel over the sequence"},
    {"Flatten", "", "no settings: one vector per example"},
    {"Dense", "units=64, activation=relu",
     "units (required; classes: the dataset's class count); activation: linear (default), relu, sigmoid, tanh, "
     "softmax, gelu or elu; use_bias (default true)"},
    {"Dropout", "rate=0.5", "rate: the fraction of inputs zeroed while training, from 0 up to (not including) 1"},
    {"Activation", "activation=relu", "activation: linear, relu, sigmoid, tanh, softmax, gelu or elu"},
};

}  // namespace

const LayerHelp& help_for(const QString& type) {
  for (const auto& h : kHelp)
    if (type == h.type) return h;
  return kHelp[std::size(kHelp) - 3];  // Dense
}

// "filters=64, kernel_size=5, activation=relu" from a layer's JSON (its type left out).
QString settings_text(const nlohmann::json& layer) {
  QStringList parts;
  for (const auto& [key, value] : layer.items()) {
    if (key == "type") continue;
    parts << QString::fromStdString(key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return parts.join(", ");
}

// The reverse: top-level comma-separated key=value pairs; values are JSON where they parse,
// else strings (relu, classes, vocab).
nlohmann::json parse_settings(const QString& text) {
  nlohmann::json j = nlohmann::json::object();
  int depth = 0;
  QString current;
  auto flush = [&] {
    const QString item = current.trimmed();
    current.clear();
    if (item.isEmpty()) return;
    const int eq = item.indexOf('=');
    if (eq <= 0) throw ConfigError(QString("'%1' is not key=value").arg(item).toStdString());
    const std::string key = item.left(eq).trimmed().toStdString();
    const std::string value = item.mid(eq + 1).trimmed().toStdString();
    try {
      j[key] = parse_json_text(value, key, kTypedValueJson);
    } catch (const ConfigError&) {  // a word, or a value no field takes: the layer's check says which
      j[key] = value;
    }
  };
  for (QChar c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) flush();
    else current += c;
  }
  flush();
  return j;
}

}  // namespace mirror::ui
