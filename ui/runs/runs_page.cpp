#include "ui/runs/runs_page.h"

#include <QDir>

#include <algorithm>

#include "mirror/runs/run_reader.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"

namespace mirror::ui {

RunsPage::RunsPage(QWidget* parent) : QSplitter(Qt::Vertical, parent) {
  setObjectName("runs-page");
  browser_ = new RunsBrowser;
  compare_ = new CompareView;
  addWidget(browser_);
  addWidget(compare_);
  setStretchFactor(0, 2);
  setStretchFactor(1, 3);
  connect(browser_, &RunsBrowser::selection_changed, compare_, &CompareView::set_runs);
}

void RunsPage::compare_runs(const QStringList& dirs) {
  browser_->refresh();
  const QStringList listed = browser_->run_dirs();
  for (const QString& d : dirs)
    if (!listed.contains(QDir(d).absolutePath()) && !listed.contains(d)) browser_->open_run(d);
  browser_->select_runs(dirs);
  const auto& runs = compare_->runs();
  const bool study = runs.size() >= 2 &&
                     std::all_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.in_scaling_study(); });
  compare_->show_scaling(study);
}

void RunsPage::fold_list(bool folded) {
  const int h = std::max(height(), 400);
  if (folded) setSizes({0, h});
  else if (sizes().value(0) == 0) setSizes({h / 3, h - h / 3});
}

}  // namespace mirror::ui
