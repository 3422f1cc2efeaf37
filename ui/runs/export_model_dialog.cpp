// Tested by tests/ui/runs/test_model_exchange.cpp.
#include "ui/runs/export_model_dialog.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include <algorithm>

#include "mirror/runs/export_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

ExportModelDialog::ExportModelDialog(const QString& run_dir, QWidget* parent)
    : ExportModelDialog(QStringList{run_dir}, run_dir, parent) {}

ExportModelDialog::ExportModelDialog(const QStringList& run_dirs, const QString& chosen, QWidget* parent)
    : QDialog(parent), run_dir_(chosen) {
  setWindowTitle("Export model");
  auto* form = new QFormLayout;
  run_box_ = new QComboBox;
  run_box_->setObjectName("export_run");
  run_box_->setToolTip("The run whose trained model is exported");
  QStringList dirs = run_dirs;
  if (!chosen.isEmpty() && !dirs.contains(chosen)) dirs.prepend(chosen);
  // Each run by the name the runs list gives it (its meta.json name, else its folder's), the
  // folder in its tooltip. A combo box shows plain text.
  for (const QString& d : dirs) {
    const QString folder = QDir(d).dirName();
    const QString name = QString::fromStdString(read_meta(d.toStdString()).name);
    run_box_->addItem(name.isEmpty() ? folder : name, d);
    run_box_->setItemData(run_box_->count() - 1, literal(d), Qt::ToolTipRole);
  }
  run_box_->setCurrentIndex(std::max(0, static_cast<int>(dirs.indexOf(chosen))));
  if (run_dir_.isEmpty() && !dirs.isEmpty()) run_dir_ = dirs.front();
  form->addRow("Run", run_box_);

  pytorch_ = new QRadioButton("PyTorch: model.pt (state dict for torch.load) and model.py (the architecture)");
  onnx_ = new QRadioButton("ONNX: model.onnx (opset 13), for ONNX Runtime and other runtimes");
  pytorch_->setChecked(true);
  auto* formats = new QButtonGroup(this);
  formats->addButton(pytorch_);
  formats->addButton(onnx_);
  auto* format_box = new QVBoxLayout;
  format_box->addWidget(pytorch_);
  format_box->addWidget(onnx_);
  form->addRow("Format", format_box);

  last_ = new QRadioButton("last checkpoint");
  best_ = new QRadioButton("best validation accuracy");
  last_->setChecked(true);

  auto* weights = new QButtonGroup(this);
  weights->addButton(last_);
  weights->addButton(best_);
  auto* weight_box = new QHBoxLayout;
  weight_box->addWidget(last_);
  weight_box->addWidget(best_);
  weight_box->addStretch();
  form->addRow("Weights", weight_box);

  folder_ = new QLineEdit;
  auto* browse = new QPushButton("Browse…");
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, "Export into", folder_->text());
    if (!d.isEmpty()) folder_->setText(d);
  });
  auto* folder_box = new QHBoxLayout;
  folder_box->addWidget(folder_, 1);
  folder_box->addWidget(browse);
  form->addRow("Folder", folder_box);

  result_ = new QLabel("A sample of validation examples and the model's outputs for them is written alongside "
                       "(sample_input.npy, sample_output.npy), to check the export where it lands.");
  result_->setTextFormat(Qt::RichText);  // paths and messages escaped into it
  result_->setWordWrap(true);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel);
  buttons_->addButton("Export", QDialogButtonBox::AcceptRole);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (export_now()) accept();
  });
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(result_);
  layout->addWidget(buttons_);
  run_picked(run_dir_);
  connect(run_box_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (i >= 0) run_picked(run_box_->itemData(i).toString());
  });
}

void ExportModelDialog::run_picked(const QString& dir) {
  const QString old_default = QDir(run_dir_).filePath("export");
  run_dir_ = dir;
  const bool has_best = QFileInfo::exists(QDir(dir).filePath("checkpoints/best.pt"));
  best_->setEnabled(has_best);
  if (!has_best) last_->setChecked(true);
  // A folder the person typed stays; the default follows the run.
  if (folder_->text().isEmpty() || folder_->text() == old_default) folder_->setText(QDir(dir).filePath("export"));
}

bool ExportModelDialog::export_now() {
  ExportOptions options;
  options.format = onnx_->isChecked() ? "onnx" : "pt";
  options.checkpoint = best_->isChecked() ? "best" : "last";
  options.out_dir = folder_->text().toStdString();
  written_.clear();
  error_.clear();
  QGuiApplication::setOverrideCursor(Qt::WaitCursor);  // the run's dataset is loaded first
  try {
    const ExportResult r = export_run(run_dir_.toStdString(), options);
    for (const auto& f : r.files) written_ << QString::fromStdString(f);
  } catch (const std::exception& e) {
    error_ = QString::fromStdString(describe_exception(e));
  }
  QGuiApplication::restoreOverrideCursor();
  result_->setText(error_.isEmpty() ? "Written: " + written_.join(", ").toHtmlEscaped()
                                    : "<b>Not exported:</b> " + error_.toHtmlEscaped());
  return error_.isEmpty();
}

}  // namespace mirror::ui
