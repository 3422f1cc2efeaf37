#pragma once
// A trained model as a Keras 3 `.keras` file, which keras.models.load_model opens: a zip of
// metadata.json, config.json (the Sequential model: module, class_name, config, registered_name,
// build_config) and model.weights.h5 (each layer's weights under layers/<snake_case class>[_N]/
// vars/0.., in Keras' layouts: a Dense kernel is (in, out), a Conv1D kernel (k, in, out)). Plain
// data in, bytes out; no torch.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "mirror/model/export.h"
#include "mirror/model/shape.h"

namespace mirror {

// One HDF5 group of model.weights.h5: `path` ("layers/dense_1"), the layer's name (its vars
// group's "name" attribute) and its variables in Keras' order and layout (vars/0, vars/1, ...).
struct KerasLayerWeights {
  std::string path;
  std::string name;
  std::vector<NamedWeights> vars;  // `name` unused; shape and values in Keras' layout
};

// The inverse of keras_layer_weights: the weights of `layers` (as read from a .keras file) in
// LibTorch's names and layouts, one for each parameter of `analysis`' model, in layer order.
// Groups of layers without weights, and any other group, are not looked at. Throws DataError,
// naming `what`, a missing group or variable and a shape that is not the model's. Pure.
std::vector<NamedWeights> weights_from_keras(const ModelAnalysis& analysis, const std::vector<KerasLayerWeights>& layers,
                                             const std::string& what);

// The layers' weights in model.weights.h5's bytes `image` (`what` names it in messages): each
// group under layers/ with a vars group, its "name" attribute and its float datasets 0, 1, ...
// (read as float32). Other groups (the optimizer's, the model's own vars) are left unread. Throws
// DataError when the bytes are not HDF5, a variable is not a floating-point array of at most 8
// axes, or the variables are not numbered 0..n-1; ConfigError when this build has no HDF5.
std::vector<KerasLayerWeights> read_keras_weights_h5(const std::string& image, const std::string& what);

// The layers' weights of the .keras file at `path`: its model.weights.h5 read as
// read_zip_members reads a file someone sent (zip_read.h; at most 1 GiB inflated), then by
// read_keras_weights_h5. Throws DataError naming the file and what is wrong.
std::vector<KerasLayerWeights> keras_file_weights(const std::string& path);

// config.json's document for `analysis` on `input`, the model named `name`. Throws ConfigError
// if `analysis` is not ok(). Pure.
nlohmann::json keras_model_config(const ModelAnalysis& analysis, const InputSpec& input, const std::string& name);

// Every layer's group in Keras' order, its weights taken from `weights` (LibTorch's names and
// layouts, as onnx_model takes them) and laid out as Keras lays them out. Throws ConfigError
// naming a missing or misshapen parameter. Pure.
std::vector<KerasLayerWeights> keras_layer_weights(const ModelAnalysis& analysis, const std::vector<NamedWeights>& weights);

// model.weights.h5's bytes: the groups, and a root "vars" group named `model_name`. Throws
// ConfigError when this build has no HDF5 (MIRROR_WITH_HDF5 off), std::runtime_error when the
// HDF5 library fails.
std::string keras_weights_h5(const std::vector<KerasLayerWeights>& layers, const std::string& model_name);

// The whole .keras file. `keras_version` goes into metadata.json ("3.15.1": the Keras whose
// format this writes), `date_saved` too ("2026-12-07@03:06:52"). Throws as the three above do.
std::string keras_model_file(const ModelAnalysis& analysis, const InputSpec& input,
                             const std::vector<NamedWeights>& weights, const std::string& name,
                             const std::string& date_saved);

}  // namespace mirror
