#pragma once
// Picks a preset or edits the layer list, and shows the Keras-style summary live, with shape
// errors on the offending row.

#include <QWidget>

#include "mirror/model/layer_spec.h"
#include "mirror/model/shape.h"

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace mirror {
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class ModelPanel : public QWidget {
  Q_OBJECT
 public:
  explicit ModelPanel(QWidget* parent = nullptr);

  // Shows the config's model, and its preset's name in the picker (custom when it has none);
  // emits neither preset_chosen() nor model_changed().
  void set_config(const TrainConfig& config);
  // Writes the model as edited into `into.model`, leaving the rest of `into` as it is but for its
  // preset, cleared while the picker says custom (the model is no longer the preset's).
  void config(TrainConfig& into) const;
  // The model as edited; rows that do not parse are left out (and marked).
  ModelSpec spec() const { return spec_; }
  // Shows a spec (from a preset or a file); does not Q_EMIT model_changed().
  void set_spec(const ModelSpec& spec);
  // Opens a model file, ours or Keras' model.to_json() output, shows it and marks the model custom;
  // the model takes the file's name (runs record it by that name, not by the preset before).
  // A Keras 3 .keras file's trained weights become the run's starting weights (config()'s
  // initial_weights) for as long as the model stays as the file has it. Returns what a Keras file
  // held that was not imported (see keras_import.h); throws ConfigError saying what is wrong with
  // the file, leaving the model as it was.
  QStringList open_model_file(const QString& path);
  // The .keras file whose weights a run of the model as it stands starts from; empty: none (new
  // weights, or the model was edited since the file was opened).
  std::string initial_weights() const;
  // The dataset's input; the analysis and summary follow it.
  void set_input(const InputSpec& input, bool have_input);
  const ModelAnalysis& analysis() const { return analysis_; }
  // True when every row parses and the model fits the data.
  bool ok() const { return parse_ok_ && have_input_ && analysis_.ok(); }
  QString problem() const;
  QComboBox* preset_box() const { return preset_; }
  QTableWidget* table() const { return table_; }
  QLabel* hint() const { return hint_; }
  // Whether the model fits the data, its size, and what the loss reads (logits or probabilities).
  QLabel* status() const { return status_; }
  // Offers a preset that fits the data (a button emitting preset_chosen); an empty name hides it.
  void offer_preset(const QString& preset, const QString& dataset);
  QPushButton* offer_button() const { return offer_; }
  const QString& offered_preset() const { return offered_; }
  // Shown while the model ends in softmax and would have it applied twice by the loss
  // (softmax_output.h), with the two fixes as buttons; the teacher decides, nothing changes
  // until one is pressed (each marks the model custom).
  QWidget* softmax_notice() const { return softmax_box_; }
  QPushButton* train_on_probabilities_button() const { return on_probabilities_; }
  QPushButton* drop_softmax_button() const { return drop_softmax_; }

 Q_SIGNALS:
  void preset_chosen(const QString& name);
  void model_changed();

 private:
  void fill_table();
  void rebuild_from_table();
  void add_row(const LayerSpec& layer);
  void analyse();
  void move_row(int delta);
  void mark_custom();
  // The selected row's type: its settings and their defaults.
  void show_hint(int row);
  // Shows or hides the softmax notice for spec_.
  void show_softmax_notice();

  QComboBox* preset_;
  QTableWidget* table_;
  QPlainTextEdit* summary_;
  QLabel* hint_;
  QLabel* status_;
  QPushButton* offer_;
  QString offered_;
  QWidget* softmax_box_;
  QLabel* softmax_text_;
  QPushButton* on_probabilities_;
  QPushButton* drop_softmax_;
  ModelSpec spec_;
  std::string weights_file_;  // a .keras file opened (or a loaded config's initial_weights)
  ModelSpec weights_spec_;    // the model that file's weights are for
  InputSpec input_;
  ModelAnalysis analysis_;
  bool have_input_ = false;
  bool parse_ok_ = true;
  bool updating_ = false;
};

}  // namespace mirror::ui
