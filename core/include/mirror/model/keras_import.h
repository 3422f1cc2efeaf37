#pragma once
// Reading a Keras model's architecture as `model.to_json()` writes it, so that an existing Keras
// tutorial's model opens here. Sequential models of the layers ModelSpec knows, in the layout of
// Keras 2 (tf.keras) and of Keras 3; weights are not part of that file and are not read.

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

#include "mirror/model/layer_spec.h"

namespace mirror {

// Whether `j` looks like Keras' to_json() output (an object with "class_name" and "config").
bool is_keras_model_json(const nlohmann::json& j);

// The Sequential model `j` describes. Settings that change what the model computes but that
// ModelSpec cannot express (dilation, channels-first data, grouped convolutions, an unknown
// activation, a layer kind we do not have) are refused: one ConfigError names every such layer
// with its index, name and class, and says which layers are supported. Settings that only affect
// training in Keras (initialisers, regularisers, constraints, dtype, trainable) are not
// imported; each kind is listed once in `notes`, as is the InputLayer's shape (the dataset
// decides the input here). A model that ends in softmax (as Keras models trained with
// from_logits=False do) is imported as written, with softmax_notice() (softmax_output.h) last
// in `notes`: the caller offers the fixes. Pure; never throws anything but ConfigError.
ModelSpec model_from_keras_json(const nlohmann::json& j, std::vector<std::string>* notes = nullptr);

}  // namespace mirror
