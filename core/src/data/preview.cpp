#include "mirror/data/preview.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <numeric>

#include "mirror/data/batch.h"
#include "mirror/data/keras_datasets.h"

namespace mirror {

std::vector<ExamplePreview> preview_examples(const Dataset& dataset, Split split, int64_t count) {
  std::vector<int64_t> first(static_cast<size_t>(std::max<int64_t>(0, std::min(count, dataset.size(split)))));
  std::iota(first.begin(), first.end(), 0);
  return preview_examples(dataset, split, first);
}

std::vector<ExamplePreview> preview_examples(const Dataset& dataset, Split split, const std::vector<int64_t>& indices) {
  const auto& info = dataset.info();
  std::vector<int64_t> valid;
  for (const int64_t i : indices)
    if (i >= 0 && i < dataset.size(split)) valid.push_back(i);
  std::vector<ExamplePreview> out;
  if (valid.empty()) return out;
  const Batch b = dataset.gather(split, valid);
  const auto n = static_cast<int64_t>(valid.size());
  for (int64_t i = 0; i < n; ++i) {
    ExamplePreview p;
    p.index = valid[static_cast<size_t>(i)];
    p.label = b.y[i].item<int64_t>();
    if (p.label < static_cast<int64_t>(info.class_names.size())) p.label_name = info.class_names[static_cast<size_t>(p.label)];
    p.shape = info.input_shape;
    auto row = b.x[i].contiguous();
    if (info.kind == InputKind::kTokens) {
      std::vector<int64_t> ids(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel());
      if (info.vocabulary) {
        p.text = decode_tokens(info, ids);
      } else {
        const auto used = std::count_if(ids.begin(), ids.end(), [](int64_t v) { return v != 0; });
        p.text = fmt::format("{} token ids (no word index for this dataset)", used);
      }
    } else {
      auto f = row.to(torch::kFloat32).contiguous();
      p.values.assign(f.data_ptr<float>(), f.data_ptr<float>() + f.numel());
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace mirror
