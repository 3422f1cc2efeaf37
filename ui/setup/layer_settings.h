#pragma once
// A layer in the Model tab's table: the Keras types it offers, what a new layer of each type starts
// with and what its settings mean, and its settings as the one line of text people edit
// ("filters=64, kernel_size=5, activation=relu") and back.

#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>

namespace mirror::ui {

// The types the table offers, in its order.
const QStringList& layer_types();

// What a new layer of a type starts with, and what its settings mean (the Keras names; a setting
// left out takes the default the hint gives).
struct LayerHelp {
  const char* type;
  const char* defaults;
  const char* hint;
};
// The help of `type`; Dense's for a type not offered.
const LayerHelp& help_for(const QString& type);

// "filters=64, kernel_size=5, activation=relu" from a layer's JSON (its type left out).
QString settings_text(const nlohmann::json& layer);
// The reverse: top-level comma-separated key=value pairs; values are JSON where they parse, else
// strings (relu, classes, vocab). Throws ConfigError for an item that is not key=value.
nlohmann::json parse_settings(const QString& text);

}  // namespace mirror::ui
