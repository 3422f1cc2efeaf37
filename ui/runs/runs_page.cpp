// Tested by tests/ui/window/test_room_layout.cpp and tests/ui/runs/test_runs_view.cpp.
#include "ui/runs/runs_page.h"

#include <QDir>
#include <QResizeEvent>
#include <QShowEvent>
#include <QTimer>

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
  // Runs chosen change what the comparison needs (its table's rows): the split follows.
  connect(browser_, &RunsBrowser::selection_changed, this, &RunsPage::place_split_soon);
  connect(this, &QSplitter::splitterMoved, this, [this] {
    dragged_ = true;
    compare_->set_list_shown(sizes().value(0) > 0);  // dragged shut or open: the picker says so
  });
  connect(compare_, &CompareView::list_wanted, this, [this](bool shown) { fold_list(!shown); });
}

void RunsPage::resizeEvent(QResizeEvent* event) {
  QSplitter::resizeEvent(event);
  if (!dragged_ && sizes().value(0) != 0) place_split();
}

void RunsPage::showEvent(QShowEvent* event) {
  QSplitter::showEvent(event);
  place_split_soon();  // laid out for the first time in this font: the list's real surroundings are known then
}

void RunsPage::changeEvent(QEvent* event) {
  QSplitter::changeEvent(event);
  // Projector type: the rows grow; once the list has its new row height, the split follows.
  if (event->type() == QEvent::FontChange) place_split_soon();
}

void RunsPage::place_split_soon() {
  QTimer::singleShot(0, this, [this] {
    if (!dragged_ && sizes().value(0) != 0) place_split();
  });
}

void RunsPage::place_split() {
  const int h = height() - handleWidth();
  if (h <= 0) return;
  const int floor = browser_->minimumSizeHint().height();
  const int ceiling = std::max(floor, h - compare_->minimumSizeHint().height());
  // Runs compared: the comparison's charts are what people look at, the list keeps its rows.
  const int wanted = compare_->runs().empty() ? std::max(browser_->preferred_height(), 2 * h / 5) : browser_->preferred_height();
  const int list = std::clamp(wanted, floor, ceiling);
  setSizes({list, h - list});
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
  compare_->set_list_shown(!folded);
  const int h = std::max(height(), 400);
  if (folded) setSizes({0, h});
  else if (sizes().value(0) == 0) {
    setSizes({h / 3, h - h / 3});
    if (!dragged_) place_split();
  }
}

}  // namespace mirror::ui
