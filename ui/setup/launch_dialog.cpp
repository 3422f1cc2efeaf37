// Tested by tests/ui/setup/test_setup_panels.cpp.
#include "ui/setup/launch_dialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <filesystem>
#include <fstream>

#include "mirror/runs/run_plan.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/local_workers.h"
#include "mirror/util/untrusted_text.h"

namespace mirror::ui {

LaunchDialog::LaunchDialog(const TrainConfig& config, int processes, QWidget* parent) : QDialog(parent) {
  setWindowTitle("Launch this run elsewhere");
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(QString("This run's config, for %1 worker process%2 with %3 logical device%4 each. "
                                   "Copy the file next to mirrortrain on the machine that trains it.")
                               .arg(processes)
                               .arg(processes > 1 ? "es" : "")
                               .arg(config.devices.logical)
                               .arg(config.devices.logical > 1 ? "s" : ""));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  text_ = new QPlainTextEdit;
  text_->setReadOnly(true);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text_->setMinimumSize(640, 300);
  layout->addWidget(text_);

  const std::string root = default_runs_root();
  std::filesystem::path file = plan_run_dir((std::filesystem::path(root) / "configs").string(), config) + ".json";
  const std::string stem = file.stem().string();
  for (int n = 2; std::filesystem::exists(file); ++n)  // two dialogs in one second keep both files
    file.replace_filename(stem + "-" + std::to_string(n) + ".json");
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file);
  out << to_json(config).dump(1) << '\n';
  if (ec || !out.good()) {
    text_->setPlainText(QString("Cannot write %1: %2").arg(QString::fromStdString(file.string()),
                                                            ec ? QString::fromStdString(ec.message()) : "write failed"));
  } else {
    config_file_ = QString::fromStdString(file.string());
    // Pasted into a shell and an sbatch script: the job's name and the folders are slugs, never
    // the model's name as written (plan_run_dir made the file's name one too).
    const std::string label = path_slug(!config.preset.empty() ? config.preset : config.model.name);
    const LaunchCommands c = launch_commands(file.filename().string(), processes, label,
                                             "$HOME/mirror-runs/" + file.stem().string());
    text_->setPlainText(QString("# Saved as %1\n\n# torchrun, on one machine (for several: --nnodes, --node_rank, "
                                "--master_addr, --master_port on each):\n%2\n\n# Slurm, as a batch script (sbatch "
                                "FILE):\n%3")
                            .arg(config_file_, QString::fromStdString(c.torchrun), QString::fromStdString(c.sbatch)));
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  auto* copy = buttons->addButton("Copy", QDialogButtonBox::ActionRole);
  copy->setEnabled(!config_file_.isEmpty());
  connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(text()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

QString LaunchDialog::text() const { return text_->toPlainText(); }

}  // namespace mirror::ui
