// Tested by tests/ui/setup/test_setup_panels.cpp.
#include "ui/setup/model_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mirror/data/dataset.h"
#include "mirror/model/presets.h"
#include "mirror/model/softmax_output.h"
#include "mirror/model/summary.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "ui/setup/layer_settings.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
enum Column { kType, kSettings, kShape, kParams };
}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
  preset_ = new QComboBox;
  for (const auto& p : presets()) preset_->addItem(QString::fromStdString(p.name));
  preset_->addItem("custom");
  preset_->setToolTip("A ready-made model with its usual dataset and hyperparameters.");
  table_ = new QTableWidget(0, 4);
  table_->setHorizontalHeaderLabels({"Layer", "Settings", "Output shape", "Param #"});
  table_->horizontalHeader()->setSectionResizeMode(kSettings, QHeaderView::Stretch);
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setToolTip("Edit settings as key=value pairs, e.g. filters=64, kernel_size=5, activation=relu.");
  auto* add = new QPushButton("Add");
  auto* remove = new QPushButton("Remove");
  auto* up = new QPushButton("Up");
  auto* down = new QPushButton("Down");
  auto* open = new QPushButton("Open…");
  auto* save = new QPushButton("Save…");
  auto* buttons = new QHBoxLayout;
  for (auto* b : {add, remove, up, down}) buttons->addWidget(b);
  buttons->addStretch();
  buttons->addWidget(open);
  buttons->addWidget(save);
  summary_ = new QPlainTextEdit;
  summary_->setReadOnly(true);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_->setLineWrapMode(QPlainTextEdit::NoWrap);
  hint_ = new QLabel;
  hint_->setTextFormat(Qt::RichText);
  hint_->setObjectName("layer_hint");
  hint_->setWordWrap(true);
  status_ = new QLabel;
  status_->setTextFormat(Qt::RichText);  // a red span around messages escaped into it (they quote layer names)
  status_->setWordWrap(true);
  offer_ = new QPushButton;
  offer_->setObjectName("offer_preset");
  offer_->hide();
  softmax_box_ = new QFrame;
  softmax_box_->setObjectName("softmax_notice");
  softmax_box_->setStyleSheet("#softmax_notice { background: #fff4d6; color: #4a3500; border: 1px solid #b07d00; }");
  softmax_text_ = new QLabel;
  softmax_text_->setTextFormat(Qt::PlainText);
  softmax_text_->setWordWrap(true);
  on_probabilities_ = new QPushButton("Train on probabilities (as Keras does)");
  on_probabilities_->setObjectName("train_on_probabilities");
  on_probabilities_->setToolTip("Keep the model as written; the loss takes the log of its probabilities, as Keras' "
                                "from_logits=False does. The exported model outputs probabilities.");
  drop_softmax_ = new QPushButton("Drop the softmax");
  drop_softmax_->setObjectName("drop_softmax");
  drop_softmax_->setToolTip("The last layer outputs raw scores (logits), which the loss expects. The exported model "
                            "outputs logits too.");
  {
    auto* box = new QVBoxLayout(softmax_box_);
    box->addWidget(softmax_text_);
    auto* fixes = new QHBoxLayout;
    fixes->addWidget(on_probabilities_);
    fixes->addWidget(drop_softmax_);
    fixes->addStretch();
    box->addLayout(fixes);
  }
  softmax_box_->hide();
  connect(on_probabilities_, &QPushButton::clicked, this, [this] {
    set_spec(trained_on_probabilities(spec_));
    mark_custom();
  });
  connect(drop_softmax_, &QPushButton::clicked, this, [this] {
    set_spec(with_softmax_dropped(spec_));
    mark_custom();
  });
  connect(offer_, &QPushButton::clicked, this, [this] { Q_EMIT preset_chosen(offered_); });
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel("Preset"));
  top->addWidget(preset_, 1);
  layout->addLayout(top);
  layout->addWidget(table_, 2);
  layout->addLayout(buttons);
  layout->addWidget(hint_);
  layout->addWidget(status_);
  layout->addWidget(offer_, 0, Qt::AlignLeft);
  layout->addWidget(softmax_box_);
  layout->addWidget(summary_, 3);

  connect(preset_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (!updating_ && name != "custom") Q_EMIT preset_chosen(name);
  });
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!updating_ && item->column() == kSettings) rebuild_from_table();
  });
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { show_hint(row); });
  connect(add, &QPushButton::clicked, this, [this] {
    LayerSpec dense;
    dense.kind = LayerKind::kDense;
    dense.units = 64;
    dense.activation = Activation::kRelu;
    if (!parse_ok_) {  // the table holds rows the spec does not: append to the table itself
      add_row(dense);
      rebuild_from_table();
      return;
    }
    // Before the selected layer, else before the last Dense (the output layer, usually): a layer
    // appended after the output would be an error at once.
    ModelSpec s = spec_;
    int at = static_cast<int>(s.layers.size());
    if (table_->currentRow() >= 0) {
      at = table_->currentRow();
    } else {
      for (int i = at - 1; i >= 0; --i)
        if (s.layers[static_cast<size_t>(i)].kind == LayerKind::kDense) {
          at = i;
          break;
        }
    }
    s.layers.insert(s.layers.begin() + at, dense);
    set_spec(s);
    table_->setCurrentCell(at, kSettings);
    mark_custom();
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    if (table_->currentRow() >= 0) table_->removeRow(table_->currentRow());
    rebuild_from_table();
  });
  connect(up, &QPushButton::clicked, this, [this] { move_row(-1); });
  connect(down, &QPushButton::clicked, this, [this] { move_row(+1); });
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open model", {}, "Model JSON, ours or Keras' (*.json)");
    if (path.isEmpty()) return;
    try {
      open_model_file(path);
    } catch (const ConfigError& e) {
      QMessageBox::warning(this, "Cannot open the model", literal(QString::fromStdString(e.what())));
    }
  });
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Save model", "model.json", "Model JSON (*.json)");
    if (path.isEmpty()) return;
    std::ofstream(path.toStdString()) << to_json(spec_).dump(2) << "\n";
  });
}

