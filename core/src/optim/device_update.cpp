#include "mirror/optim/device_update.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

namespace mirror {

DeviceUpdate::DeviceUpdate(Optimizer& optimizer, torch::Tensor params, torch::Tensor grads)
    : optimizer_(optimizer), params_(std::move(params)), grads_(std::move(grads)) {
  if (!params_.defined() || !grads_.defined() || params_.numel() != grads_.numel() ||
      params_.device() != grads_.device())
    throw std::invalid_argument("DeviceUpdate: parameters and gradients must be buffers of one size on one device");
  const auto values = static_cast<int64_t>(UpdateScalars{}.values.size());
  auto on_host = torch::TensorOptions().dtype(torch::kFloat32);
  if (params_.is_cuda()) on_host = on_host.pinned_memory(true);
  host_ = torch::zeros({values}, on_host);
  device_ = torch::zeros({values}, torch::TensorOptions().dtype(torch::kFloat32).device(params_.device()));
}

void DeviceUpdate::prepare() {
  const UpdateScalars u = optimizer_.next_update();
  if (kind_ >= 0 && u.kind != kind_)
    throw std::logic_error("DeviceUpdate: the optimizer changed its formula between steps");
  kind_ = u.kind;
  std::copy(u.values.begin(), u.values.end(), host_.data_ptr<float>());
}

void DeviceUpdate::enqueue() {
  if (kind_ < 0) throw std::logic_error("DeviceUpdate: enqueue() before the first prepare()");
  // Asynchronous from pinned memory on a GPU: a node of the captured graph that reads host_ at
  // each replay.
  device_.copy_(host_, /*non_blocking=*/params_.is_cuda());
  UpdateScalars u;
  u.kind = kind_;  // the numbers themselves come from device_
  apply_update(u, params_, grads_, optimizer_.update_slots(), device_);
}

}  // namespace mirror
