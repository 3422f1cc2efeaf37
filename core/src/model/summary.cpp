#include "mirror/model/summary.h"

#include <fmt/format.h>

#include "mirror/data/dataset.h"

namespace mirror {

namespace {
// Keras' default column layout: 65 characters, columns at 29, 55 and 65.
constexpr int kWidth = 65;

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string row(const std::string& a, const std::string& b, const std::string& c) {
  // Like Keras, a name too long for its column is cut rather than shifting the row.
  return fmt::format(" {:<28.28} {:<25.25}{:<10}", a, b, c);
}
}  // namespace

std::string format_summary(const std::string& model_name, const ModelAnalysis& analysis) {
  const std::string thin(kWidth, '_'), thick(kWidth, '=');
  std::string out = fmt::format("Model: \"{}\"\n{}\n", model_name, thin);
  out += row("Layer (type)", "Output Shape", "Param #") + "\n" + thick + "\n";
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const auto& l = analysis.layers[i];
    std::string shape = l.error.empty() ? (l.output_shape.empty() ? "?" : format_shape(l.output_shape))
                                        : "error";
    out += row(fmt::format("{} ({})", l.name, l.type), shape, std::to_string(l.params)) + "\n";
    if (!l.error.empty()) out += fmt::format("   ^ {}\n", l.error);
    if (i + 1 < analysis.layers.size()) out += "\n";
  }
  out += thick + "\n";
  out += fmt::format("Total params: {}\nTrainable params: {}\nNon-trainable params: {}\n{}\n",
                     with_commas(analysis.total_params), with_commas(analysis.trainable_params),
                     with_commas(analysis.total_params - analysis.trainable_params), thin);
  if (!analysis.error.empty()) out += fmt::format("error: {}\n", analysis.error);
  return out;
}

}  // namespace mirror