void ModelPanel::set_spec(const ModelSpec& spec) {
  spec_ = spec;
  fill_table();
  analyse();
  show_hint(table_->currentRow());
}

QStringList ModelPanel::open_model_file(const QString& path) {
  std::vector<std::string> notes;
  ModelSpec spec = load_model_file(path.toStdString(), &notes);
  spec.name = QFileInfo(path).completeBaseName().toStdString();
  const bool keras_file = is_keras_archive(path.toStdString());
  weights_file_ = keras_file ? QFileInfo(path).absoluteFilePath().toStdString() : std::string();
  weights_spec_ = spec;
  if (keras_file)
    notes.insert(notes.begin(), "the run starts from the file's trained weights (model.weights.h5); its optimizer "
                                "state is not taken, and editing the model drops the weights");
  set_spec(spec);
  mark_custom();
  QStringList out;
  for (const auto& n : notes) out << QString::fromStdString(n);
  return out;
}

std::string ModelPanel::initial_weights() const {
  return !weights_file_.empty() && to_json(spec_) == to_json(weights_spec_) ? weights_file_ : std::string();
}

void ModelPanel::set_config(const TrainConfig& config) {
  weights_file_ = config.initial_weights;
  weights_spec_ = config.model;
  set_spec(config.model);
  updating_ = true;
  preset_->setCurrentText(config.preset.empty() ? QString("custom") : QString::fromStdString(config.preset));
  updating_ = false;
}

void ModelPanel::config(TrainConfig& into) const {
  into.model = spec_;
  into.initial_weights = initial_weights();
  if (preset_->currentText() == "custom") into.preset.clear();
}

void ModelPanel::set_input(const InputSpec& input, bool have_input) {
  input_ = input;
  have_input_ = have_input;
  analyse();
}

void ModelPanel::add_row(const LayerSpec& layer) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto* type = new QComboBox;
  type->addItems(layer_types());
  type->setCurrentText(keras_type(layer.kind));
  type->setToolTip(help_for(type->currentText()).hint);
  // A new type starts from its own defaults: the old type's settings rarely apply ("filters" on a
  // Dense), and a row that does not parse would leave the summary behind.
  connect(type, &QComboBox::currentTextChanged, this, [this, type](const QString& name) {
    type->setToolTip(help_for(name).hint);
    for (int r = 0; r < table_->rowCount(); ++r)
      if (table_->cellWidget(r, kType) == type && table_->item(r, kSettings)) {
        updating_ = true;
        table_->item(r, kSettings)->setText(help_for(name).defaults);
        updating_ = false;
        table_->setCurrentCell(r, kSettings);
        show_hint(r);
      }
    rebuild_from_table();
  });
  table_->setCellWidget(row, kType, type);
  ModelSpec one;
  one.layers = {layer};
  auto* settings = new QTableWidgetItem(settings_text(to_json(one)["layers"][0]));
  settings->setToolTip(help_for(keras_type(layer.kind)).hint);
  table_->setItem(row, kSettings, settings);
  for (int c : {kShape, kParams}) {
    auto* item = new QTableWidgetItem;
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    table_->setItem(row, c, item);
  }
}

void ModelPanel::fill_table() {
  updating_ = true;
  table_->setRowCount(0);
  for (const auto& l : spec_.layers) add_row(l);
  updating_ = false;
}

void ModelPanel::move_row(int delta) {
  const int r = table_->currentRow();
  const int to = r + delta;
  if (r < 0 || to < 0 || to >= table_->rowCount() || !parse_ok_) return;
  ModelSpec s = spec_;
  std::swap(s.layers[static_cast<size_t>(r)], s.layers[static_cast<size_t>(to)]);
  set_spec(s);
  table_->setCurrentCell(to, kSettings);
  mark_custom();
}

void ModelPanel::mark_custom() {
  updating_ = true;
  preset_->setCurrentText("custom");
  updating_ = false;
  Q_EMIT model_changed();
}

