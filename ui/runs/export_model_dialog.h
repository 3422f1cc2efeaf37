#pragma once
// File → Export model…: a recorded run's trained model as a PyTorch state dict plus model.py, or
// as ONNX, into a folder the person picks. The work is core's export_run; this is the form.

#include <QDialog>

class QButtonGroup;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace mirror::ui {

class ExportModelDialog : public QDialog {
  Q_OBJECT
 public:
  // `run_dir` holds run.json and checkpoints/.
  explicit ExportModelDialog(const QString& run_dir, QWidget* parent = nullptr);
  // The runs in `run_dirs` to pick from in the Run box, `chosen` picked first (added when not
  // among them).
  ExportModelDialog(const QStringList& run_dirs, const QString& chosen, QWidget* parent = nullptr);

  // The run exported: the one picked in the Run box.
  const QString& run_dir() const { return run_dir_; }
  QComboBox* run_box() const { return run_box_; }

  QRadioButton* pytorch() const { return pytorch_; }
  QRadioButton* onnx() const { return onnx_; }
  QRadioButton* best() const { return best_; }
  QLineEdit* folder() const { return folder_; }

  // Exports with the form's choices. On success returns true and `written()` lists the files;
  // on failure returns false with the reason in `error()`.
  bool export_now();
  const QStringList& written() const { return written_; }
  const QString& error() const { return error_; }

 private:
  // Follows the Run box: best.pt there or not, the default folder under the run.
  void run_picked(const QString& dir);

  QString run_dir_;
  QComboBox* run_box_;
  QRadioButton* pytorch_;
  QRadioButton* onnx_;
  QRadioButton* last_;
  QRadioButton* best_;
  QLineEdit* folder_;
  QLabel* result_;
  QDialogButtonBox* buttons_;
  QStringList written_;
  QString error_;
};

}  // namespace mirror::ui
