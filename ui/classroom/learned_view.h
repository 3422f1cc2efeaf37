#pragma once
// The Learned tab: what the model of the current run has learned, from its validations. A
// confusion matrix (counts or shares of each true class), per-class accuracy, the most confused
// pairs, the examples behind any cell with the model's top guesses, and, for 2-D point data, the
// decision regions behind the validation points. Follows a LiveRun: it updates at every
// validation and shows a resumed or finished run's recorded ones.

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "mirror/train/evaluation.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QTableWidget;

namespace mirror {
class Dataset;
}  // namespace mirror

namespace mirror::ui {

class ConfusionMatrixView;
class LiveRun;
class PointPlot;

class LearnedView : public QWidget {
  Q_OBJECT
 public:
  explicit LearnedView(LiveRun* run, QWidget* parent = nullptr);

  // The dataset loaded in the window: used for class names, example pictures and text, and the
  // points, whenever it is the one the run validates on (same name, classes and validation size).
  // The live run keeps the one it validated on when another is loaded after it, until a new run
  // begins.
  void set_dataset(std::shared_ptr<const Dataset> dataset);

  // Shows the evaluations recorded in run directory `dir` (a finished run, one another process
  // writes) until the live run begins anew. False, saying why in the summary, when it has none.
  // Its classes are named as its run.json recorded them; its examples and points come from the
  // loaded dataset when that is the run's, else from the run's own data, read again in the
  // background (recorded_data_loading() until it is in or found gone).
  bool show_recorded(const QString& dir);
  bool showing_recorded() const { return !recorded_dir_.isEmpty(); }
  bool recorded_data_loading() const { return recorded_loads_ > 0; }

  // The evaluation shown: the latest, unless an earlier epoch was chosen. Null before any.
  const Evaluation* shown() const;

  ConfusionMatrixView* matrix() const { return matrix_; }
  PointPlot* regions() const { return regions_; }
  QComboBox* epoch_choice() const { return epoch_; }
  QComboBox* count_choice() const { return counts_; }
  QCheckBox* mistakes_only() const { return mistakes_; }
  QTableWidget* per_class() const { return per_class_; }
  QListWidget* most_confused() const { return confused_; }
  QListWidget* examples() const { return examples_; }
  QLabel* summary() const { return summary_; }

 private:
  static constexpr int kThumbnail = 48;  // an example's picture, px
  void on_evaluations_changed();
  // Fills the epoch choice from evaluations() and shows the chosen one.
  void list_epochs();
  // The recorded run's when one is shown, else the live run's.
  const std::vector<Evaluation>& evaluations() const;
  void show_evaluation();
  // The panels for one evaluation (learned_panels.cpp).
  void fill_per_class(const Evaluation& ev);
  void fill_confused(const Evaluation& ev);
  void fill_examples();
  void fill_regions(const Evaluation& ev);
  void show_regions(bool shown);  // the decision regions beside the matrix, or none
  // The dataset the shown run validates on, the live run's own or the loaded one; null when
  // neither is.
  const Dataset* matching_dataset(const Evaluation& ev) const;
  // Whether the shown run validated on `data` (same name, classes and validation size; for a
  // recorded run also the class names and, for one's own files, the content hash it recorded).
  bool fits(const Dataset& data, const Evaluation& ev) const;
  QStringList class_names(const Evaluation& ev) const;
  // Reads the shown recorded run's data again when the loaded dataset is not the one it validated on.
  void load_recorded_data();

  LiveRun* run_;
  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<const Dataset> run_dataset_;  // the live run's data, kept when another was loaded after it
  QLabel* summary_;
  QComboBox* epoch_;
  QComboBox* counts_;
  QCheckBox* mistakes_;
  ConfusionMatrixView* matrix_;
  PointPlot* regions_;
  QLabel* regions_title_;
  QTableWidget* per_class_;
  QListWidget* confused_;
  QLabel* examples_title_;
  QListWidget* examples_;
  bool follow_latest_ = true;  // the epoch choice moves on with new validations
  QString recorded_dir_;       // a recorded run shown instead of the live one
  std::string recorded_dataset_;
  std::vector<std::string> recorded_class_names_;  // run.json's; empty when it named none
  std::string recorded_content_hash_;               // run.json's data.content_hash (own data); else empty
  std::string recorded_data_options_;               // its config (JSON text) when it names its dataset; else empty
  std::shared_ptr<const Dataset> recorded_data_;    // its data read again, when the loaded one is not it
  int recorded_loads_ = 0;                          // background reads of it not yet back
  std::vector<Evaluation> recorded_;
};

}  // namespace mirror::ui