void ModelPanel::rebuild_from_table() {
  nlohmann::json layers = nlohmann::json::array();
  parse_ok_ = true;
  std::vector<QString> row_errors(static_cast<size_t>(table_->rowCount()));
  for (int r = 0; r < table_->rowCount(); ++r) {
    auto* type = qobject_cast<QComboBox*>(table_->cellWidget(r, kType));
    try {
      auto j = parse_settings(table_->item(r, kSettings) ? table_->item(r, kSettings)->text() : QString());
      j["type"] = type->currentText().toStdString();
      model_from_json({{"layers", nlohmann::json::array({j})}});  // checks this row alone
      layers.push_back(j);
    } catch (const std::exception& e) {
      parse_ok_ = false;
      row_errors[static_cast<size_t>(r)] = QString::fromStdString(e.what()).replace("model layer 1", "this layer");
    }
  }
  if (parse_ok_ && layers.empty()) spec_.layers.clear();  // analysis then says "no layers"
  else if (parse_ok_) spec_.layers = model_from_json({{"layers", layers}}).layers;
  analyse();
  updating_ = true;
  for (int r = 0; r < table_->rowCount(); ++r)
    if (!row_errors[static_cast<size_t>(r)].isEmpty()) {
      table_->item(r, kShape)->setText("error");
      table_->item(r, kShape)->setToolTip(literal(row_errors[static_cast<size_t>(r)]));
      table_->item(r, kSettings)->setBackground(QColor(255, 200, 200));
      table_->item(r, kSettings)->setToolTip(literal(row_errors[static_cast<size_t>(r)]));
    }
  preset_->setCurrentText("custom");
  updating_ = false;
  if (!parse_ok_) {
    for (const auto& e : row_errors)
      if (!e.isEmpty()) {
        status_->setText(QString("<span style='color:#c0392b'>%1</span>").arg(e.toHtmlEscaped()));
        break;
      }
  }
  Q_EMIT model_changed();
}

void ModelPanel::analyse() {
  show_softmax_notice();
  if (!have_input_) {
    status_->setText("Load a dataset to see the model's shapes.");
    summary_->clear();
    return;
  }
  analysis_ = analyze(spec_, input_);
  if (analysis_.ok()) offer_preset({}, {});
  updating_ = true;
  for (int r = 0; r < table_->rowCount() && r < static_cast<int>(analysis_.layers.size()); ++r) {
    const auto& l = analysis_.layers[static_cast<size_t>(r)];
    const bool bad = !l.error.empty();
    table_->item(r, kShape)->setText(bad ? "error" : (l.output_shape.empty() ? "?" : QString::fromStdString(format_shape(l.output_shape))));
    table_->item(r, kShape)->setToolTip(literal(QString::fromStdString(l.error)));
    table_->item(r, kParams)->setText(QString::number(l.params));
    table_->item(r, kSettings)->setBackground(bad ? QColor(255, 200, 200) : QBrush());
    table_->item(r, kSettings)->setToolTip(literal(QString::fromStdString(l.error)));
  }
  updating_ = false;
  summary_->setPlainText(QString::fromStdString(format_summary(spec_.name, analysis_)));
  // Which loss trains it, once chosen by "Train on probabilities" (the notice then goes away).
  const QString loss = spec_.train_on_probabilities
                           ? " The loss takes the log of its softmax's probabilities (Keras' from_logits=False)."
                           : "";
  // Where the weights start, when not from the seed: a .keras file's, or none since the model changed.
  const QString file = QFileInfo(QString::fromStdString(weights_file_)).fileName().toHtmlEscaped();
  const QString weights = weights_file_.empty()        ? QString()
                          : !initial_weights().empty() ? QString(" It starts from the trained weights in %1.").arg(file)
                                                       : QString(" Edited since %1 was opened: it starts from new weights.").arg(file);
  status_->setText(analysis_.ok() ? QString("%1 parameters; the model fits the data.%2%3").arg(analysis_.total_params).arg(loss, weights)
                                  : QString("<span style='color:#c0392b'>%1</span>")
                                        .arg(QString::fromStdString(analysis_.describe_errors()).toHtmlEscaped()));
}

void ModelPanel::show_softmax_notice() {
  const std::string notice = mirror::softmax_notice(spec_);
  softmax_text_->setText(QString::fromStdString(notice));
  softmax_box_->setVisible(!notice.empty());
}

void ModelPanel::show_hint(int row) {
  auto* type = row >= 0 ? qobject_cast<QComboBox*>(table_->cellWidget(row, kType)) : nullptr;
  hint_->setText(type ? QString("<b>%1</b>: %2").arg(type->currentText(), QString(help_for(type->currentText()).hint).toHtmlEscaped())
                      : QString("Select a layer to see its settings; Add puts a Dense layer before the selected one."));
}

void ModelPanel::offer_preset(const QString& preset, const QString& dataset) {
  offered_ = preset;
  offer_->setText(QString("Use the %1 preset, made for %2").arg(preset, dataset));
  offer_->setVisible(!preset.isEmpty());
}

QString ModelPanel::problem() const {
  if (!have_input_) return "no dataset loaded";
  if (!parse_ok_) return "a layer's settings do not parse";
  if (!analysis_.ok()) return QString::fromStdString(analysis_.describe_errors());
  return {};
}

}  // namespace mirror::ui
